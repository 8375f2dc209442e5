"""Throwaway databases for tests: a SQLite file, or a fresh database on the test Postgres.

Every Postgres database is created through the ``test`` database under a random name and
dropped after, so parallel runs never see each other's tables. Creating one takes about half a
second, so a test module shares one migrated database (``shared_migrated_database``) and each
test starts by emptying its tables (``emptied``).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import asyncpg
from fastapi import FastAPI
from sqlalchemy import delete
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.migrate import upgrade
from app.db.models import Base
from app.db.session import create_engine, create_session_factory, get_session
from tests.conftest import need_service

POSTGRES_URL = os.environ.get(
    "CASH_STASH_TEST_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)
KINDS = ["sqlite", "postgres"]


def _plain_dsn(url: str) -> str:
    """The URL as asyncpg takes it (without SQLAlchemy's ``+asyncpg``)."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def _admin() -> asyncpg.Connection:
    try:
        return await asyncio.wait_for(asyncpg.connect(_plain_dsn(POSTGRES_URL)), timeout=5)
    except (OSError, TimeoutError, asyncpg.PostgresError) as error:
        need_service("PostgreSQL", f"cannot connect to {make_url(POSTGRES_URL)!r}: {error}")
        raise


async def _administer(statement: str) -> None:
    admin = await _admin()
    try:
        await admin.execute(statement)
    finally:
        await admin.close()


def _postgres_url(name: str) -> str:
    return make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)


@asynccontextmanager
async def scratch_database(kind: str, directory: Path) -> AsyncIterator[str]:
    """An empty database of ``kind`` (``"sqlite"`` or ``"postgres"``); yields its URL."""
    if kind == "sqlite":
        yield f"sqlite+aiosqlite:///{directory / 'games.db'}"
        return
    name = f"cash_stash_test_{uuid.uuid4().hex[:16]}"
    await _administer(f'CREATE DATABASE "{name}"')
    try:
        yield _postgres_url(name)
    finally:
        await _administer(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@asynccontextmanager
async def migrated_database(kind: str, directory: Path) -> AsyncIterator[str]:
    """Like ``scratch_database``, with the schema at the latest migration."""
    async with scratch_database(kind, directory) as url:
        # Alembic runs its own event loop: keep it off this one.
        await asyncio.to_thread(upgrade, url)
        yield url


def _in_own_loop(work: Coroutine[object, object, None]) -> None:
    """Run ``work`` to completion on a fresh event loop, whatever loop this thread may have."""
    with ThreadPoolExecutor(max_workers=1) as thread:
        thread.submit(asyncio.run, work).result()


@contextmanager
def shared_migrated_database(kind: str, directory: Path) -> Iterator[str]:
    """A migrated database for a whole test module (synchronous: for module-scoped fixtures)."""
    if kind == "sqlite":
        url = f"sqlite+aiosqlite:///{directory / 'games.db'}"
        upgrade(url)
        yield url
        return
    name = f"cash_stash_test_{uuid.uuid4().hex[:16]}"
    _in_own_loop(_administer(f'CREATE DATABASE "{name}"'))
    try:
        upgrade(_postgres_url(name))
        yield _postgres_url(name)
    finally:
        _in_own_loop(_administer(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


async def emptied(url: str) -> str:
    """``url`` after deleting every row of the app's tables."""
    engine = create_engine(url)
    try:
        async with engine.begin() as connection:
            for table in reversed(Base.metadata.sorted_tables):
                await connection.execute(delete(table))
    finally:
        await engine.dispose()
    return url


@asynccontextmanager
async def sessions_on(url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    """Sessions on ``url`` while in the block; the engine's connections are closed after."""
    engine = create_engine(url)
    try:
        yield create_session_factory(engine)
    finally:
        await engine.dispose()


def serve_sessions(app: FastAPI, sessions: async_sessionmaker[AsyncSession]) -> None:
    """Every request ``app`` serves takes its database session from ``sessions``."""

    async def session() -> AsyncIterator[AsyncSession]:
        async with sessions() as opened:
            yield opened

    app.dependency_overrides[get_session] = session
