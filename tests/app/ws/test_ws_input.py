"""Bad input over the WebSocket: a clear error or a policy close; never a crash, never a change."""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from app.settings import Settings
from tests.app.conftest import base_settings
from tests.app.live import (
    Client,
    Live,
    bearer,
    connect_client,
    create_room,
    live_server,
)


@dataclass
class Table:
    live: Live
    code: str
    host_token: str
    guest_token: str


@contextlib.asynccontextmanager
async def started_table(settings: Settings) -> AsyncIterator[Table]:
    """A started two-person game (no clock, no AI)."""
    async with live_server(settings) as live, live.http() as http:
        code, host_token = await create_room(http, seats=2, spectators=True)
        guest = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()
        await http.post(f"/api/rooms/{code}/start", headers=bearer(host_token))
        yield Table(live, code, host_token, guest["token"])


@pytest.fixture
async def table() -> AsyncIterator[Table]:
    """A table with tight limits: small frames, a small burst, a slow rate."""
    settings = base_settings(
        ws_max_message_bytes=2048,
        ws_burst=5,
        ws_messages_per_second=1.0,
        allowed_origins=["https://cash-stash.example"],
    )
    async with started_table(settings) as started:
        yield started


async def seated(table: Table, token: str | None = None) -> Client:
    client = await connect_client(table.live, table.code, token or table.host_token)
    await client.wait_for("state")
    return client


async def expect_error(client: Client, code: str) -> dict[str, object]:
    return await client.wait_for("error", lambda m: m["code"] == code)


async def test_malformed_messages_get_errors_and_change_nothing(table: Table) -> None:
    client = await seated(table)
    assert client.state is not None
    view = client.state["view"]
    await client.ws.send("{not json")
    await expect_error(client, "bad_json")
    await client.send({"type": "teleport"})
    await expect_error(client, "unknown_type")
    await client.ws.send("[1, 2]")
    await expect_error(client, "bad_message")
    await client.send({"type": "act", "ref": "r1", "action": {"type": "discard"}})
    error = await expect_error(client, "bad_message")
    assert error["ref"] == "r1" and "version" in str(error["message"])
    await client.ws.send(b'{"type": "ping"}')
    await expect_error(client, "bad_message")
    await client.send({"type": "ping"})
    await client.wait_for("pong")
    await client.close()
    again = await seated(table)
    assert again.state is not None and again.state["view"] == view


async def test_an_oversized_frame_closes_the_connection(table: Table) -> None:
    client = await seated(table)
    await client.send({"type": "chat", "text": "x" * 1900})  # under the limit, too long a chat
    await expect_error(client, "text_too_long")
    await client.ws.send(json.dumps({"type": "chat", "text": "x" * 5000}))
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await client.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009


async def test_a_flood_is_refused_then_closed_by_policy(table: Table) -> None:
    client = await seated(table)
    for _ in range(40):
        await client.send({"type": "ping"})
    await expect_error(client, "rate_limited")
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await client.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    pongs = [m for m in client.received if m["type"] == "pong"]
    assert len(pongs) <= 6


async def test_the_handshake_checks_the_origin(table: Table) -> None:
    with pytest.raises(InvalidStatus) as refused:
        await connect_client(table.live, table.code, origin="https://evil.example")
    assert refused.value.response.status_code == 403
    listed = await connect_client(table.live, table.code, origin="https://cash-stash.example")
    await listed.wait_for("state")
    same = await connect_client(
        table.live, table.code, origin=f"http://127.0.0.1:{table.live.port}"
    )
    await same.wait_for("state")


async def test_unknown_rooms_and_tokens_are_refused(table: Table) -> None:
    nowhere = await connect_client(table.live, "ZZZZZZZZ")
    await expect_error(nowhere, "room_not_found")
    with pytest.raises(ConnectionClosed) as closed:
        await nowhere.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4404
    forged = await connect_client(table.live, table.code, "A" * 22)
    await expect_error(forged, "bad_token")


async def test_spectators_cannot_act_or_chat(table: Table) -> None:
    spectator = await connect_client(table.live, table.code)
    state = await spectator.wait_for("state")
    assert state["legal"] == [] and state["view"]["hand"] == []
    await spectator.act({"type": "end_turn"}, ref=1)
    await expect_error(spectator, "spectator")
    await spectator.send({"type": "chat", "text": "hi"})
    await expect_error(spectator, "spectator")


async def test_chat_reaches_the_room_and_is_length_limited(table: Table) -> None:
    ann = await seated(table)
    bob = await seated(table, table.guest_token)
    await ann.send({"type": "chat", "text": "  good luck  "})
    chat = await bob.wait_for("chat")
    assert (chat["seat"], chat["name"], chat["text"]) == (0, "Ann", "good luck")
    await ann.send({"type": "chat", "text": "   "})
    await expect_error(ann, "blank_text")


def _junk(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value, sometimes shaped almost like a real message."""
    kinds = ["int", "str", "float", "bool", "null"] + (["list", "dict"] if depth < 3 else [])
    kind = rng.choice(kinds)
    if kind == "int":
        return rng.choice([0, -1, 1, 2**63, rng.randint(-1000, 1000)])
    if kind == "str":
        return rng.choice(["", "act", "chat", "ping", "x" * rng.randint(1, 80), "\u0000", "é"])
    if kind == "float":
        return rng.random() * 1e6
    if kind == "bool":
        return rng.random() < 0.5
    if kind == "null":
        return None
    if kind == "list":
        return [_junk(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    message = {
        rng.choice(["type", "ref", "version", "action", "text", "seat", "card"]): _junk(
            rng, depth + 1
        )
        for _ in range(rng.randint(0, 5))
    }
    if depth == 0 and rng.random() < 0.7:
        message["type"] = rng.choice(["act", "chat", "ping", "pong", "state"])
    return message


async def test_random_junk_never_crashes_the_connection_or_changes_the_game() -> None:
    async with started_table(base_settings(ws_burst=1000)) as table:
        await _send_junk(table)


async def _send_junk(table: Table) -> None:
    client = await seated(table)
    assert client.state is not None
    view = client.state["view"]
    rng = random.Random(2024)
    for _ in range(120):
        message = _junk(rng)
        if isinstance(message, dict) and message.get("version") == client.state["version"]:
            message["version"] = -1
        await client.ws.send(json.dumps(message))
    await client.send({"type": "ping"})
    await client.wait_for("pong")
    assert client.state["view"] == view
    assert {m["type"] for m in client.received} <= {
        "room",
        "state",
        "error",
        "pong",
        "chat",
        "chat_history",
    }


async def test_guessing_room_codes_over_the_socket_is_rate_limited() -> None:
    async with started_table(base_settings(join_limit=3)) as table:  # Bob joined: 1
        codes = []
        for guess in ("ZZZZZZZ1", "ZZZZZZZ2", "ZZZZZZZ3"):
            client = await connect_client(table.live, guess)
            codes.append((await client.wait_for("error"))["code"])
        assert codes == ["room_not_found", "room_not_found", "too_many_attempts"]
