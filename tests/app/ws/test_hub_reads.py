"""A commit is announced by code and version; the hub reads the room for its connections."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable

import pytest

import engine
from app.rooms.ai import AiRunner
from app.rooms.credentials import hash_token
from app.rooms.errors import RoomError
from app.rooms.model import Room, RoomOptions
from app.rooms.scheduler import Scheduler
from app.rooms.service import RoomService
from app.rooms.tables import Tables
from app.store.base import Commit, StoreEvent
from app.store.memory import MemoryRoomStore, _Entry
from app.ws.hub import Hub
from tests.app.conftest import base_settings
from tests.app.live import ListRecorder, Recorded


class AnnouncingStore(MemoryRoomStore):
    def announce(self, code: str, version: int) -> None:
        """What the channel brings for a commit (possibly one this process never made)."""
        self._events.put_nowait(StoreEvent("commit", code, version=version))


class HeldCommitStore(AnnouncingStore):
    """Holds the next commit until ``release`` opens; with ``announce_first`` the commit is
    written and announced at once and only its answer is held (as Redis's channel can
    deliver a commit before the answer to the process that made it)."""

    def __init__(self) -> None:
        super().__init__()
        self.hold_next = False
        self.announce_first = False
        self.held = asyncio.Event()
        self.release = asyncio.Event()

    async def commit(self, commit: Commit) -> bool:
        if not self.hold_next:
            return await super().commit(commit)
        self.hold_next = False
        written = await super().commit(commit) if self.announce_first else None
        self.held.set()
        await self.release.wait()
        return written if written is not None else await super().commit(commit)


class CountingService(RoomService):
    """Counts reads of rooms, fails the next ``failing`` of them, and can hold what a read
    found until ``gate`` opens (the room may move on meanwhile)."""

    def __init__(self, store: MemoryRoomStore) -> None:
        super().__init__(
            store=store, settings=base_settings(), recorder=ListRecorder(), ai=AiRunner(0)
        )
        self.reads = 0
        self.failing = 0
        self.gate: asyncio.Event | None = None

    async def load(self, code: str) -> Room | None:
        self.reads += 1
        if self.failing:
            self.failing -= 1
            raise OSError("connection reset")
        room = await super().load(code)
        if self.gate is not None:
            await self.gate.wait()
        return room


def _service(store: MemoryRoomStore) -> RoomService:
    return RoomService(
        store=store, settings=base_settings(), recorder=ListRecorder(), ai=AiRunner(0)
    )


async def _room(service: RoomService) -> tuple[str, str]:
    room, host = await Tables(service).create(
        name="Ann", player_id=None, options=RoomOptions(room_name="Reads", seats=3)
    )
    return room.code, host


async def _started(service: RoomService) -> tuple[str, list[str], Room]:
    """A room of three with its game started: code, seat tokens, the room."""
    code, host = await _room(service)
    _, _, guest = await Tables(service).join(code, name="Bob", player_id=None)
    _, _, third = await Tables(service).join(code, name="Cy", player_id=None)
    return code, [host, guest, third], await Tables(service).start(code, token=host)


async def _act(
    service: RoomService, code: str, tokens: list[str], room: Room, ref: int, hub: Hub | None = None
) -> Room:
    """The seat to act plays its first legal action on ``room``; the room after it, handed to
    ``hub`` as the acting connection does (``app/ws/connection.py``)."""
    state = room.engine_state()
    seat = engine.to_act(state)[0]
    action = next(a for a in engine.legal_actions(state) if a["seat"] == seat)
    del action["seat"]
    token = hash_token(tokens[seat])
    acted = await service.act(code, token_hash=token, ref=ref, version=room.version, action=action)
    assert not acted.repeated
    if hub is not None:
        hub.committed(acted.room)
    return acted.room


@contextlib.asynccontextmanager
async def _hub(service: RoomService, code: str) -> AsyncIterator[tuple[Hub, Recorded]]:
    """A running hub of ``service`` with one connection to the room: what it is sent."""
    hub = Hub(service, scheduler=Scheduler(service))
    listener = Recorded()
    await hub.add(code, listener)
    task = asyncio.create_task(hub.run())
    try:
        yield hub, listener
    finally:
        task.cancel()


async def _settle(until: Callable[[], bool], *, within: float = 2.0) -> None:
    for _ in range(int(within / 0.01)):
        if until():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not reached in time")


async def test_another_processs_commit_is_read_once_and_fanned_out() -> None:
    store = MemoryRoomStore()
    here, there = CountingService(store), _service(store)
    code, _ = await _room(there)
    async with _hub(here, code) as (_, listener):
        await _settle(lambda: listener.versions == [1])
        reads = here.reads
        await Tables(there).join(code, name="Bob", player_id=None)
        await _settle(lambda: listener.versions == [1, 2])
        assert here.reads == reads + 1


async def test_commits_announced_during_a_read_are_caught_up_with_one_more_read() -> None:
    store = MemoryRoomStore()
    here, there = CountingService(store), _service(store)
    code, _ = await _room(there)
    here.gate = asyncio.Event()
    async with _hub(here, code) as (_, listener):
        # The first announcement starts a read that is held; two more commits land and are
        # announced meanwhile.
        await _settle(lambda: here.reads == 1)
        for name in ("Bob", "Cy"):
            await Tables(there).join(code, name=name, player_id=None)
        await asyncio.sleep(0.05)
        assert here.reads == 1, "one read at a time per room"
        here.gate.set()
        await _settle(lambda: listener.versions[-1:] == [3])
        assert here.reads == 2
        assert listener.versions == sorted(set(listener.versions)), "never twice, never older"


async def test_a_failed_read_is_tried_again() -> None:
    store = MemoryRoomStore()
    here, there = CountingService(store), _service(store)
    code, _ = await _room(there)
    here.failing = 2
    async with _hub(here, code) as (_, listener):
        await _settle(lambda: listener.versions == [1])
        assert here.reads == 3


async def test_an_announcement_of_unknown_version_reads_the_room_once() -> None:
    store = AnnouncingStore()
    here = CountingService(store)
    code, _ = await _room(here)
    async with _hub(here, code) as (_, listener):
        await _settle(lambda: listener.versions == [1])
        reads = here.reads
        store.announce(code, 0)
        await _settle(lambda: here.reads == reads + 1)
        await asyncio.sleep(0.05)
        assert here.reads == reads + 1 and listener.versions == [1]


class QuietStore(AnnouncingStore):
    """Leaves commits unannounced while ``quiet``: the tests announce what they choose."""

    quiet = False

    async def commit(self, commit: Commit) -> bool:
        if not self.quiet:
            return await super().commit(commit)
        events, self._events = self._events, asyncio.Queue()
        try:
            return await super().commit(commit)
        finally:
            self._events = events


async def test_an_unknown_version_announced_during_a_read_has_the_room_read_again() -> None:
    """A read already on its way may have left before the commit of unknown version was made
    (a commit here that lost its race, a subscription made again): it cannot stand for it."""
    store = QuietStore()
    here, there = CountingService(store), _service(store)
    code, _ = await _room(there)
    async with _hub(here, code) as (_, listener):
        await _settle(lambda: listener.versions == [1])
        reads = here.reads
        here.gate = asyncio.Event()
        store.announce(code, 0)
        await _settle(lambda: here.reads == reads + 1)  # has read version 1, held
        store.quiet = True
        await Tables(there).join(code, name="Bob", player_id=None)
        store.announce(code, 0)
        here.gate.set()
        await _settle(lambda: listener.versions == [1, 2])


async def test_this_processs_own_commits_are_not_read_back() -> None:
    service = CountingService(MemoryRoomStore())
    code, tokens, room = await _started(service)
    async with _hub(service, code) as (hub, listener):
        await _settle(lambda: listener.versions == [room.version])
        reads = service.reads
        for ref in range(3):
            room = await _act(service, code, tokens, room, ref, hub)
        await asyncio.sleep(0.1)
        assert service.reads == reads, "the echoes of its own commits cost no read"
        assert listener.versions == list(range(room.version - 3, room.version + 1))


async def test_an_own_commit_announced_before_its_answer_is_not_read() -> None:
    store = HeldCommitStore()
    service = CountingService(store)
    code, tokens, room = await _started(service)
    async with _hub(service, code) as (hub, listener):
        await _settle(lambda: listener.versions == [room.version])
        reads = service.reads
        store.hold_next, store.announce_first = True, True
        acting = asyncio.create_task(_act(service, code, tokens, room, 1, hub))
        await store.held.wait()
        await asyncio.sleep(0.05)  # the announcement is handled while the answer is held
        assert listener.versions == [room.version]
        store.release.set()
        acted = await acting
        await asyncio.sleep(0.05)
        assert listener.versions == [room.version, acted.version]
        assert service.reads == reads


async def test_a_commit_that_loses_the_race_has_the_winners_room_read() -> None:
    store = HeldCommitStore()
    here, there = CountingService(store), _service(store)
    code, tokens, room = await _started(there)
    async with _hub(here, code) as (_, listener):
        await _settle(lambda: listener.versions == [room.version])
        # This process's commit of the next version waits; the other process commits that
        # version first, and its announcement arrives while this one is still pending.
        store.hold_next = True
        losing = asyncio.create_task(_act(here, code, tokens, room, 1))
        await store.held.wait()
        won = await _act(there, code, tokens, room, 2)
        await asyncio.sleep(0.05)
        assert listener.versions == [room.version], "skipped as this process's own, for now"
        store.release.set()
        with contextlib.suppress(RoomError):
            await losing
        await _settle(lambda: won.version in listener.versions)


async def test_an_undecodable_room_is_not_sent_and_its_text_is_not_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = AnnouncingStore()
    here = CountingService(store)
    code, _ = await _room(here)
    async with _hub(here, code) as (_, listener):
        await _settle(lambda: listener.versions == [1])
        # What a validation error would quote: the room's text, hands and seed and all.
        store._rooms[code] = _Entry(2, '{"code": "SECRET-HAND", "version": 2}', None, 2)
        store.announce(code, 2)
        await _settle(lambda: "undecodable room not sent" in caplog.text)
        assert listener.versions == [1]
        assert "SECRET-HAND" not in caplog.text


class DeafStore(MemoryRoomStore):
    """Keeps chat lines without announcing them while ``deaf`` (said while this process's
    subscription to the room was being made again), and can announce a ``resync``."""

    deaf = False

    async def publish(self, code: str, message: str) -> None:
        if not self.deaf:
            await super().publish(code, message)

    def resync(self, code: str) -> None:
        self._events.put_nowait(StoreEvent("resync", code))


class Chatting(Recorded):
    """A listener that keeps the chat lines it is sent, as well as the versions."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def deliver(self, item: object) -> None:
        if isinstance(item, str):
            self.lines.append(item)
        else:
            super().deliver(item)  # type: ignore[arg-type]


