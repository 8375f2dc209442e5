"""Issue 44, holes 1 and 2: what one address can make the server send whole, counted.

A whole state (the view and the game's whole log) is sent on every connect and every resync;
each address has a budget of them in each process (``CASH_STASH_WS_WHOLE_STATES_BURST`` at
once, ``…_PER_SECOND`` after), over all its connections. A repeated act's ``ref`` is answered
with a few bytes (``applied``), never the state."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from websockets.asyncio.client import connect

from app.ws.limits import WholeStates
from tests.app.conftest import MakeSettings
from tests.app.live import (
    WAIT,
    Client,
    Live,
    bearer,
    connect_client,
    create_room,
    hello,
    live_server,
    play_out,
    ws_url,
)

RECONNECTS = 12
BURST = 3


@dataclass
class Table:
    live: Live
    code: str
    tokens: list[str]


@contextlib.asynccontextmanager
async def table_with(make_settings: MakeSettings, **settings: Any) -> AsyncIterator[Table]:
    """A started two-person game open to spectators, on a server with ``settings``."""
    async with live_server(make_settings(**settings)) as live, live.http() as http:
        code, host = await create_room(http, seats=2, spectators=True)
        guest = await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
        started = await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        assert started.status_code == 200, started.text
        yield Table(live, code, [host, guest.json()["token"]])


@pytest.fixture
async def table(make_settings: MakeSettings) -> AsyncIterator[Table]:
    async with table_with(make_settings) as table:
        yield table


async def _first(client: Client) -> dict[str, Any]:
    """The connection's first ``state``, or the ``error`` that comes instead of it."""
    while True:
        message = await client.recv()
        if message["type"] in ("state", "error"):
            return message


async def from_address(live: Live, code: str, address: str) -> Client:
    """A spectator's connection that the server takes as ``address``'s (loopback is the
    trusted proxy, whose ``X-Forwarded-For`` names the client)."""
    ws = await connect(
        ws_url(live, code),
        max_size=None,
        open_timeout=WAIT,
        additional_headers={"X-Forwarded-For": address},
    )
    client = Client(ws)
    await client.send(hello())
    return client


async def test_an_address_reconnecting_in_a_loop_gets_its_burst_of_whole_states(
    make_settings: MakeSettings,
) -> None:
    """Hole 1: a spectator reconnecting ``RECONNECTS`` times is sent ``BURST`` whole states;
    every later connection is told its state waits (``state_delayed``, with ``retry_after``)
    and is sent nothing whole meanwhile: a loop of reconnects cannot make the server send
    the whole state and log again and again."""
    async with table_with(
        make_settings, ws_whole_states_burst=BURST, ws_whole_states_per_second=0.001
    ) as table:
        answers: list[dict[str, Any]] = []
        for _ in range(RECONNECTS):
            client = await connect_client(table.live, table.code)
            answers.append(await _first(client))
            await client.close()
        states = [answer for answer in answers if answer["type"] == "state"]
        delayed = [answer for answer in answers if answer["type"] == "error"]
        assert len(states) == BURST, [answer["type"] for answer in answers]
        assert [(m["code"], m["ref"]) for m in delayed] == [("state_delayed", None)] * (
            RECONNECTS - BURST
        )
        assert all(m["retry_after"] >= 1 for m in delayed)
        # Another address has a budget of its own: its first state comes at once.
        elsewhere = await from_address(table.live, table.code, "203.0.113.44")
        assert (await _first(elsewhere))["type"] == "state"
        await elsewhere.close()


async def test_resyncs_and_connections_share_the_address_budget(
    make_settings: MakeSettings,
) -> None:
    """Hole 1: a resync is a whole state like a connection's first: the second resync of an
    address whose budget is spent is refused ``resync_too_often`` with ``retry_after``, and
    so is nothing else; the connection goes on being served."""
    async with table_with(
        make_settings, ws_whole_states_burst=2, ws_whole_states_per_second=0.001
    ) as table:
        watcher = await connect_client(table.live, table.code)
        assert (await _first(watcher))["type"] == "state"
        await watcher.send({"type": "resync", "ref": "first"})
        assert (await watcher.wait_for("state"))["log_from"] == 0
        await watcher.send({"type": "resync", "ref": "second"})
        refused = await watcher.wait_for("error")
        assert (refused["code"], refused["ref"]) == ("resync_too_often", "second")
        assert refused["retry_after"] >= 1
        await watcher.send({"type": "ping"})
        await watcher.wait_for("pong")
        assert [m["type"] for m in watcher.received].count("state") == 2
        late = await connect_client(table.live, table.code)
        assert (await _first(late))["code"] == "state_delayed"
        await asyncio.gather(watcher.close(), late.close())


