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


class DatabaseRecorder:
    """Stores each finished game once, retrying through database outages.

    ``record`` returns only when the game is stored (or was already), so a room that awaits it
    before expiring never loses a game; while the database is down it keeps waiting.
    """

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        backoff: Backoff | None = None,
        on_retry: Callable[[int, BaseException], None] | None = None,
    ) -> None:
        self._sessions = sessions
        self._backoff = backoff or Backoff()
        self._on_retry = on_retry

    async def record(self, game: FinishedGame) -> None:
        stored = await retry_with_backoff(
            lambda: self._store(game),
            backoff=self._backoff,
            on_retry=self._on_retry,
            what=f"recording game {game.game_id}",
        )
        if stored:
            logger.info("recorded game %s from room %s", game.game_id, game.room_code)
        else:
            logger.info("game %s was already recorded", game.game_id)

    async def _store(self, game: FinishedGame) -> bool:
        async with self._sessions() as session, session.begin():
            return await repository.record_game(session, game=game)


def default_recorder() -> DatabaseRecorder:
    """A recorder for the configured database."""
    return DatabaseRecorder(default_session_factory())
