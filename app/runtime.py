"""What one server process runs: the stores, the room service, its hub, its clock loop and the
index of games in play."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from app import collector
from app.games.reviews import ReviewJobs
from app.matchmaking.live import LIVE_SECONDS, GameIndex
from app.matchmaking.redis_store import RedisMatchStore
from app.matchmaking.store import MatchStore, MemoryMatchStore
from app.metrics import Metrics
from app.rooms.ai import AiRunner
from app.rooms.recording import GameRecorder
from app.rooms.scheduler import Scheduler
from app.rooms.service import RoomService
from app.rooms.tables import Tables
from app.settings import Settings
from app.store.base import STORE_ERRORS, RoomStore
from app.store.memory import MemoryRoomStore
from app.store.redis import RedisRoomStore
from app.transport.deflate import SharedCompression
from app.turns.archive import TurnArchive
from app.turns.keeper import TurnKeeper
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


def match_store_for(settings: Settings) -> MatchStore:
    """Redis when rooms are in Redis (the same node or cluster), else this process's memory."""
    if settings.redis_url:
        return RedisMatchStore(
            settings.redis_url, prefix=settings.redis_prefix, cluster=settings.redis_cluster
        )
    return MemoryMatchStore(games_kept_seconds=LIVE_SECONDS)


@dataclass(frozen=True, slots=True)
class Runtime:
    settings: Settings
    service: RoomService
    tables: Tables
    """The lobby's use cases (create, join, seats, bots, options, deals) over ``service``."""
    hub: Hub
    scheduler: Scheduler
    metrics: Metrics
    reviews: ReviewJobs
    compression: SharedCompression
    """The texts this process's connections send, compressed once for all of them."""
    match_store: MatchStore
    """Play now's queues, the index of games in play and the count of players online."""
    index: GameIndex
    """The index of games in play, told each room this process commits (by the hub)."""


@contextlib.asynccontextmanager
async def running(
    settings: Settings,
    *,
    store: RoomStore,
    recorder: GameRecorder,
    turns: TurnArchive | None = None,
) -> AsyncIterator[Runtime]:
    """Start the process's subscription, clock loop and index of games in play, and with
    ``turns`` (where turn-based games are kept) its loop that parks and wakes them; stop them
    on the way out."""
    await store.start()
    match_store = match_store_for(settings)
    await match_store.start()
    ai = AiRunner(settings.ai_workers)
    metrics = Metrics()
    service = RoomService(
        store=store, settings=settings, recorder=recorder, ai=ai, metrics=metrics, turns=turns
    )
    scheduler = Scheduler(service)
    compression = SharedCompression()
    index = GameIndex(match_store)
    hub = Hub(service, scheduler=scheduler, index=index, compression=compression)
    metrics.rooms.set_function(lambda: hub.room_count)
    metrics.connections.set_function(lambda: hub.connection_count)
    reviews = ReviewJobs(settings)
    tasks = [
        asyncio.create_task(hub.run()),
        asyncio.create_task(hub.presence.keep_serving()),
        asyncio.create_task(scheduler.run(hub)),
        asyncio.create_task(index.run()),
    ]
    if turns is not None:
        tasks.append(asyncio.create_task(TurnKeeper(service, turns).run(hub)))
    if collector.tuned():
        tasks.append(asyncio.create_task(collector.collect_on_a_clock()))
    try:
        yield Runtime(
            settings=settings,
            service=service,
            tables=Tables(service),
            hub=hub,
            scheduler=scheduler,
            metrics=metrics,
            reviews=reviews,
            compression=compression,
            match_store=match_store,
            index=index,
        )
    finally:
        await hub.settle_departures(seconds=_STOP_SECONDS)
        await hub.presence.stop(seconds=_STOP_SECONDS)
        await scheduler.stop(seconds=_STOP_SECONDS)
        for task in tasks:
            task.cancel()
        # Bounded: a client library that swallows a cancellation must not hang the shutdown.
        await asyncio.wait(tasks, timeout=_STOP_SECONDS)
        await ai.aclose(seconds=_STOP_SECONDS)
        await reviews.aclose(seconds=_STOP_SECONDS)
        with contextlib.suppress(*STORE_ERRORS):
            await index.flush(everything=True)
        await match_store.close()
        await store.close()