def _line(text: str, at: float) -> str:
    return f'{{"type": "chat", "seat": 0, "name": "Ann", "text": "{text}", "at": {at}}}'


@pytest.mark.parametrize("heard_before", [True, False], ids=["after a line heard", "first line"])
async def test_chat_said_while_a_subscription_was_made_again_follows_the_resync(
    heard_before: bool,
) -> None:
    """Lines kept in the store but never heard here (the subscription was being made again)
    reach the room's connections once the resync comes, each once, in order."""
    store = DeafStore()
    service = _service(store)
    code, _ = await _room(service)
    hub = Hub(service, scheduler=Scheduler(service))
    listener = Chatting()
    await hub.add(code, listener)
    task = asyncio.create_task(hub.run())
    try:
        await _settle(lambda: listener.versions == [1])
        now = time.time()
        if heard_before:
            await store.chat(code, _line("heard", now), keep=50)
            await _settle(lambda: listener.lines == [_line("heard", now)])
        store.deaf = True
        missed = [_line("missed one", now + 1), _line("missed two", now + 2)]
        for line in missed:
            await store.chat(code, line, keep=50)
        store.deaf = False
        store.resync(code)
        expected = ([_line("heard", now)] if heard_before else []) + missed
        await _settle(lambda: listener.lines == expected)
        # A second resync, and a line heard live that the catch-up already sent: each once.
        store.resync(code)
        await store.publish(code, missed[-1])
        later = _line("later", now + 3)
        await store.chat(code, later, keep=50)
        await _settle(lambda: listener.lines == [*expected, later])
    finally:
        task.cancel()


