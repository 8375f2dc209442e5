"""Shared test fixtures: services a test needs, and the CI rule that no such test may skip."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from tests.redis_cluster import RedisCluster, cluster_tools_problem

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
    """Browser tests run last: while Playwright (its sync API) runs it keeps an event loop marked
    running on the main thread, and no asyncio test can run, so Chromium is stopped before any
    other test (``tests/browser/conftest.py``); taken last, it is started once. pytest-xdist
    hands each worker tests in this order too, though a worker that takes over another's
    queue may meet other tests after browser tests (Chromium is then started again)."""
    items.sort(key=lambda item: item.nodeid.startswith("tests/browser/"))


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisCluster]:
    """A real local Redis Cluster (three primaries with a replica each) for the whole session.

    A test that kills nodes or moves slots leaves it to ``cluster_prefix`` to heal the cluster.
    """
    need_service("Redis Cluster", cluster_tools_problem())
    with RedisCluster() as cluster:
        yield cluster


@pytest.fixture
def cluster_prefix(redis_cluster: RedisCluster) -> Iterator[str]:
    """A key prefix of this test's own on the session's cluster. Afterwards every killed node is
    restarted and the test's keys are deleted, from each primary (they hold different slots)."""
    prefix = f"cash_stash_test:{uuid.uuid4().hex[:12]}:"
    yield prefix
    redis_cluster.heal()
    for port in redis_cluster.primaries():
        with redis_cluster.node(port).client() as client:
            for key in list(client.scan_iter(f"{prefix}*")):
                client.delete(key)
