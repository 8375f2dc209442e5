"""Engines and sessions, built from ``settings.database_url``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import lru_cache
from typing import Annotated

from fastapi import Depends
from sqlalchemy import event
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import ConnectionPoolEntry

from app.settings import get_settings


def create_engine(url: str) -> AsyncEngine:
    """An async engine for ``url`` (``sqlite+aiosqlite://…`` or ``postgresql+asyncpg://…``)."""
    if url.startswith("sqlite"):
        # One writer at a time: a second one waits for the file's lock rather than failing.
        engine = create_async_engine(url, connect_args={"timeout": 15})
        event.listen(engine.sync_engine, "connect", _configure_sqlite)
        return engine
    # After an outage the pool may hold dead connections; check each one before use. An
    # unreachable server fails within seconds instead of asyncpg's minute, so retries can follow.
    return create_async_engine(
        url, pool_pre_ping=True, connect_args={"timeout": 10, "command_timeout": 30}
    )


def _configure_sqlite(connection: DBAPIConnection, record: ConnectionPoolEntry) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


@lru_cache
def default_session_factory() -> async_sessionmaker[AsyncSession]:
    """The process-wide sessions for the configured database."""
    return create_session_factory(create_engine(get_settings().database_url))


async def get_session() -> AsyncIterator[AsyncSession]:
    """FastAPI dependency: one session per request."""
    async with default_session_factory()() as session:
        yield session


SessionDep = Annotated[AsyncSession, Depends(get_session)]
