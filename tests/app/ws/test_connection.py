"""A connection that cannot keep up is dropped (close 1013) rather than buffered without end;
messages go out in order, straight to the transport (``send_now``) when nothing waits before
them, through the writer otherwise."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import engine
from app.metrics import Metrics
from app.rooms import lobby, play
from app.rooms.model import Room, RoomOptions, Seat
from app.rooms.service import RoomService
from app.store.memory import MemoryRoomStore
from app.transport.websocket import SEND_NOW
from app.ws.connection import CLOSE_NO_SPECTATORS, CLOSE_TRY_AGAIN, Connection
from app.ws.hub import Hub
from app.ws.snapshot import Snapshot
from tests.app.conftest import base_settings
from tests.app.tables import people, started_room


class StuckSocket:
    """A client that stopped reading: the first send never completes."""

    scope: dict[str, Any] = {}
    """Without the server's ``send_now``: every message goes through the writer."""

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
    """A two-seat room at version 1 that spectators may watch, as a connection's first snapshot
    would carry it."""
    return lobby.new_room(
        code="ABCDEFGH",
        options=RoomOptions(room_name=name, seats=2, spectators=True),
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
        hub=Hub.__new__(Hub),
        settings=base_settings(**settings),
        metrics=Metrics(),
    )


def _served(socket: object, room: Room, **settings: Any) -> tuple[Connection, asyncio.Task[None]]:
    """A spectator's connection on ``socket``, opened at ``room`` and being served."""
    connection = spectator(socket, room, **settings)
    connection.open(Snapshot(room))
    return connection, asyncio.create_task(connection.serve())


async def test_a_slow_connection_is_dropped_when_its_queue_overflows() -> None:
    room = a_room("Slow")
    socket = StuckSocket()
    connection, serving = _served(socket, room, ws_queue_size=3)
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
    connection, serving = _served(socket, room)
    connection.deliver(Snapshot(room.model_copy(update={"version": 2})))
    renamed = room.options.model_copy(update={"room_name": "Loud"})
    connection.deliver(Snapshot(room.model_copy(update={"version": 3, "options": renamed})))
    await asyncio.wait_for(socket.wait_for(2), 5)
    rooms = [json.loads(text)["room"] for text in socket.sent]
    assert [(r["version"], r["options"]["room_name"]) for r in rooms] == [(1, "Quiet"), (3, "Loud")]
    serving.cancel()


class TransportSocket(ReadingSocket):
    """A server that offers ``send_now``: its transport takes frames until ``full`` is set
    (over its high-water mark); the writer's ``send_text`` then waits until it is not."""

    def __init__(self) -> None:
        super().__init__()
        self.scope = {"extensions": {SEND_NOW: {"send": self.send_now}}}
        self.full = False
        self.drained = asyncio.Event()
        self.sent_now: list[int] = []
        """Which of ``sent`` went out through ``send_now``."""

    def send_now(self, text: str) -> bool:
        if self.full:
            return False
        self.sent_now.append(len(self.sent))
        self.sent.append(text)
        self.more.set()
        return True

    async def send_text(self, text: str) -> None:
        while self.full:
            self.drained.clear()
            await self.drained.wait()
        await super().send_text(text)

    def drain(self) -> None:
        self.full = False
        self.drained.set()


def _versions(socket: ReadingSocket) -> list[int]:
    return [json.loads(text)["room"]["version"] for text in socket.sent]


def _renamed(room: Room, version: int) -> Snapshot:
    """The room at ``version``, renamed so that each version sends a room summary."""
    options = room.options.model_copy(update={"room_name": f"Room {version}"})
    return Snapshot(room.model_copy(update={"version": version, "options": options}))


async def test_messages_go_straight_to_the_transport_when_nothing_waits_before_them() -> None:
    room = a_room("Now")
    socket = TransportSocket()
    connection, serving = _served(socket, room)
    await asyncio.wait_for(socket.wait_for(1), 5)
    for version in range(2, 6):
        connection.deliver(_renamed(room, version))
        assert len(socket.sent) == version, "sent while delivered, without waiting for a task"
    assert socket.sent_now == [1, 2, 3, 4], "the first went through the writer, the rest now"
    assert _versions(socket) == [1, 2, 3, 4, 5]
    serving.cancel()


async def _serving_transport(name: str) -> tuple[TransportSocket, Connection, asyncio.Task[None]]:
    room = a_room(name)
    socket = TransportSocket()
    connection, serving = _served(socket, room)
    await asyncio.wait_for(socket.wait_for(1), 5)
    return socket, connection, serving


