"""A friend's presence crosses processes: two ``cash-stash serve`` processes on one Redis (then
a Redis Cluster) and one database; Ann is served by one, Bea by the other, and each sees the
other come online, and sit at a table, within 2 seconds (``docs/design.md``, "Friends and
presence")."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.accounts.store import RedisAccountStore
from app.db.session import create_engine, create_session_factory
from tests.app.accounts.helpers import TestAccount, make_account, same_site
from tests.app.processes import ServerProcess, migrated_database, running_servers, server_env
from tests.app.redis_target import RedisTarget

REACHES_WITHIN_SECONDS = 2.0


@pytest.fixture
def servers(redis_target: RedisTarget, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    database = migrated_database(tmp_path / "friends.db")
    env = server_env(redis_target, database, friends_presence_seconds="5")
    with running_servers(env, 2) as started:
        yield started


@pytest.fixture
async def accounts(
    redis_target: RedisTarget, tmp_path: Path, servers: list[ServerProcess]
) -> AsyncIterator[tuple[TestAccount, TestAccount]]:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'friends.db'}")
    store = RedisAccountStore(
        redis_target.url, prefix=redis_target.prefix, cluster=redis_target.cluster is not None
    )
    await store.start()
    try:
        sessions = create_session_factory(engine)
        ann = await make_account(sessions, store, name="Ann")
        bea = await make_account(sessions, store, name="Bea")
        yield ann, bea
    finally:
        await store.close()
        await engine.dispose()


def client(server: ServerProcess, account: TestAccount) -> httpx.AsyncClient:
    base = server.endpoint.base_url
    return httpx.AsyncClient(
        base_url=base, cookies=account.cookies, headers=same_site(base), timeout=10
    )


async def panel(player: httpx.AsyncClient, **here: str) -> dict[str, Any]:
    response = await player.post("/api/friends/presence", json=here)
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


async def seconds_until(player: httpx.AsyncClient, wanted: dict[str, Any]) -> float:
    """Poll as the panel does (every 0.1 s here) until the first friend's ``where`` holds
    ``wanted``; how long that took."""
    started = time.monotonic()
    while time.monotonic() - started < 10:
        friends = (await panel(player))["friends"]
        if friends and all(friends[0]["where"][key] == value for key, value in wanted.items()):
            return time.monotonic() - started
        await asyncio.sleep(0.1)
    raise AssertionError(f"never saw {wanted}")


async def test_a_friend_comes_online_and_sits_down_across_processes(
    servers: list[ServerProcess], accounts: tuple[TestAccount, TestAccount]
) -> None:
    ann_account, bea_account = accounts
    async with (
        client(servers[0], ann_account) as ann,
        client(servers[1], bea_account) as bea,
    ):
        asked = await ann.post("/api/friends/requests", json={"id": bea_account.account_id})
        assert asked.status_code == 201, asked.text
        accepted = await bea.post(f"/api/friends/requests/{ann_account.account_id}/accept")
        assert accepted.status_code == 204, accepted.text
        assert (await ann.get("/api/friends")).json()["friends"][0]["where"]["online"] is False

        await panel(bea)
        assert await seconds_until(ann, {"online": True}) <= REACHES_WITHIN_SECONDS

        created = await ann.post("/api/rooms", json={"name": "Ann", "visibility": "public"})
        table = {"code": created.json()["code"], "token": created.json()["token"]}
        await panel(ann, **table)
        took = await seconds_until(bea, {"at_table": True, "code": table["code"]})
        assert took <= REACHES_WITHIN_SECONDS
