"""Real ``cash-stash serve`` processes, on each room store, for replaying an attacker's probes."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis

from tests.app.conftest import REDIS_URL, redis_problem
from tests.app.processes import ServerProcess, server_env, start_servers
from tests.conftest import need_service

Serve = Callable[..., ServerProcess]
"""``serve(**settings)``: one server process, ``settings`` as ``CASH_STASH_*`` values."""


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def serve(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Serve]:
    """Starts server processes on the memory store, then (second run) on a real Redis.

    Each process has its own SQLite file; on Redis, the test's own key prefix (cleaned after).
    Every process is stopped when the test ends.
    """
    prefix = f"cash_stash_test:{uuid.uuid4().hex[:12]}:"
    if request.param == "redis":
        need_service("Redis", redis_problem())
    started: list[ServerProcess] = []

    def start(**settings: str) -> ServerProcess:
        env = server_env(prefix, tmp_path / f"games-{len(started)}.db", **settings)
        if request.param == "memory":
            del env["CASH_STASH_REDIS_URL"]
        (server,) = start_servers(env, 1)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
    if request.param == "redis":
        with redis.Redis.from_url(REDIS_URL) as client:
            keys = list(client.scan_iter(f"{prefix}*"))
            if keys:
                client.delete(*keys)


@pytest.fixture
def store_kind(serve: Serve, request: pytest.FixtureRequest) -> str:
    """``"memory"`` or ``"redis"``: which store this run of a test serves rooms from."""
    return str(request.node.callspec.params["serve"])


@pytest.fixture(scope="module", params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
def shared_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ServerProcess]:
    """One server process, on each store, shared by a module's probes that change nothing
    another probe looks at (starting a process per probe made a module take minutes)."""
    prefix = f"cash_stash_test:{uuid.uuid4().hex[:12]}:"
    if request.param == "redis":
        need_service("Redis", redis_problem())
    env = server_env(prefix, tmp_path_factory.mktemp("shared") / "games.db")
    if request.param == "memory":
        del env["CASH_STASH_REDIS_URL"]
    (server,) = start_servers(env, 1)
    yield server
    server.stop()
    if request.param == "redis":
        with redis.Redis.from_url(REDIS_URL) as client:
            keys = list(client.scan_iter(f"{prefix}*"))
            if keys:
                client.delete(*keys)
