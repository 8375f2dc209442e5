"""The ``GameRecorder`` that keeps finished games in the database."""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import repository
from app.db.retry import Backoff, retry_with_backoff
from app.db.session import default_session_factory
from app.rooms.recording import FinishedGame

logger = logging.getLogger(__name__)


QUICK_RETRIES = Backoff(first_delay=0.2, max_delay=2.0, attempts=4)
"""Ride out a blip (a restart, a failover, a locked SQLite file) within a few seconds."""


class DatabaseRecorder:
    """Stores each finished game once, retrying a failed write with backoff.

    ``record`` returns once the game is stored (or already was). With the default backoff it
    gives up after a few quick attempts and raises, and the room, which keeps the game until it
    is recorded, calls again later; ``Backoff(attempts=None)`` instead waits out any outage.
    """

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        backoff: Backoff | None = None,
        on_retry: Callable[[int, BaseException], None] | None = None,
    ) -> None:
        self._sessions = sessions
        self._backoff = backoff or QUICK_RETRIES
        self._on_retry = on_retry

    async def record(self, game: FinishedGame) -> None:
        stored = await retry_with_backoff(
            lambda: self._store(game),
            backoff=self._backoff,
            on_retry=self._on_retry,
            what=f"recording game {game.game_id}",
        )
        if stored:
            logger.info("recorded game %s", game.game_id, extra={"room": game.room_code})
        else:
            logger.info("game %s was already recorded", game.game_id)

    async def _store(self, game: FinishedGame) -> bool:
        async with self._sessions() as session, session.begin():
            return await repository.record_game(session, game=game)


def default_recorder() -> DatabaseRecorder:
    """A recorder for the configured database."""
    return DatabaseRecorder(default_session_factory())
