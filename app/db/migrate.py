"""Upgrading (and, for tests, downgrading) the database schema with Alembic."""

from __future__ import annotations

import logging
from pathlib import Path

from alembic import command
from alembic.config import Config

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
