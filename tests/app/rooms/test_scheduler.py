"""The clock loop looks at the store when a wake may have come sooner, not at every commit."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from app.rooms import scheduler as scheduler_module
from app.rooms.ai import AiRunner
from app.rooms.credentials import hash_token
from app.rooms.model import RoomOptions
from app.rooms.scheduler import Scheduler
from app.rooms.service import RoomService
from app.rooms.tables import Tables
from app.store.memory import MemoryRoomStore
from app.ws.hub import Hub
from tests.app.conftest import base_settings
from tests.app.live import ListRecorder
from tests.app.rooms.test_held_rooms import _move


class CountingStore(MemoryRoomStore):
    """Counts the loop's looks for due rooms."""

    def __init__(self) -> None:
        super().__init__()
        self.looks = 0
        self._look = asyncio.Event()

    async def due(self, now: float) -> tuple[list[str], float | None]:
        self.looks += 1
        self._look.set()
        return await super().due(now)

    async def looked(self, more_than: int, *, within: float) -> bool:
        """Whether the loop has looked more than ``more_than`` times, waiting ``within``."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(within):
                while self.looks <= more_than:
                    self._look.clear()
                    await self._look.wait()
        return self.looks > more_than


async def _game(**settings: Any) -> tuple[RoomService, CountingStore, str, list[str]]:
    store = CountingStore()
    service = RoomService(
        store=store, settings=base_settings(**settings), recorder=ListRecorder(), ai=AiRunner(0)
    )
    room, host = await Tables(service).create(
        name="Ann", player_id=None, options=RoomOptions(room_name="Clock", seats=2)
    )
    _, _, guest = await Tables(service).join(room.code, name="Bob", player_id=None)
    await Tables(service).start(room.code, token=host)
    return service, store, room.code, [host, guest]


@pytest.fixture
def slow_idle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without a poke the loop would not look again for half a minute."""
    monkeypatch.setattr(scheduler_module, "_IDLE_SECONDS", 30.0)


@pytest.mark.usefixtures("slow_idle")
async def test_moves_that_only_push_the_clock_further_do_not_send_the_loop_to_the_store() -> None:
    service, store, code, tokens = await _game()
    scheduler = Scheduler(service)
    hub = Hub(service, scheduler=scheduler)  # as a process wires them (``app/runtime.py``)
    loop = asyncio.create_task(scheduler.run(hub))
    try:
        assert await store.looked(0, within=5.0), "the loop's first look"
        first = store.looks
        room = await service.load(code)
        assert room is not None
        for number in range(10):
            seat, action = _move(room)
            acted = await service.act(
                code,
                token_hash=hash_token(tokens[seat]),
                ref=f"r{number}",
                version=room.version,
                action=action,
            )
            room = acted.room
            hub.committed(room)  # as the move's connection does (``app/ws/connection.py``)
            # Longer than the least time between two looks: a poke would have been one.
            await asyncio.sleep(scheduler_module._PASS_SECONDS * 1.5)
        assert store.looks == first, "ten moves sent the loop to look again"
    finally:
        await scheduler.stop(seconds=1.0)
        loop.cancel()


@pytest.mark.usefixtures("slow_idle")
async def test_a_commit_due_before_the_next_look_sends_the_loop_to_look() -> None:
    service, store, code, tokens = await _game(disconnect_grace_seconds=0.5)
    for token in tokens:
        await service.set_presence(code, hash_token(token), connected=True)
    scheduler = Scheduler(service)
    hub = Hub(service, scheduler=scheduler)  # as a process wires them (``app/runtime.py``)
    loop = asyncio.create_task(scheduler.run(hub))
    try:
        assert await store.looked(0, within=5.0), "the loop's first look"
        await asyncio.sleep(scheduler_module._PASS_SECONDS * 2)
        looks = store.looks
        # Bob leaves: his seat falls due when the grace ends, before the look planned.
        hub.committed(await service.set_presence(code, hash_token(tokens[1]), connected=False))
        assert await store.looked(looks, within=5.0), "the loop never looked again"
    finally:
        await scheduler.stop(seconds=1.0)
        loop.cancel()
