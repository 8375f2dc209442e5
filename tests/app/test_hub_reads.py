"""A commit is announced by code and version; the hub reads the room for its connections."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import engine
from app.rooms.ai import AiRunner
from app.rooms.credentials import hash_token
from app.rooms.errors import RoomError
from app.rooms.model import Room, RoomOptions
from app.rooms.service import RoomService
from app.store.base import Commit, StoreEvent
from app.store.memory import MemoryRoomStore
from app.ws.hub import Hub
from app.ws.snapshot import Snapshot
from tests.app.conftest import base_settings
from tests.app.live import ListRecorder


class AnnouncingStore(MemoryRoomStore):
    def announce(self, code: str, version: int) -> None:
        """What the channel brings for a commit (possibly one this process never made)."""
        self._events.put_nowait(StoreEvent("commit", code, version=version))


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


class Recorded:
    seat: int | None = 0
    token_hash: str | None = None

    def __init__(self) -> None:
        self.versions: list[int] = []

    def deliver(self, item: Snapshot | dict[str, Any]) -> None:
        assert isinstance(item, Snapshot)
        self.versions.append(item.version)


def _service(store: MemoryRoomStore) -> RoomService:
    return RoomService(
        store=store, settings=base_settings(), recorder=ListRecorder(), ai=AiRunner(0)
    )


async def _room(service: RoomService) -> tuple[str, str]:
    room, host = await service.create(
        name="Ann", player_id=None, options=RoomOptions(room_name="Reads", seats=3)
    )
    return room.code, host


async def _settle(until: Any, *, within: float = 2.0) -> None:
    for _ in range(int(within / 0.01)):
        if until():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not reached in time")


async def test_another_processs_commit_is_read_once_and_fanned_out() -> None:
    store = MemoryRoomStore()
    here, there = CountingService(store), _service(store)
    code, _ = await _room(there)
    hub = Hub(here, on_commit=lambda: None)
    listener = Recorded()
    hub.add(code, listener)
    task = asyncio.create_task(hub.run())
    try:
        await _settle(lambda: listener.versions == [1])
        reads = here.reads
        await there.join(code, name="Bob", player_id=None)
        await _settle(lambda: listener.versions == [1, 2])
        assert here.reads == reads + 1
    finally:
        task.cancel()


async def test_commits_announced_during_a_read_are_caught_up_with_one_more_read() -> None:
    store = MemoryRoomStore()
    here, there = CountingService(store), _service(store)
    code, _ = await _room(there)
    hub = Hub(here, on_commit=lambda: None)
    listener = Recorded()
    hub.add(code, listener)
    here.gate = asyncio.Event()
    task = asyncio.create_task(hub.run())
    try:
        # The first announcement starts a read that is held; two more commits land and are
        # announced meanwhile.
        await _settle(lambda: here.reads == 1)
        for name in ("Bob", "Cy"):
            await there.join(code, name=name, player_id=None)
        await asyncio.sleep(0.05)
        assert here.reads == 1, "one read at a time per room"
        here.gate.set()
        await _settle(lambda: listener.versions[-1:] == [3])
        assert here.reads == 2
        assert listener.versions == sorted(set(listener.versions)), "never twice, never older"
    finally:
        task.cancel()


async def test_a_failed_read_is_tried_again() -> None:
    store = MemoryRoomStore()
    here, there = CountingService(store), _service(store)
    code, _ = await _room(there)
    hub = Hub(here, on_commit=lambda: None)
    listener = Recorded()
    hub.add(code, listener)
    here.failing = 2
    task = asyncio.create_task(hub.run())
    try:
        await _settle(lambda: listener.versions == [1])
        assert here.reads == 3
    finally:
        task.cancel()


async def test_an_announcement_of_unknown_version_reads_the_room_once() -> None:
    store = AnnouncingStore()
    here = CountingService(store)
    code, _ = await _room(here)
    hub = Hub(here, on_commit=lambda: None)
    listener = Recorded()
    hub.add(code, listener)
    task = asyncio.create_task(hub.run())
    try:
        await _settle(lambda: listener.versions == [1])
        reads = here.reads
        store.announce(code, 0)
        await _settle(lambda: here.reads == reads + 1)
        await asyncio.sleep(0.05)
        assert here.reads == reads + 1 and listener.versions == [1]
    finally:
        task.cancel()


async def test_this_processs_own_commits_are_not_read_back() -> None:
    service = CountingService(MemoryRoomStore())
    code, host = await _room(service)
    _, guest = await service.join(code, name="Bob", player_id=None)
    hub = Hub(service, on_commit=lambda: None)
    listener = Recorded()
    hub.add(code, listener)
    task = asyncio.create_task(hub.run())
    try:
        await _settle(lambda: listener.versions == [2])
        room = await service.start(code, token=host)
        reads = service.reads
        for ref in range(3):
            assert room.game is not None
            state = room.engine_state()
            seat = engine.to_act(state)[0]
            action = next(a for a in engine.legal_actions(state) if a["seat"] == seat)
            del action["seat"]
            token = hash_token([host, guest][seat])
            acted = await service.act(
                code, token_hash=token, ref=ref, version=room.version, action=action
            )
            assert not acted.repeated
            room = acted.room
        await asyncio.sleep(0.1)
        assert service.reads == reads, "the echoes of its own commits cost no read"
        assert listener.versions == [2, 3, 4, 5, 6]
    finally:
        task.cancel()


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


async def _started(service: RoomService) -> tuple[str, list[str]]:
    code, host = await _room(service)
    _, guest = await service.join(code, name="Bob", player_id=None)
    _, third = await service.join(code, name="Cy", player_id=None)
    await service.start(code, token=host)
    return code, [host, guest, third]


async def _act(service: RoomService, code: str, tokens: list[str], room: Room) -> Room:
    state = room.engine_state()
    seat = engine.to_act(state)[0]
    action = next(a for a in engine.legal_actions(state) if a["seat"] == seat)
    del action["seat"]
    token = hash_token(tokens[seat])
    acted = await service.act(code, token_hash=token, ref="x", version=room.version, action=action)
    return acted.room


async def test_an_own_commit_announced_before_its_answer_is_not_read() -> None:
    store = HeldCommitStore()
    service = CountingService(store)
    code, tokens = await _started(service)
    hub = Hub(service, on_commit=lambda: None)
    listener = Recorded()
    hub.add(code, listener)
    task = asyncio.create_task(hub.run())
    try:
        room = await service.load(code)
        assert room is not None
        await _settle(lambda: listener.versions == [room.version])
        reads = service.reads
        store.hold_next, store.announce_first = True, True
        acting = asyncio.create_task(_act(service, code, tokens, room))
        await store.held.wait()
        await asyncio.sleep(0.05)  # the announcement is handled while the answer is held
        assert listener.versions == [room.version]
        store.release.set()
        acted = await acting
        await asyncio.sleep(0.05)
        assert listener.versions == [room.version, acted.version]
        assert service.reads == reads
    finally:
        task.cancel()


async def test_a_commit_that_loses_the_race_has_the_winners_room_read() -> None:
    store = HeldCommitStore()
    here, there = CountingService(store), _service(store)
    code, tokens = await _started(there)
    hub = Hub(here, on_commit=lambda: None)
    listener = Recorded()
    hub.add(code, listener)
    task = asyncio.create_task(hub.run())
    try:
        room = await here.load(code)
        assert room is not None
        await _settle(lambda: listener.versions == [room.version])
        # This process's commit of the next version waits; the other process commits that
        # version first, and its announcement arrives while this one is still pending.
        store.hold_next = True
        losing = asyncio.create_task(_act(here, code, tokens, room))
        await store.held.wait()
        won = await _act(there, code, tokens, room)
        await asyncio.sleep(0.05)
        assert listener.versions == [room.version], "skipped as this process's own, for now"
        store.release.set()
        with contextlib.suppress(RoomError):
            await losing
        await _settle(lambda: won.version in listener.versions)
    finally:
        task.cancel()
