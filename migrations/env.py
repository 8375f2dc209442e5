"""Alembic environment: migrates the database named by the app's settings.

``app.db.migrate`` runs it programmatically (and may pass another URL in
``config.attributes["database_url"]``); the ``alembic`` command runs it too.
"""

from __future__ import annotations

import asyncio
from logging.config import fileConfig
from typing import Any

from alembic import context
from sqlalchemy import pool
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from app.db.models import Base
from app.settings import get_settings

config = context.config
database_url: str = config.attributes.get("database_url") or get_settings().database_url

# Run from the app, logging is already set up; only the alembic command configures it here.
if config.config_file_name is not None and not config.attributes.get("embedded"):
    fileConfig(config.config_file_name, disable_existing_loggers=False)


def _configure(**options: Any) -> None:
    context.configure(
        target_metadata=Base.metadata,
        # SQLite alters a table by copying it; batch mode writes migrations that do so.
        render_as_batch=True,
        compare_type=True,
        **options,
    )


def run_migrations_offline() -> None:
    _configure(url=database_url, literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def _run_with(connection: Connection) -> None:
    _configure(connection=connection)
    with context.begin_transaction():
        context.run_migrations()


async def run_migrations_online() -> None:
    engine = create_async_engine(database_url, poolclass=pool.NullPool)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_run_with)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    asyncio.run(run_migrations_online())