class _Device(Recorded):
    """A connection of one device to a seat: its token's hash, and the seat it holds."""

    def __init__(self, token_hash: str, seat: int) -> None:
        super().__init__()
        self.token_hash = token_hash
        self.seat = seat


async def test_a_seat_open_on_another_device_stays_connected_when_one_device_leaves() -> None:
    """Ann's seat is open on her computer and her phone (``Seat.devices``). Closing the
    computer's tab marks nobody gone: the phone still holds the seat here. Once the phone
    leaves too, the seat is gone."""
    service = RoomService(
        store=MemoryRoomStore(),
        settings=base_settings(presence_seconds=0.05),
        recorder=ListRecorder(),
        ai=AiRunner(0),
    )
    tables = Tables(service)
    made, host = await tables.create(
        name="Ann", player_id="ann", options=RoomOptions(room_name="Devices", seats=2)
    )
    code = made.code
    await tables.join(code, name="Bob", player_id="bob")
    await tables.start(code, token=host)
    _, seat, phone_token = await tables.open_on_device(code, owns=lambda guest: guest == "ann")
    assert seat == 0
    computer, phone = hash_token(host), hash_token(phone_token)
    hub = Hub(service, scheduler=Scheduler(service))
    at_computer, at_phone = _Device(computer, 0), _Device(phone, 0)
    for device in (at_computer, at_phone):
        await hub.add(code, device)
    for token_hash in (computer, phone):
        await hub.arrive(code, token_hash)
    before = await service.load(code)
    assert before is not None and before.seats[0] is not None
    assert before.seats[0].disconnected_at is None

    hub.remove(code, at_computer)
    hub.depart(code, computer, seat=0)
    await asyncio.sleep(0.3)
    kept = await service.load(code)
    assert kept is not None and kept.seats[0] is not None
    assert kept.seats[0].disconnected_at is None, "the phone still holds the seat"
    assert kept.version == before.version, "no departure committed, no flap"

    hub.remove(code, at_phone)
    hub.depart(code, phone, seat=0)
    await _settle(lambda: hub.room_count == 0)
    for _ in range(250):  # up to 5 s on a loaded machine; about 0.05 s when quiet
        gone = await service.load(code)
        assert gone is not None and gone.seats[0] is not None
        if gone.seats[0].disconnected_at is not None:
            break
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("the seat was never marked gone once both devices left")
