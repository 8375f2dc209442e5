"""The store failing under a connection: the client hears why, and nothing is crashed or lost."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
from uvicorn.protocols.utils import ClientDisconnected
from websockets.exceptions import ConnectionClosed

from app.api.routes.game import play
from app.store.base import Commit
from app.store.memory import MemoryRoomStore
from app.ws import hub as hub_module
from app.ws.limits import ConnectionCaps
from tests.app.conftest import base_settings
from tests.app.live import Client, Live, bearer, connect_client, create_room, live_server

CLOSE_TRY_AGAIN = 1013


class FailingStore(MemoryRoomStore):
    """The memory store, whose commits time out while ``failing`` is set (as a Redis gone
    quiet does: redis-py's calls end in the store's own ``asyncio.timeout``)."""

    def __init__(self) -> None:
        super().__init__()
        self.failing = False

    async def commit(self, commit: Commit) -> bool:
        if self.failing:
            raise TimeoutError
        return await super().commit(commit)


@dataclass
class Table:
    live: Live
    store: FailingStore
    code: str
    tokens: list[str]
    """By seat."""


@pytest.fixture
async def table() -> AsyncIterator[Table]:
    """A started two-person game (no clock, no AI) on a store that can be made to fail."""
    store = FailingStore()
    async with live_server(base_settings(), store=store) as live, live.http() as http:
        code, host_token = await create_room(http, seats=2)
        guest = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()
        await http.post(f"/api/rooms/{code}/start", headers=bearer(host_token))
        yield Table(live, store, code, [host_token, guest["token"]])


def errors_logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]


async def seated(table: Table, seat: int = 0) -> Client:
    client = await connect_client(table.live, table.code, table.tokens[seat])
    await client.wait_for("state")
    return client


async def test_an_act_the_store_cannot_take_is_answered_and_can_be_sent_again(
    table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    watcher = await seated(table)
    assert watcher.state is not None
    seat = watcher.state["view"]["to_act"][0]
    client = watcher if seat == 0 else await seated(table, seat)
    assert client.state is not None
    version = client.state["version"]
    action = {k: v for k, v in client.state["legal"][0].items() if k != "seat"}

    table.store.failing = True
    await client.act(action, ref="r1")
    error = await client.wait_for("error")
    assert (error["code"], error["ref"]) == ("unavailable", "r1")

    # The connection is still served, and the game did not move.
    await client.send({"type": "ping"})
    await client.wait_for("pong")
    assert client.state["version"] == version

    table.store.failing = False
    await client.act(action, ref="r1")
    moved = await client.wait_for("state", lambda m: m["version"] > version)
    assert moved["version"] == version + 1 and moved["ref"] == "r1"
    assert errors_logged(caplog) == []
    await watcher.close()
    if client is not watcher:
        await client.close()


async def eventually(check: Callable[[], Awaitable[bool]]) -> None:
    for _ in range(300):
        if await check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not within 3 s")


async def until_logged(caplog: pytest.LogCaptureFixture, text: str) -> None:
    async def seen() -> bool:
        return any(text in record.getMessage() for record in caplog.records)

    await eventually(seen)


async def leave_while_the_store_fails(table: Table, caplog: pytest.LogCaptureFixture) -> None:
    """Seat 0 connects, then leaves while every commit fails."""
    client = await seated(table)
    table.store.failing = True
    caplog.set_level(logging.WARNING)
    await client.close()


async def test_a_departure_the_store_cannot_record_is_recorded_once_it_can(
    table: Table, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hub_module, "_DEPARTURE_RETRY_SECONDS", (0.05, 0.05, 0.05))
    service = table.live.runtime.service

    async def away() -> bool:
        room = await service.load(table.code)
        assert room is not None and room.seats[0] is not None
        return room.seats[0].disconnected_at is not None

    await leave_while_the_store_fails(table, caplog)
    await until_logged(caplog, "departure not recorded")
    assert not await away()
    table.store.failing = False
    await eventually(away)
    assert errors_logged(caplog) == []
    assert not any("given up" in r.getMessage() for r in caplog.records)


async def test_a_departure_is_given_up_on_when_the_store_stays_down(
    table: Table, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hub_module, "_DEPARTURE_RETRY_SECONDS", (0.01, 0.01))
    await leave_while_the_store_fails(table, caplog)
    await until_logged(caplog, "departure given up on")
    attempts = [r for r in caplog.records if "departure not recorded" in r.getMessage()]
    assert len(attempts) == 3  # the first, and one after each pause
    assert errors_logged(caplog) == []


async def test_a_connection_the_store_cannot_open_is_told_to_come_back(
    table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    table.store.failing = True
    client = await connect_client(table.live, table.code, table.tokens[0])
    error = await client.wait_for("error")
    assert error["code"] == "unavailable"
    with pytest.raises(ConnectionClosed) as closed:
        await client.recv()
    assert closed.value.rcvd is not None and closed.value.rcvd.code == CLOSE_TRY_AGAIN
    assert errors_logged(caplog) == []

    table.store.failing = False
    again = await seated(table)
    assert again.state is not None and again.state["view"]["seat"] == 0
    await again.close()


def _no_runtime() -> SimpleNamespace:
    """What ``play`` reads of the app before it accepts: no service is reached."""
    settings = SimpleNamespace(allowed_origins=[])
    hub = SimpleNamespace(caps=ConnectionCaps(per_address=1, per_room=1))
    runtime = SimpleNamespace(service=None, hub=hub, settings=settings)
    return SimpleNamespace(state=SimpleNamespace(runtime=runtime))


@dataclass
class LeavingSocket:
    """A client that is gone by the time its connection is accepted."""

    sent: list[Any] = field(default_factory=list)
    scope: dict[str, Any] = field(default_factory=lambda: {"type": "websocket", "headers": []})
    app: SimpleNamespace = field(default_factory=_no_runtime)
    client: None = None

    async def accept(self) -> None:
        raise ClientDisconnected

    async def send_json(self, data: Any) -> None:
        self.sent.append(data)

    async def close(self, code: int) -> None:
        self.sent.append(code)


async def test_a_client_leaving_as_it_connects_is_not_taken_for_a_store_failure(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """uvicorn's ``ClientDisconnected`` is an ``OSError`` as a store's timeout is: it goes
    back to uvicorn, which ends the connection quietly, with nothing sent and nothing logged."""
    socket = LeavingSocket()
    caplog.set_level(logging.WARNING)
    with pytest.raises(ClientDisconnected):
        await play(socket, "ABCD")  # type: ignore[arg-type]
    assert socket.sent == []
    assert [r.getMessage() for r in caplog.records] == []
