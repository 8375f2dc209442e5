"""Shared test fixtures: services a test needs, and the CI rule that no such test may skip."""

from __future__ import annotations

import os

import pytest

REQUIRE_SERVICES = os.environ.get("CASH_STASH_REQUIRE_SERVICES") == "1"


def need_service(name: str, problem: str | None) -> None:
    """Skip (or, under CASH_STASH_REQUIRE_SERVICES=1, fail) a test whose service is missing.

    ``problem`` is None when the service is usable, else a sentence saying what is wrong.
    """
    if problem is None:
        return
    message = f"{name} is not available: {problem}"
    if REQUIRE_SERVICES:
        pytest.fail(f"{message} (CASH_STASH_REQUIRE_SERVICES=1 forbids skipping)")
    pytest.skip(message)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Browser tests run last: the session's Playwright (sync API) keeps an event loop running
    on the main thread until the session ends, and no asyncio test can run after it starts."""
    items.sort(key=lambda item: item.nodeid.startswith("tests/browser/"))
