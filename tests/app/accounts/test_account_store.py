"""The sessions' store (``AccountStore``) in memory, on Redis and on a Redis Cluster: sessions
by digest, signing out on one device or on all, one-time records read once."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from app.accounts.store import AccountStore, MemoryAccountStore, RedisAccountStore
from tests.app.redis_target import RedisTarget


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis), "cluster"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[AccountStore]:
    if request.param == "memory":
        memory = MemoryAccountStore()
        await memory.start()
        yield memory
        await memory.close()
        return
    if request.param == "redis":
        from tests.app.conftest import REDIS_URL

        target = RedisTarget(REDIS_URL, request.getfixturevalue("redis_prefix"))
    else:
        cluster = request.getfixturevalue("redis_cluster")
        target = RedisTarget(cluster.url, request.getfixturevalue("cluster_prefix"), cluster)
    redis_store = RedisAccountStore(
        target.url, prefix=target.prefix, cluster=target.cluster is not None
    )
    await redis_store.start()
    yield redis_store
    await redis_store.close()


async def test_a_session_names_its_account_until_it_is_closed(store: AccountStore) -> None:
    await store.open_session("d1", "ann", seconds=60)
    await store.open_session("d2", "ann", seconds=60)
    assert await store.session_account("d1") == "ann"
    assert await store.session_account("unknown") is None

    await store.close_session("d1")
    assert await store.session_account("d1") is None
    assert await store.session_account("d2") == "ann"


async def test_signing_out_everywhere_ends_every_session_of_the_account_only(
    store: AccountStore,
) -> None:
    for digest in ("a1", "a2", "a3"):
        await store.open_session(digest, "ann", seconds=60)
    await store.open_session("b1", "bob", seconds=60)
    await store.close_session("a3")

    assert await store.close_sessions("ann") == 2
    assert [await store.session_account(d) for d in ("a1", "a2", "a3")] == [None, None, None]
    assert await store.session_account("b1") == "bob"
    assert await store.close_sessions("ann") == 0


async def test_a_session_ends_when_its_time_runs_out(store: AccountStore) -> None:
    await store.open_session("short", "ann", seconds=1)
    assert await store.session_account("short") == "ann"
    await asyncio.sleep(1.2)
    assert await store.session_account("short") is None


async def test_a_one_time_record_is_read_once(store: AccountStore) -> None:
    await store.keep_once("challenge:x", "value", seconds=60)
    assert await store.take_once("challenge:x") == "value"
    assert await store.take_once("challenge:x") is None
    assert await store.take_once("never") is None


async def test_a_one_time_record_expires(store: AccountStore) -> None:
    await store.keep_once("code", "value", seconds=1)
    await asyncio.sleep(1.2)
    assert await store.take_once("code") is None


async def test_the_memory_store_sweeps_what_ran_out() -> None:
    now = [1000.0]
    store = MemoryAccountStore(clock=lambda: now[0])
    await store.open_session("d", "ann", seconds=10)
    await store.keep_once("k", "v", seconds=10)
    assert store.entries == 2
    now[0] += 11
    store.sweep()
    assert store.entries == 0
    assert await store.close_sessions("ann") == 0


async def test_the_started_memory_store_sweeps_on_its_clock() -> None:
    now = [1000.0]
    store = MemoryAccountStore(sweep_seconds=0.01, clock=lambda: now[0])
    await store.start()
    try:
        await store.keep_once("k", "v", seconds=10)
        now[0] += 11
        # Nothing announces a sweep (it is the clock's own work): look until it has run.
        async with asyncio.timeout(5):
            while store.entries:  # noqa: ASYNC110
                await asyncio.sleep(0.01)
    finally:
        await store.close()


async def test_held_records_are_read_many_at_once_until_their_time_runs_out(
    store: AccountStore,
) -> None:
    await store.hold("a", "here", seconds=60)
    await store.hold("b", "there", seconds=0.5)
    await store.hold("a", "again", seconds=60)
    assert await store.held(["a", "b", "never"]) == ["again", "there", None]
    assert await store.held([]) == []
    await asyncio.sleep(0.7)
    assert await store.held(["a", "b"]) == ["again", None]


async def test_a_mark_holds_until_it_is_changed_and_never_comes_back(
    store: AccountStore,
) -> None:
    first = await store.version("panel:ann")
    assert await store.version("panel:ann") == first
    assert await store.version("panel:bob") != first
    seen = {first}
    for _ in range(3):
        await store.change("panel:ann")
        mark = await store.version("panel:ann")
        assert mark not in seen
        seen.add(mark)
