"""Throwaway databases for tests: a SQLite file, or a fresh database on the test Postgres.

Each Postgres test gets its own database (created through the ``test`` database and dropped
after), so parallel runs never see each other's tables.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import asyncpg
from conftest import need_service
from sqlalchemy.engine import make_url

from app.db.migrate import upgrade

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


@asynccontextmanager
async def scratch_database(kind: str, directory: Path) -> AsyncIterator[str]:
    """An empty database of ``kind`` (``"sqlite"`` or ``"postgres"``); yields its URL."""
    if kind == "sqlite":
        yield f"sqlite+aiosqlite:///{directory / 'games.db'}"
        return
    name = f"cash_stash_test_{uuid.uuid4().hex[:16]}"
    admin = await _admin()
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    try:
        yield make_url(POSTGRES_URL).set(database=name).render_as_string(hide_password=False)
    finally:
        admin = await _admin()
        try:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await admin.close()


@asynccontextmanager
async def migrated_database(kind: str, directory: Path) -> AsyncIterator[str]:
    """Like ``scratch_database``, with the schema at the latest migration."""
    async with scratch_database(kind, directory) as url:
        # Alembic runs its own event loop: keep it off this one.
        await asyncio.to_thread(upgrade, url)
        yield url
