"""Upgrading (and, for tests, downgrading) the database schema with Alembic."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import pool
from sqlalchemy.ext.asyncio import create_async_engine

ALEMBIC_INI = Path(__file__).resolve().parents[2] / "alembic.ini"

# Alembic announces each of its plugins at INFO; keep its "Running upgrade …" lines only.
logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)


def alembic_config(database_url: str | None = None) -> Config:
    """Alembic's configuration, migrating ``database_url`` (default: the settings' URL).

    Alembic runs its own event loop, so call these from synchronous code (or a thread).
    """
    config = Config(str(ALEMBIC_INI))
    config.attributes["embedded"] = True
    if database_url is not None:
        config.attributes["database_url"] = database_url
    return config


def upgrade(database_url: str | None = None, revision: str = "head") -> None:
    command.upgrade(alembic_config(database_url), revision)


def downgrade(database_url: str | None = None, revision: str = "base") -> None:
    command.downgrade(alembic_config(database_url), revision)


def schema_revisions(database_url: str) -> tuple[set[str], set[str]]:
    """The revisions the database's schema is at (none on an empty database) and the newest
    this release has. Raises ``OSError`` or ``SQLAlchemyError`` if the database cannot be read.
    """
    newest = set(ScriptDirectory.from_config(alembic_config(database_url)).get_heads())
    return asyncio.run(_current_revisions(database_url)), newest


async def _current_revisions(database_url: str) -> set[str]:
    engine = create_async_engine(database_url, poolclass=pool.NullPool)
    try:
        async with engine.connect() as connection:
            heads = await connection.run_sync(
                lambda sync: MigrationContext.configure(sync).get_current_heads()
            )
            return set(heads)
    finally:
        await engine.dispose()
