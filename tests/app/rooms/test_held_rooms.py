"""A process's held copy of a room is a guess: only a winning compare-and-set may trust it."""

from __future__ import annotations

import asyncio
from typing import Any

import engine
from app.rooms.ai import AiRunner
from app.rooms.credentials import hash_token
from app.rooms.model import Room, RoomOptions
from app.rooms.scheduler import Scheduler
from app.rooms.service import RoomService
from app.rooms.tables import Tables
from app.store.base import Commit
from app.store.memory import MemoryRoomStore
from app.ws.hub import Hub
from tests.app.conftest import base_settings
from tests.app.live import ListRecorder, Recorded


def _service(store: MemoryRoomStore) -> RoomService:
    return RoomService(
        store=store, settings=base_settings(), recorder=ListRecorder(), ai=AiRunner(0)
    )


async def _two_processes_one_game() -> tuple[RoomService, RoomService, str, list[str]]:
    """Two services (as two processes) on one store, a started two-seat game, seat tokens."""
    store = MemoryRoomStore()
    first, second = _service(store), _service(store)
    room, host = await Tables(first).create(
        name="Ann", player_id=None, options=RoomOptions(room_name="Held", seats=2)
    )
    _, _, guest = await Tables(first).join(room.code, name="Bob", player_id=None)
    await Tables(first).start(room.code, token=host)
    return first, second, room.code, [host, guest]


def _move(room: Room) -> tuple[int, dict[str, Any]]:
    """The seat to act and its first legal action (without the seat)."""
    assert room.game is not None
    state = engine.loads(room.game.state)
    seat = engine.to_act(state)[0]
    action = next(a for a in engine.legal_actions(state) if a["seat"] == seat)
    return seat, {key: value for key, value in action.items() if key != "seat"}


async def test_an_act_on_a_stale_held_room_is_applied_against_the_store() -> None:
    first, second, code, tokens = await _two_processes_one_game()
    held = await first.load(code)
    assert held is not None
    # The other process moves: the first one's held room is now a version behind.
    seat, action = _move(held)
    moved = await second.act(
        code, token_hash=hash_token(tokens[seat]), ref="b1", version=held.version, action=action
    )
    assert not moved.repeated
    # An act chosen from the latest state still goes through the stale process, once.
    seat, action = _move(moved.room)
    acted = await first.act(
        code,
        token_hash=hash_token(tokens[seat]),
        ref="a1",
        version=moved.room.version,
        action=action,
    )
    assert not acted.repeated and acted.room.version == moved.room.version + 1
    latest = await second.load(code)
    assert latest is not None and latest.version == acted.room.version


async def test_a_repeat_is_answered_from_the_store_not_from_a_stale_held_room() -> None:
    first, second, code, tokens = await _two_processes_one_game()
    held = await first.load(code)
    assert held is not None
    seat, action = _move(held)
    await second.act(
        code, token_hash=hash_token(tokens[seat]), ref="r", version=held.version, action=action
    )
    # The first process still holds the old version; the store knows the ref was applied.
    again = await first.act(
        code, token_hash=hash_token(tokens[seat]), ref="r", version=held.version, action=action
    )
    assert again.repeated and again.room.version == held.version + 1


class EchoFirstStore(MemoryRoomStore):
    """A store whose published commit reaches the process before the commit's own answer,
    as Redis's channel can: the hub reads the room while ``commit`` is still pending."""

    def __init__(self) -> None:
        super().__init__()
        self.service: RoomService | None = None
        self.echoed: list[Room] = []

    async def commit(self, commit: Commit) -> bool:
        written = await super().commit(commit)
        if written and self.service is not None:
            echoed = await self.service.load(commit.code)
            assert echoed is not None
            self.echoed.append(echoed)
        return written


async def test_an_echo_that_arrives_before_the_commits_answer_is_the_committed_room() -> None:
    store = EchoFirstStore()
    service = _service(store)
    store.service = service
    room, host = await Tables(service).create(
        name="Ann", player_id=None, options=RoomOptions(room_name="Echo", seats=2)
    )
    _, _, guest = await Tables(service).join(room.code, name="Bob", player_id=None)
    started = await Tables(service).start(room.code, token=host)
    tokens = [host, guest]
    seat, action = _move(started)
    acted = await service.act(
        room.code,
        token_hash=hash_token(tokens[seat]),
        ref="e",
        version=started.version,
        action=action,
    )
    # Neither decoded again nor a copy: the very room the act made, engine state and all.
    assert store.echoed[-1] is acted.room
    assert store.echoed[-2] is started


async def test_a_commit_reaches_this_processs_connections_once_before_its_echo() -> None:
    first, _, code, tokens = await _two_processes_one_game()
    hub = Hub(first, scheduler=Scheduler(first))
    listener = Recorded()
    await hub.add(code, listener)
    room = await first.load(code)
    assert room is not None
    seat, action = _move(room)
    acted = await first.act(
        code, token_hash=hash_token(tokens[seat]), ref="h", version=room.version, action=action
    )
    hub.committed(acted.room)  # as the move's connection does (``app/ws/connection.py``)
    # Delivered as the act returns, with the hub not listening to the store at all.
    assert listener.versions == [acted.room.version]
    # Then the store's channel brings every commit (the earlier ones too); none is sent again.
    task = asyncio.create_task(hub.run())
    try:
        for _ in range(50):
            await asyncio.sleep(0.01)
    finally:
        task.cancel()
    assert listener.versions == [acted.room.version]
