"""Hypothesis over WebSocket message shapes, valid-looking and hostile: every refused message
is answered, never with a crash or a close, and never changes the game."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.sync.client import ClientConnection, connect

from tests.app.conftest import base_settings
from tests.app.live import WAIT, bearer, create_room, hello, live_server

KNOWN_TYPES = {"room", "state", "error", "pong", "chat", "chat_history"}


@dataclass
class Table:
    port: int
    code: str
    token: str


@pytest.fixture(scope="module")
def table() -> Iterator[Table]:
    """A started two-person game served from a thread of its own, for every example."""
    started: list[Table] = []
    ready = threading.Event()
    loop = asyncio.new_event_loop()
    done = asyncio.Event()

    async def serve() -> None:
        limits = base_settings(ws_burst=100_000, chat_per_seat_per_minute=100_000)
        async with live_server(limits) as live, live.http() as http:
            code, host = await create_room(http, seats=2)
            await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
            await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
            started.append(Table(live.port, code, host))
            ready.set()
            await done.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    assert ready.wait(WAIT), "the server did not start"
    yield started[0]
    loop.call_soon_threadsafe(done.set)
    thread.join(WAIT)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
action_fields = st.sampled_from(
    ["type", "seat", "card", "cards", "target", "depth", "direction", "piles", "extra"]
)
action_types = st.sampled_from(
    ["discard", "form_set", "challenge", "answer", "concede", "end_turn", "swap", "move", "x"]
)
actions = st.dictionaries(action_fields, json_values | action_types, max_size=5)
texts = st.text(
    st.characters(codec="utf-8") | st.sampled_from(["\u0000", "\u0007", "\u202e", "\u2066", " "]),
    max_size=40,
)
shaped = st.fixed_dictionaries(
    {"type": st.sampled_from(["act", "chat", "ping", "hello", "state", "pong", "ACT"])},
    optional={
        "ref": json_values,
        "version": json_values,
        "action": actions | json_values,
        "text": texts | json_values,
        "token": json_values,
        "seat": json_values,
    },
)
frames = (
    shaped.map(json.dumps)
    | json_values.map(json.dumps)
    | st.text(max_size=60)
    | st.binary(max_size=40)
)


def receive_until_pong(ws: ClientConnection) -> list[dict[str, Any]]:
    ws.send(json.dumps({"type": "ping"}))
    received = []
    while True:
        message = json.loads(ws.recv(timeout=WAIT))
        if message["type"] == "pong":
            return received
        received.append(message)


def first_state(ws: ClientConnection) -> dict[str, Any]:
    while True:
        message = json.loads(ws.recv(timeout=WAIT))
        if message["type"] == "state":
            return message


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(sent=st.lists(frames, min_size=1, max_size=6))
def test_refused_messages_never_close_or_change_the_game(
    table: Table, sent: list[str | bytes]
) -> None:
    with connect(f"ws://127.0.0.1:{table.port}/ws/{table.code}", open_timeout=WAIT) as ws:
        ws.send(json.dumps(hello(table.token)))
        state = first_state(ws)
        for frame in sent:
            if isinstance(frame, str) and str(state["version"]) in frame:
                # An act at the current version may be a legal move: a change, not a refusal.
                frame = frame.replace(str(state["version"]), "-1")
            ws.send(frame)
        received = receive_until_pong(ws)
        assert {message["type"] for message in received} <= KNOWN_TYPES
        errors = [message for message in received if message["type"] == "error"]
        for error in errors:
            assert isinstance(error["code"], str) and error["message"].endswith(".")
        # A state may still come (another example's tab leaving is a new version of the
        # room), but never a new view of the game, and never a version twice.
        versions = [state["version"]]
        for message in received:
            if message["type"] == "state":
                assert message["view"] == state["view"], "a refused message changed the game"
                versions.append(message["version"])
        assert len(versions) == len(set(versions))
        assert len(errors) <= len(sent)
