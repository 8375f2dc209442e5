"""What one server process runs: the store, the room service, its hub and its clock loop."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from app import collector
from app.games.reviews import ReviewJobs
from app.metrics import Metrics
from app.rooms.ai import AiRunner
from app.rooms.recording import GameRecorder
from app.rooms.scheduler import Scheduler
from app.rooms.service import RoomService
from app.settings import Settings
from app.store.base import RoomStore
from app.store.memory import MemoryRoomStore
from app.store.redis import RedisRoomStore
from app.transport.deflate import SharedCompression
from app.ws.hub import Hub

_STOP_SECONDS = 1.0
"""The longest each step of stopping may take (clock loop, subscription, AI workers)."""


def store_for(settings: Settings) -> RoomStore:
    """Redis when ``CASH_STASH_REDIS_URL`` is set, else this process's memory."""
    if settings.redis_url:
        return RedisRoomStore(
            settings.redis_url,
            prefix=settings.redis_prefix,
            cluster=settings.redis_cluster,
            wait_replicas=settings.redis_wait_replicas,
            wait_ms=settings.redis_wait_ms,
        )
    return MemoryRoomStore()


@dataclass(frozen=True, slots=True)
class Runtime:
    settings: Settings
    service: RoomService
    hub: Hub
    scheduler: Scheduler
    metrics: Metrics
    reviews: ReviewJobs
    compression: SharedCompression
    """The texts this process's connections send, compressed once for all of them."""


@contextlib.asynccontextmanager
async def running(
    settings: Settings, *, store: RoomStore, recorder: GameRecorder
) -> AsyncIterator[Runtime]:
    """Start the process's subscription and clock loop; stop them on the way out."""
    await store.start()
    ai = AiRunner(settings.ai_workers)
    metrics = Metrics()
    service = RoomService(store=store, settings=settings, recorder=recorder, ai=ai, metrics=metrics)
    scheduler = Scheduler(service)
    compression = SharedCompression()
    hub = Hub(service, on_commit=scheduler.poke, compression=compression)
    metrics.rooms.set_function(lambda: hub.room_count)
    metrics.connections.set_function(lambda: hub.connection_count)
    reviews = ReviewJobs(settings)
    tasks = [asyncio.create_task(hub.run()), asyncio.create_task(scheduler.run())]
    if collector.tuned():
        tasks.append(asyncio.create_task(collector.collect_on_a_clock()))
    try:
        yield Runtime(
            settings=settings,
            service=service,
            hub=hub,
            scheduler=scheduler,
            metrics=metrics,
            reviews=reviews,
            compression=compression,
        )
    finally:
        await hub.settle_departures(seconds=_STOP_SECONDS)
        await scheduler.stop(seconds=_STOP_SECONDS)
        for task in tasks:
            task.cancel()
        # Bounded: a client library that swallows a cancellation must not hang the shutdown.
        await asyncio.wait(tasks, timeout=_STOP_SECONDS)
        await ai.aclose(seconds=_STOP_SECONDS)
        await reviews.aclose(seconds=_STOP_SECONDS)
        await store.close()
