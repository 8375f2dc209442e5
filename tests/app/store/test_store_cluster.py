"""The Redis store on a real Redis Cluster while it changes under it: a primary fails and its
replica takes over, a room's slot moves to another primary. Commits go on, none that was
acknowledged is lost, and a process that watches the room hears it again."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest

from app.resp.nodes import Script
from app.store import redis as redis_store
from app.store.base import Commit, StoreEvent
from app.store.redis import RedisRoomStore
from tests.redis_cluster import RedisCluster

pytestmark = pytest.mark.redis

CODE = "FAILOVER"


def commit(version: int, code: str = CODE) -> Commit:
    """As a game commits: a snapshot now and then, moves appended in between."""
    return Commit(
        code=code,
        version=version,
        data=f'{{"v":{version}}}',
        wake_at=None,
        listing=None,
        ttl_seconds=300,
        step=version % 4 != 1,
    )


async def _stored_version(store: RedisRoomStore, code: str = CODE) -> int:
    """The room's version, checked to be its snapshot's with every move since, in order."""
    stored = await store.load(code)
    assert stored is not None and stored.snapshot == f'{{"v":{stored.base}}}'
    assert stored.steps == [f'{{"v":{v}}}' for v in range(stored.base + 1, stored.version + 1)]
    return stored.version


@pytest.fixture
async def stores(
    redis_cluster: RedisCluster, cluster_prefix: str
) -> AsyncIterator[tuple[RedisRoomStore, RedisRoomStore]]:
    """Two processes' stores: one commits (waiting for a replica on each commit), one watches."""
    writer = RedisRoomStore(redis_cluster.url, prefix=cluster_prefix, cluster=True, wait_replicas=1)
    watcher = RedisRoomStore(redis_cluster.url, prefix=cluster_prefix, cluster=True)
    await writer.start()
    await watcher.start()
    yield writer, watcher
    await writer.close()
    await watcher.close()


async def _commit_until(
    store: RedisRoomStore, stop: asyncio.Event, acknowledged: list[int], code: str = CODE
) -> None:
    """Commit the room's next version over and over, as a game would, until ``stop``; each
    version the store acknowledged goes in ``acknowledged``. A commit refused for a moved
    version (its answer was lost and it was read back as written) reads the room and goes on."""
    version = 0
    while not stop.is_set():
        if await store.commit(commit(version + 1, code)):
            version += 1
            acknowledged.append(version)
        else:
            version = await _stored_version(store, code)
        await asyncio.sleep(0.005)


async def _more(committing: asyncio.Task[None], acknowledged: list[int], count: int) -> None:
    """Wait until ``count`` more commits are acknowledged (the committing task must go on)."""
    target = len(acknowledged) + count
    while len(acknowledged) < target:
        assert not committing.done(), committing.exception()
        await asyncio.sleep(0.01)


async def _heard_up_to(events: AsyncIterator[StoreEvent], version: int) -> list[StoreEvent]:
    """Events until a commit of ``version`` or later is announced (or a resync after which the
    room would be read)."""
    heard: list[StoreEvent] = []
    while True:
        event = await asyncio.wait_for(anext(events), 20)
        heard.append(event)
        if event.kind == "commit" and event.version >= version:
            return heard


async def test_commits_go_on_through_a_failover_and_none_acknowledged_is_lost(
    redis_cluster: RedisCluster, stores: tuple[RedisRoomStore, RedisRoomStore]
) -> None:
    writer, watcher = stores
    events = watcher.events()
    await watcher.watch(CODE)
    stop, acknowledged = asyncio.Event(), list[int]()
    committing = asyncio.create_task(_commit_until(writer, stop, acknowledged))
    await _more(committing, acknowledged, 20)
    primary = redis_cluster.primary_of_key(writer.channel_of(CODE))
    await asyncio.to_thread(redis_cluster.fail_over, primary)
    await _more(committing, acknowledged, 20)
    stop.set()
    await committing
    assert acknowledged == list(range(1, len(acknowledged) + 1))
    assert await _stored_version(writer) == acknowledged[-1], (
        "the new primary holds every acknowledged commit"
    )
    heard = await _heard_up_to(events, acknowledged[-1])
    assert StoreEvent("resync", CODE) in heard, "the watcher was told to read the room again"
    # The new primary has no replica until the old one comes back: commits since are
    # acknowledged without one (and counted), not refused.
    assert writer.unreplicated > 0


