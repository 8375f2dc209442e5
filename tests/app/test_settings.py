"""Settings come from CASH_STASH_* environment variables."""

from __future__ import annotations

import pytest

from app.settings import Settings


def test_allowed_origins_are_a_comma_separated_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CASH_STASH_ALLOWED_ORIGINS", "https://a.example, https://b.example/")
    assert Settings().allowed_origins == ["https://a.example", "https://b.example"]


def test_every_setting_has_a_default(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("REDIS_URL", "ALLOWED_ORIGINS", "DATABASE_URL"):
        monkeypatch.delenv(f"CASH_STASH_{name}", raising=False)
    settings = Settings()
    assert settings.redis_url is None and settings.allowed_origins == []
    assert settings.ai_pause_seconds > 0
