"""Play now and the lobby's life in one server process: the matcher and the count of players
online, started and stopped with the process (the runtime holds their store and the index of
games in play)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from app.db import repository
from app.db.session import default_session_factory
from app.matchmaking.live import LIVE_SECONDS, GameIndex
from app.matchmaking.service import Matchmaker, QueueMetrics
from app.matchmaking.store import MatchStore
from app.runtime import Runtime
from app.store.base import STORE_ERRORS

logger = logging.getLogger(__name__)

ONLINE_SECONDS = 2.0
"""How often each process reports how many players it has connected."""


async def rating_in_database(player_id: str) -> float:
    """The player's rating (OpenSkill ordinal) from the finished games' database; 0 (a new
    player's) when they have none, or when the database cannot be read."""
    try:
        async with default_session_factory()() as session:
            player = await repository.get_player(session, player_id=player_id)
    except Exception:
        logger.warning("a queued player's rating could not be read; taken as a new player's")
        return 0.0
    return 0.0 if player is None else float(player.rating)


@dataclass(frozen=True)
class Lobby:
    """What the queue and lobby routes use."""

    matchmaker: Matchmaker
    store: MatchStore
    runtime: Runtime
    index: GameIndex
    sockets: Counter[str] = field(default_factory=Counter)
    """Open queue sockets by client address, in this process."""

    async def online(self) -> int:
        return await self.store.online(since=time.time() - 3 * ONLINE_SECONDS)

    async def live_games(self, *, offset: int, limit: int) -> tuple[list[str], int, int]:
        return await self.store.live_games(
            offset=offset, limit=limit, since=time.time() - LIVE_SECONDS
        )


@contextlib.asynccontextmanager
async def running_lobby(runtime: Runtime) -> AsyncIterator[Lobby]:
    """Play now's matcher and the count of players online, for as long as the process runs;
    their store is the runtime's (the room store's Redis, or memory)."""
    settings = runtime.settings
    store = runtime.match_store
    matchmaker = Matchmaker(
        store=store,
        tables=runtime.tables,
        hub=runtime.hub,
        settings=settings,
        rating_of=rating_in_database,
        metrics=QueueMetrics(runtime.metrics.registry),
    )
    process = uuid.uuid4().hex

    async def report_online() -> None:
        while True:
            count = runtime.hub.connection_count + matchmaker.waiting_here
            try:
                await store.report_online(process, count, now=time.time())
            except STORE_ERRORS as error:
                logger.warning("players online not reported (%s)", type(error).__name__)
            await asyncio.sleep(ONLINE_SECONDS)

    tasks = [
        asyncio.create_task(matchmaker.run()),
        asyncio.create_task(report_online()),
    ]
    try:
        yield Lobby(matchmaker=matchmaker, store=store, runtime=runtime, index=runtime.index)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.wait(tasks, timeout=1.0)
