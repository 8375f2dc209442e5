"""Fixtures for the server tests: settings for each room store, the store itself, and a Redis
that is really there."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
import redis

from app.runtime import store_for
from app.settings import Settings
from app.store.base import RoomStore
from tests.app.db.scratch_databases import KINDS, shared_migrated_database
from tests.app.redis_target import RedisTarget
from tests.conftest import need_service
from tests.redis_cluster import RedisCluster

REDIS_URL = os.environ.get("CASH_STASH_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")

MakeSettings = Callable[..., Settings]


def redis_problem() -> str | None:
    """None when the test Redis answers, else what is wrong."""
    try:
        with redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1) as client:
            client.ping()
    except redis.RedisError as error:
        return f"{REDIS_URL}: {error}"
    return None


@pytest.fixture
def redis_prefix() -> Iterator[str]:
    """A key prefix of this test's own, so tests never see each other's rooms; cleaned after."""
    need_service("Redis", redis_problem())
    prefix = f"cash_stash_test:{uuid.uuid4().hex[:12]}:"
    yield prefix
    with redis.Redis.from_url(REDIS_URL) as client:
        keys = list(client.scan_iter(f"{prefix}*"))
        if keys:
            client.delete(*keys)


def base_settings(**overrides: Any) -> Settings:
    """Settings for tests: no AI pause, AI in a thread, generous limits; then ``overrides``."""
    values: dict[str, Any] = {
        "ai_pause_seconds": 0.0,
        "ai_workers": 0,
        "timeout_level": "easy",
        "disconnect_grace_seconds": 600.0,
        "seat_open_seconds": 600.0,
        "join_limit": 1000,
        "create_limit": 1000,
        "request_rate_per_second": 10000.0,
        "request_burst": 10000,
        "lobby_cache_ms": 0,
        "ws_messages_per_second": 1000.0,
        # Every test client is one address (loopback): the address's budget would be theirs all.
        "ws_messages_per_address_per_second": 100_000.0,
        "ws_messages_per_address_burst": 100_000,
        "database_url": "sqlite+aiosqlite:///:memory:",
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def make_settings(request: pytest.FixtureRequest) -> MakeSettings:
    """Builds settings for the memory store, then (second run) for a real Redis."""
    if request.param == "memory":
        return base_settings
    prefix: str = request.getfixturevalue("redis_prefix")

    def with_redis(**overrides: Any) -> Settings:
        return base_settings(redis_url=REDIS_URL, redis_prefix=prefix, **overrides)

    return with_redis


@pytest.fixture
async def store(make_settings: MakeSettings) -> AsyncIterator[RoomStore]:
    """The room store of ``make_settings``, started: the memory store, then (second run) a real
    Redis. A module with a store of another kind names its own ``store``."""
    made = store_for(make_settings())
    await made.start()
    yield made
    await made.close()


@pytest.fixture(scope="module", params=KINDS)
def shared_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A migrated database (SQLite, then a real Postgres) that a module's tests share, each
    emptying it first (``emptied``): creating one per test would cost half a second each."""
    with shared_migrated_database(request.param, tmp_path_factory.mktemp("db")) as url:
        yield url


@pytest.fixture(params=["redis", "cluster"])
def redis_target(request: pytest.FixtureRequest) -> RedisTarget:
    """The test's rooms on the test Redis, then (second run) on the local Redis Cluster."""
    if request.param == "redis":
        return RedisTarget(REDIS_URL, request.getfixturevalue("redis_prefix"))
    cluster: RedisCluster = request.getfixturevalue("redis_cluster")
    prefix: str = request.getfixturevalue("cluster_prefix")
    return RedisTarget(cluster.url, prefix, cluster)
