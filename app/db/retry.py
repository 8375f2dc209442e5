"""Retrying database work through an outage, with exponential backoff."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from sqlalchemy import exc

logger = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Backoff:
    """How long to wait between attempts."""

    first_delay: float = 0.5
    """Seconds before the second attempt."""
    factor: float = 2.0
    """Each wait is this many times the one before …"""
    max_delay: float = 30.0
    """… up to this many seconds."""
    attempts: int | None = None
    """Give up (re-raise) after this many attempts; None keeps trying until it works."""

    def delay(self, attempt: int) -> float:
        """The wait after failed attempt number ``attempt`` (1-based), with jitter so that
        processes that failed together do not all retry in the same instant."""
        ceiling = min(self.max_delay, self.first_delay * self.factor ** (attempt - 1))
        return random.uniform(ceiling / 2, ceiling)


def is_transient(error: BaseException) -> bool:
    """Whether ``error`` means the database is unreachable or busy, so trying again may work.

    A refused or dropped connection, a timeout, a locked SQLite file, a Postgres deadlock: yes.
    A bug in a statement or a violated constraint: no, retrying would only repeat it.
    """
    if isinstance(error, exc.DBAPIError):
        return error.connection_invalidated or isinstance(
            error, exc.OperationalError | exc.InterfaceError
        )
    return isinstance(error, OSError | TimeoutError | exc.DisconnectionError | exc.TimeoutError)


async def retry_with_backoff(
    operation: Callable[[], Awaitable[T]],
    *,
    backoff: Backoff = Backoff(),
    on_retry: Callable[[int, BaseException], None] | None = None,
    what: str = "database operation",
) -> T:
    """Run ``operation`` until it succeeds, waiting longer after each transient failure.

    ``on_retry(attempt, error)`` is called after each failure that will be retried; any other
    error propagates at once.
    """
    attempt = 1
    while True:
        try:
            return await operation()
        except Exception as error:
            if not is_transient(error) or attempt == backoff.attempts:
                raise
            delay = backoff.delay(attempt)
            logger.warning(
                "%s failed (attempt %d: %s); retrying in %.1fs", what, attempt, error, delay
            )
            if on_retry is not None:
                on_retry(attempt, error)
        await asyncio.sleep(delay)
        attempt += 1
