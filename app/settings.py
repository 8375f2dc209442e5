"""One place for configuration, read from ``CASH_STASH_*`` environment variables."""

from __future__ import annotations

from functools import lru_cache

from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Server settings; every one is optional and has an embedded default."""

    model_config = SettingsConfigDict(env_prefix="CASH_STASH_")

    redis_url: str | None = None
    """Live rooms in Redis when set; otherwise in this process's memory."""
    database_url: str = "sqlite+aiosqlite:///cash_stash.db"
    """Finished games: a SQLite file by default, Postgres via ``postgresql+asyncpg://``."""
    host: str = "127.0.0.1"
    port: int = 8000
    allowed_origins: list[str] = []
    """Origins allowed to open a WebSocket; empty means same origin only."""


@lru_cache
def get_settings() -> Settings:
    return Settings()