async def test_a_room_whose_slot_moves_during_play_loses_nothing(
    redis_cluster: RedisCluster, stores: tuple[RedisRoomStore, RedisRoomStore]
) -> None:
    writer, watcher = stores
    events = watcher.events()
    await watcher.watch(CODE)
    for number in range(5):
        assert await writer.chat(CODE, f"line {number}", keep=10) is False  # no room yet
    stop, acknowledged = asyncio.Event(), list[int]()
    committing = asyncio.create_task(_commit_until(writer, stop, acknowledged))
    await _more(committing, acknowledged, 10)
    assert await writer.chat(CODE, "said before the move", keep=10)
    slot = redis_cluster.keyslot(writer.channel_of(CODE))
    source = redis_cluster.primary_of_slot(slot)
    target = next(port for port in redis_cluster.primaries() if port != source)
    move = await asyncio.to_thread(redis_cluster.begin_slot_move, slot, target)
    await _more(committing, acknowledged, 10)  # while the slot is half moved: ASK and TRYAGAIN
    # One of the room's two keys moved, the other not yet: Redis refuses the commit script
    # (TRYAGAIN) until the rest follows, as it does between two batches of a resharding.
    assert await asyncio.to_thread(move.migrate, 1) == 1
    await asyncio.sleep(0.3)
    assert await asyncio.to_thread(move.migrate) == 1
    await _more(committing, acknowledged, 10)  # every key on the target: ASK
    await asyncio.to_thread(move.finish)
    await _more(committing, acknowledged, 10)
    stop.set()
    await committing
    assert redis_cluster.primary_of_key(writer.channel_of(CODE)) == target
    assert acknowledged == list(range(1, len(acknowledged) + 1))
    assert await _stored_version(writer) == acknowledged[-1]
    assert await writer.chat_lines(CODE) == ["said before the move"]
    heard = await _heard_up_to(events, acknowledged[-1])
    assert StoreEvent("resync", CODE) in heard, "the moved subscription was made again"


def _index_writes(store: RedisRoomStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What each of the store's writes to a bucket's indexes was for, in order: ``every``
    entry (``scripts/index.lua``) or the ``wake`` time alone (``scripts/index_wake.lua``)."""
    writes: list[str] = []
    run = store._nodes.run

    async def counted(
        script: Script, keys: Mapping[str, str], args: Mapping[str, Any], *, retry: bool
    ) -> Any:
        if script is redis_store._INDEX:
            writes.append("every")
        elif script is redis_store._INDEX_WAKE:
            writes.append("wake")
        return await run(script, keys, args, retry=retry)

    monkeypatch.setattr(store._nodes, "run", counted)
    return writes


def _dies_before_its_indexes(store: RedisRoomStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store's process dies after the room's half of each commit, before its bucket's."""
    run = store._nodes.run

    async def dying(
        script: Script, keys: Mapping[str, str], args: Mapping[str, Any], *, retry: bool
    ) -> Any:
        if script in (redis_store._INDEX, redis_store._INDEX_WAKE):
            raise ConnectionError("the process died between the two halves")
        return await run(script, keys, args, retry=retry)

    monkeypatch.setattr(store._nodes, "run", dying)


def _lobby(version: int, *, listed: bool, wake_at: float | None = None) -> Commit:
    return Commit(
        code=CODE,
        version=version,
        data="{}",
        wake_at=wake_at,
        listing='"listed"' if listed else None,
        ttl_seconds=300,
        waiting=listed,
    )


async def test_a_move_in_play_writes_its_bucket_only_when_its_wake_time_moves(
    stores: tuple[RedisRoomStore, RedisRoomStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bucket is on another shard: a room listed or waiting (or just no longer) writes
    every entry, a move in play only a wake time that moved, else nothing."""
    _, store = stores
    writes = _index_writes(store, monkeypatch)
    assert await store.commit(_lobby(1, listed=True))
    assert await store.commit(_lobby(2, listed=False))  # the game starts
    assert await store.commit(_lobby(3, listed=False))
    assert await store.commit(_lobby(4, listed=False, wake_at=100.0))
    assert await store.commit(_lobby(5, listed=False, wake_at=100.0))
    assert await store.commit(_lobby(6, listed=False))
    assert writes == ["every", "every", "wake", "wake"]
    assert await store.listed_rooms(offset=0, limit=10) == ([], 0)
    assert await store.waiting_rooms() == 0
    assert await store.due(150.0) == ([], None)


async def test_a_process_dying_between_a_commits_halves_leaves_no_listing_past_the_next_commit(
    stores: tuple[RedisRoomStore, RedisRoomStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The room's half written, its bucket's not (twice in a row): the room remembers that
    its entries were never confirmed, and its next commit, from another process, writes every
    entry again although nothing of the listing changed in it."""
    healthy, dying = stores
    assert await healthy.commit(_lobby(1, listed=True))
    _dies_before_its_indexes(dying, monkeypatch)
    for version in (2, 3):
        with pytest.raises(ConnectionError):
            await dying.commit(_lobby(version, listed=False))
        assert await healthy.listed_rooms(offset=0, limit=10) == (['"listed"'], 1), "stale"
    writes = _index_writes(healthy, monkeypatch)
    assert await healthy.commit(_lobby(4, listed=False))
    assert writes == ["every"]
    assert await healthy.listed_rooms(offset=0, limit=10) == ([], 0)
    assert await healthy.waiting_rooms() == 0
    assert await healthy.commit(_lobby(5, listed=False))
    assert writes == ["every"], "confirmed: the next move writes nothing"