async def test_a_connection_past_the_budget_gets_its_state_in_its_turn(
    make_settings: MakeSettings,
) -> None:
    """Hole 1, the honest side: a connection that must wait is told so, then sent the room,
    its whole state and the chat history when its turn comes (two seconds here), and is
    served as any other."""
    async with table_with(
        make_settings, ws_whole_states_burst=1, ws_whole_states_per_second=0.5
    ) as table:
        first = await connect_client(table.live, table.code, table.tokens[0])
        assert (await _first(first))["type"] == "state"
        second = await connect_client(table.live, table.code, table.tokens[1])
        told = await _first(second)
        assert (told["code"], told["retry_after"]) == ("state_delayed", 2)
        state = await second.wait_for("state")
        assert state["log_from"] == 0 and state["view"]["seat"] == 1
        await second.wait_for("chat_history")
        await second.send({"type": "ping"})
        await second.wait_for("pong")
        await asyncio.gather(first.close(), second.close())


async def test_a_reload_and_every_tab_after_a_blip_get_their_state_at_once(table: Table) -> None:
    """Hole 1, the honest side, at the defaults: a seat reloading its page five times and
    four tabs reconnecting together are each sent their state, never told to wait."""
    for _ in range(5):
        page = await connect_client(table.live, table.code, table.tokens[0])
        assert (await _first(page))["type"] == "state"
        await page.close()
    tabs = [await connect_client(table.live, table.code, table.tokens[1]) for _ in range(4)]
    answers = await asyncio.gather(*(_first(tab) for tab in tabs))
    assert [answer["type"] for answer in answers] == ["state"] * 4
    await asyncio.gather(*(tab.close() for tab in tabs))