async def test_nothing_overtakes_messages_queued_while_the_transport_was_full() -> None:
    socket, connection, serving = await _serving_transport("Queued")
    room = a_room("Queued")
    socket.full = True
    connection.deliver(_renamed(room, 2))
    connection.deliver(_renamed(room, 3))
    socket.drain()
    connection.deliver(_renamed(room, 4))  # the writer has not taken 2 and 3 yet
    await asyncio.wait_for(socket.wait_for(4), 5)
    assert _versions(socket) == [1, 2, 3, 4]
    assert socket.sent_now == [], "all three waited for the writer"
    serving.cancel()


async def test_nothing_overtakes_the_message_the_writer_is_sending() -> None:
    socket, connection, serving = await _serving_transport("Held")
    room = a_room("Held")
    socket.full = True
    connection.deliver(_renamed(room, 2))
    await asyncio.sleep(0)  # the writer takes it, and waits for the transport
    socket.drain()
    connection.deliver(_renamed(room, 3))  # before the writer has sent 2
    await asyncio.wait_for(socket.wait_for(3), 5)
    assert _versions(socket) == [1, 2, 3]
    # Once the writer has caught up, messages go straight out again.
    await asyncio.sleep(0)
    connection.deliver(_renamed(room, 4))
    assert _versions(socket) == [1, 2, 3, 4] and socket.sent_now == [3]
    assert not connection.dropped
    serving.cancel()


async def test_a_connection_whose_transport_stays_full_is_dropped() -> None:
    room = a_room("Stuck")
    socket = TransportSocket()
    connection, serving = _served(socket, room, ws_queue_size=3)
    await asyncio.wait_for(socket.wait_for(1), 5)
    socket.full = True
    for version in range(2, 10):
        connection.deliver(_renamed(room, version))
        await asyncio.sleep(0)
    await asyncio.wait_for(serving, 5)
    assert connection.dropped and socket.closed_with == CLOSE_TRY_AGAIN


def _played(room: Room, moves: int) -> list[Room]:
    """``room`` and the rooms after each of its next ``moves`` moves, a version apart."""
    rooms = [room]
    for _ in range(moves):
        action = engine.legal_actions(room.engine_state())[0]
        room = play.apply(room, seat=action["seat"], action=action, now=2.0, mover="player")
        room.version += 1
        rooms.append(room)
    return rooms


async def test_a_resync_sends_the_room_and_the_whole_log_even_when_a_commit_comes_first() -> None:
    first = started_room(people(2), seed=3)
    first.options.spectators = True
    first.version = 1
    rooms = _played(first, 3)
    socket = ReadingSocket()
    connection, serving = _served(socket, rooms[0])
    connection.deliver(Snapshot(rooms[1]))
    await asyncio.wait_for(socket.wait_for(3), 5)  # room, state, state
    states = [json.loads(text) for text in socket.sent if '"type":"state"' in text]
    assert [s["log_from"] for s in states] == [0, len(states[0]["view"]["log"])]

    async def load(code: str) -> Room:
        # A commit is fanned out while the room is read for the resync: it goes whole.
        connection.deliver(Snapshot(rooms[2]))
        return rooms[2]

    connection._service.load = load  # type: ignore[method-assign]
    connection._service.store = MemoryRoomStore()  # the resync budget per address
    await connection._handle('{"type": "resync"}')
    connection.deliver(Snapshot(rooms[3]))
    await asyncio.wait_for(socket.wait_for(6), 5)
    after = [json.loads(text) for text in socket.sent[3:]]
    assert [m["type"] for m in after] == ["room", "state", "state"]
    whole, delta = after[1], after[2]
    assert (whole["version"], whole["log_from"]) == (rooms[2].version, 0)
    assert whole["view"]["log"] == json.loads(rooms[2].game.log if rooms[2].game else "")
    assert (delta["version"], delta["log_from"]) == (rooms[3].version, len(whole["view"]["log"]))
    serving.cancel()


async def test_a_spectator_turned_away_is_told_why_in_order_then_closed() -> None:
    """The goodbye takes the way every message takes (``Connection.deliver``): after what was
    sent before it, and then the connection closes with its code."""
    socket, connection, serving = await _serving_transport("Watched")
    room = a_room("Watched")
    connection.deliver(_renamed(room, 2))
    closed = room.options.model_copy(update={"spectators": False})
    connection.deliver(Snapshot(room.model_copy(update={"version": 3, "options": closed})))
    await asyncio.wait_for(serving, 5)
    assert [json.loads(text)["room"]["version"] for text in socket.sent[:2]] == [1, 2]
    goodbye = json.loads(socket.sent[-1])
    assert (goodbye["type"], goodbye["code"]) == ("error", "no_spectators")
    assert len(socket.sent) == 3 and socket.closed_with == CLOSE_NO_SPECTATORS
