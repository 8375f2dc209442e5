"""A connection that cannot keep up is dropped (close 1013) rather than buffered without end."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from app.metrics import Metrics
from app.rooms import lobby
from app.rooms.model import Room, RoomOptions, Seat
from app.rooms.service import RoomService
from app.ws.connection import CLOSE_TRY_AGAIN, Connection
from app.ws.snapshot import Snapshot
from tests.app.conftest import base_settings


class StuckSocket:
    """A client that stopped reading: the first send never completes."""

    def __init__(self) -> None:
        self.sending = asyncio.Event()
        self.closed_with: int | None = None
        self._never = asyncio.Event()

    async def send_text(self, text: str) -> None:
        self.sending.set()
        await self._never.wait()

    async def receive(self) -> dict[str, Any]:
        await self._never.wait()
        raise AssertionError("unreachable")

    async def close(self, code: int) -> None:
        self.closed_with = code


def a_room(name: str) -> Room:
    """A two-seat room at version 1, as a connection's first snapshot would carry it."""
    return lobby.new_room(
        code="ABCDEFGH",
        options=RoomOptions(room_name=name, seats=2),
        host=Seat(name="Ann", token_hash="0" * 64),
        now=0.0,
    ).model_copy(update={"version": 1})


def spectator(socket: object, room: Room, **settings: Any) -> Connection:
    """A connection without a seat on ``socket``, served without a real room service."""
    return Connection(
        socket,  # type: ignore[arg-type]
        code=room.code,
        token_hash=None,
        service=RoomService.__new__(RoomService),
        settings=base_settings(**settings),
        metrics=Metrics(),
    )


async def test_a_slow_connection_is_dropped_when_its_queue_overflows() -> None:
    room = a_room("Slow")
    socket = StuckSocket()
    connection = spectator(socket, room, ws_queue_size=3)
    connection.open(Snapshot(room))
    serving = asyncio.create_task(connection.serve())
    await asyncio.wait_for(socket.sending.wait(), 5)
    for version in range(2, 10):
        connection.deliver(Snapshot(room.model_copy(update={"version": version})))
    await asyncio.wait_for(serving, 5)
    assert connection.dropped
    assert socket.closed_with == CLOSE_TRY_AGAIN


class ReadingSocket(StuckSocket):
    """A client that keeps up: every send completes."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[str] = []
        self.more = asyncio.Event()

    async def send_text(self, text: str) -> None:
        self.sent.append(text)
        self.more.set()

    async def wait_for(self, count: int) -> None:
        while len(self.sent) < count:
            self.more.clear()
            await self.more.wait()


async def test_dropping_a_slow_connection_leaves_the_others_in_the_room_unaffected() -> None:
    room = a_room("Slow")
    sockets = [StuckSocket(), ReadingSocket()]
    connections = [spectator(socket, room, ws_queue_size=3) for socket in sockets]
    for connection in connections:
        connection.open(Snapshot(room))
    serving = [asyncio.create_task(c.serve()) for c in connections]
    await asyncio.wait_for(sockets[0].sending.wait(), 5)
    for version in range(2, 10):
        renamed = room.options.model_copy(update={"room_name": f"Slow {version}"})
        for connection in connections:
            connection.deliver(
                Snapshot(room.model_copy(update={"version": version, "options": renamed}))
            )
        await asyncio.sleep(0)
    await asyncio.wait_for(serving[0], 5)
    stuck, reading = connections
    assert stuck.dropped and sockets[0].closed_with == CLOSE_TRY_AGAIN
    assert not reading.dropped and not serving[1].done()
    versions = [json.loads(text)["room"]["version"] for text in sockets[1].sent]
    assert versions == list(range(1, 10)), "the reader saw every version, in order"
    serving[1].cancel()


async def test_a_change_of_version_alone_sends_no_new_room_summary() -> None:
    room = a_room("Quiet")
    socket = ReadingSocket()
    connection = spectator(socket, room)
    connection.open(Snapshot(room))
    serving = asyncio.create_task(connection.serve())
    connection.deliver(Snapshot(room.model_copy(update={"version": 2})))
    renamed = room.options.model_copy(update={"room_name": "Loud"})
    connection.deliver(Snapshot(room.model_copy(update={"version": 3, "options": renamed})))
    await asyncio.wait_for(socket.wait_for(2), 5)
    rooms = [json.loads(text)["room"] for text in socket.sent]
    assert [(r["version"], r["options"]["room_name"]) for r in rooms] == [(1, "Quiet"), (3, "Loud")]
    serving.cancel()