def test_the_budget_is_a_burst_then_a_rate_per_address_and_forgets_full_buckets() -> None:
    now = [0.0]
    budget = WholeStates(rate=2.0, burst=3, clock=lambda: now[0])
    assert [budget.take("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert budget.wait("a") == 0.5
    # Past the burst, each is due half a second after the one before.
    assert [budget.take("a") for _ in range(3)] == [0.5, 1.0, 1.5]
    assert budget.take("b") == 0.0  # another address is not affected
    now[0] = 1.0
    assert budget.wait("a") == 1.0
    for index in range(1000):
        budget.take(f"10.0.{index // 256}.{index % 256}")
    assert len(budget) == 1002
    # Once a bucket has had time to fill, its address is forgotten.
    now[0] = 10.0
    assert budget.take("c") == 0.0
    assert len(budget) == 1
    assert budget.wait("a") == 0.0


@dataclass
class Mover:
    client: Client
    version: int
    """The version the act was chosen in."""
    act: dict[str, Any]
    seat: int = 0


async def applied_act(table: Table, ref: str) -> tuple[Mover, dict[str, Any]]:
    """The seat that must move, connected, and the state its act with ``ref`` made."""
    clients = [await connect_client(table.live, table.code, token) for token in table.tokens]
    states = [await client.wait_for("state") for client in clients]
    seat = states[0]["view"]["to_act"][0]
    client, state = clients[seat], states[seat]
    await clients[1 - seat].close()
    act = {"type": "act", "ref": ref, "version": state["version"], "action": state["legal"][0]}
    await client.send(act)
    made = await client.wait_for("state", lambda m: m["ref"] == ref)
    return Mover(client, state["version"], act, seat), made


async def test_a_repeated_ref_is_answered_in_a_few_bytes_never_with_the_state(
    table: Table,
) -> None:
    """Hole 2: an act's ``ref`` sent again twenty times is answered twenty times with
    ``{"type": "applied", "ref", "version"}`` (the version the act made), under 64 bytes
    each, and nothing else; the game does not move: a repeated ref costs no more to answer
    than it cost to send."""
    mover, made = await applied_act(table, "once")
    before = len(mover.client.received)
    for _ in range(20):
        await mover.client.send(mover.act)
    answers = [await mover.client.recv() for _ in range(20)]
    assert answers == [{"type": "applied", "ref": "once", "version": made["version"]}] * 20
    assert sum(mover.client.sizes[before:]) <= 20 * 64
    await mover.client.send({"type": "ping"})
    await mover.client.wait_for("pong")
    assert mover.client.received[before:] == [*answers, {"type": "pong"}]
    room = await table.live.runtime.service.load(table.code)
    assert room is not None and room.game_version == made["version"]
    await mover.client.close()


async def test_a_repeated_ref_counts_in_the_message_limits(make_settings: MakeSettings) -> None:
    """Hole 2: repeats are messages like any other: past the connection's burst they are
    dropped, ``rate_limited`` with their ref."""
    async with table_with(make_settings, ws_burst=4, ws_messages_per_second=0.001) as table:
        mover, _ = await applied_act(table, "again")  # the act itself spent one of the four
        for _ in range(6):
            await mover.client.send(mover.act)
        answers = [await mover.client.recv() for _ in range(6)]
        assert [m["type"] for m in answers] == ["applied"] * 3 + ["error"] * 3
        assert {(m["code"], m["ref"]) for m in answers[3:]} == {("rate_limited", "again")}
        await mover.client.close()


async def test_an_act_resent_after_a_lost_connection_is_acknowledged(table: Table) -> None:
    """Hole 2, the honest side: a client whose connection dropped right after it sent an act
    reconnects (and is sent the state at once), sends the act again with its ref, and is told
    it was applied and at which version: never applied twice."""
    clients = [await connect_client(table.live, table.code, token) for token in table.tokens]
    states = [await client.wait_for("state") for client in clients]
    seat = states[0]["view"]["to_act"][0]
    state = states[seat]
    act = {"type": "act", "ref": "lost", "version": state["version"], "action": state["legal"][0]}
    await clients[seat].send(act)
    await clients[seat].close()  # gone before any answer was read
    back = await connect_client(table.live, table.code, table.tokens[seat])
    assert (await _first(back))["type"] == "state"
    await back.send(act)
    applied = await back.wait_for("applied")
    assert (applied["ref"], set(applied)) == ("lost", {"type", "ref", "version"})
    assert applied["version"] > state["version"]
    assert back.state is not None and back.state["version"] >= applied["version"]
    room = await table.live.runtime.service.load(table.code)
    assert room is not None and room.game_version == applied["version"]
    await asyncio.gather(back.close(), clients[1 - seat].close())


async def test_a_repeated_ref_after_the_game_ended_is_answered_in_a_few_bytes(
    table: Table,
) -> None:
    """Hole 2: the ref is checked before the game's end, so a repeat after it is answered
    too: with ``applied``, not the whole final state."""
    clients = [await connect_client(table.live, table.code, token) for token in table.tokens]
    for client in clients:
        await client.wait_for("state")
    await asyncio.gather(
        *(play_out(client, seat, random.Random(seat)) for seat, client in enumerate(clients))
    )
    client = clients[0]
    last = [m for m in client.received if m["type"] == "state" and m["ref"] is not None][-1]
    again = {"type": "act", "ref": last["ref"], "version": 0, "action": {"type": "discard"}}
    before = len(client.received)
    await client.send(again)
    applied = await client.wait_for("applied")
    assert applied == {"type": "applied", "ref": last["ref"], "version": last["version"]}
    # The room's own changes meanwhile (the game recorded) come as ever, as deltas.
    answered = client.received.index(applied, before)
    assert client.sizes[answered] <= 64
    later = [m for m in client.received[before:] if m["type"] == "state"]
    assert all(m["log_from"] > 0 for m in later)
    await asyncio.gather(*(client.close() for client in clients))


async def _answer(client: Client) -> dict[str, Any]:
    """The next answer to a message (``applied`` or ``error``), past what is pushed."""
    while True:
        message = await client.recv()
        if message["type"] in ("applied", "error"):
            return message


async def seat_from(table: Table, token: str, address: str) -> Client:
    """A tab of the seat with ``token`` that the server takes as ``address``'s."""
    ws = await connect(
        ws_url(table.live, table.code),
        max_size=None,
        open_timeout=WAIT,
        additional_headers={"X-Forwarded-For": address},
    )
    client = Client(ws)
    await client.send(hello(token))
    await client.wait_for("state")
    return client


async def test_an_address_s_connections_share_one_message_budget(
    make_settings: MakeSettings,
) -> None:
    """Hole 2: many tabs of one address each within its own connection's limits are held to
    one budget for the address (``ws_messages_per_address_burst`` at once, then
    ``…_per_second``): four tabs sending five repeats each are answered ``applied`` six times
    in all and ``rate_limited`` for the rest, while a tab of another address is answered in
    full. Before, each tab had its own budget: twenty ``applied``."""
    async with table_with(
        make_settings,
        ws_messages_per_address_burst=6,
        ws_messages_per_address_per_second=0.001,
    ) as table:
        mover, _ = await applied_act(table, "shared")
        await mover.client.close()
        token = table.tokens[mover.seat]
        tabs = [await seat_from(table, token, "198.51.100.7") for _ in range(4)]
        for tab in tabs:
            for _ in range(5):
                await tab.send(mover.act)
        answers = [await _answer(tab) for tab in tabs for _ in range(5)]
        applied = [m for m in answers if m["type"] == "applied"]
        refused = [m for m in answers if m["type"] == "error"]
        assert len(applied) == 6, [m["type"] for m in answers]
        assert {(m["code"], m["ref"]) for m in refused} == {("rate_limited", "shared")}
        elsewhere = await seat_from(table, token, "203.0.113.9")
        for _ in range(5):
            await elsewhere.send(mover.act)
        assert [(await _answer(elsewhere))["type"] for _ in range(5)] == ["applied"] * 5
        for tab in [*tabs, elsewhere]:
            await tab.close()
