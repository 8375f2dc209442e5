"""The RoomStore contract, held by the memory store and by Redis alike."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator

import pytest
import redis
import redis.asyncio

from app.store import snapshots
from app.store.base import Commit, RoomStore, StoredRoom, StoreEvent
from app.store.memory import MemoryRoomStore
from app.store.redis import TTL_SLACK, RedisRoomStore
from tests.app.conftest import REDIS_URL, base_settings
from tests.app.live import Client, bearer, connect_client, create_room, live_server
from tests.redis_cluster import RedisCluster


def _redis_store(request: pytest.FixtureRequest, kind: str) -> RedisRoomStore:
    """A store on the test Redis or on the session's cluster, with the test's own prefix."""
    if kind == "cluster":
        cluster: RedisCluster = request.getfixturevalue("redis_cluster")
        prefix: str = request.getfixturevalue("cluster_prefix")
        return RedisRoomStore(cluster.url, prefix=prefix, cluster=True)
    return RedisRoomStore(REDIS_URL, prefix=request.getfixturevalue("redis_prefix"))


@pytest.fixture(
    params=[
        "memory",
        pytest.param("redis", marks=pytest.mark.redis),
        pytest.param("cluster", marks=pytest.mark.redis),
    ]
)
async def store(request: pytest.FixtureRequest) -> AsyncIterator[RoomStore]:
    room_store: RoomStore
    if request.param == "memory":
        room_store = MemoryRoomStore()
    else:
        room_store = _redis_store(request, request.param)
    await room_store.start()
    yield room_store
    await room_store.close()


def commit(
    version: int,
    data: str = "{}",
    *,
    code: str = "ROOM0001",
    wake_at: float | None = None,
    listing: str | None = None,
    ttl: int | None = 60,
    waiting: bool = False,
    step: bool = False,
) -> Commit:
    return Commit(
        code=code,
        version=version,
        data=data,
        wake_at=wake_at,
        listing=listing,
        ttl_seconds=ttl,
        waiting=waiting,
        step=step,
    )


async def snapshot_of(store: RoomStore, code: str = "ROOM0001") -> str | None:
    """The room's snapshot, checked to have no moves after it."""
    stored = await store.load(code)
    if stored is None:
        return None
    assert stored.steps == [] and stored.base == stored.version
    return stored.snapshot


async def next_event(events: AsyncIterator[StoreEvent]) -> StoreEvent:
    return await asyncio.wait_for(anext(events), 5)


async def test_a_commit_is_a_compare_and_set_on_the_version(store: RoomStore) -> None:
    assert await store.load("ROOM0001") is None
    assert await store.commit(commit(1, '{"v":1}'))
    assert not await store.commit(commit(1, '{"v":"again"}')), "a room is created only once"
    assert not await store.commit(commit(3, '{"v":3}')), "no skipping a version"
    assert await store.commit(commit(2, '{"v":2}'))
    assert not await store.commit(commit(2, '{"v":"racing"}')), "the loser of a race is refused"
    assert await snapshot_of(store) == '{"v":2}'


async def test_moves_are_appended_to_the_snapshot_and_a_snapshot_drops_them(
    store: RoomStore,
) -> None:
    assert await store.commit(commit(1, "snapshot 1"))
    assert await store.commit(commit(2, "move 2", step=True))
    assert not await store.commit(commit(2, "racing move 2", step=True)), "compare-and-set"
    assert await store.commit(commit(3, "move 3", step=True))
    assert await store.commit(commit(4, "move 4", step=True))
    assert await store.load("ROOM0001") == StoredRoom(
        4, "snapshot 1", 1, ["move 2", "move 3", "move 4"]
    )
    # A reader holding version 3 is sent the moves after it only; one holding none, all.
    assert await store.load("ROOM0001", after=3) == StoredRoom(4, None, 3, ["move 4"])
    assert await store.load("ROOM0001", after=4) == StoredRoom(4, None, 4, [])
    assert await store.load("ROOM0001", after=1) == StoredRoom(
        4, None, 1, ["move 2", "move 3", "move 4"]
    )
    assert await store.commit(commit(5, "snapshot 5"))
    assert await store.load("ROOM0001", after=3) == StoredRoom(5, "snapshot 5", 5, [])
    assert await store.commit(commit(6, "move 6", step=True))
    assert await store.load("ROOM0001", after=0) == StoredRoom(6, "snapshot 5", 5, ["move 6"])


@pytest.mark.redis
async def test_a_snapshot_is_stored_compressed_and_read_as_the_rooms_text(
    redis_prefix: str,
) -> None:
    text = '{"room":"ROOM0001","log":[' + ",".join(['{"event":"play"}'] * 200) + "]}"
    store = RedisRoomStore(REDIS_URL, prefix=redis_prefix)
    try:
        assert await store.commit(commit(1, text))
        assert await store.commit(commit(2, "move 2", step=True))
        async with redis.asyncio.from_url(REDIS_URL) as client:
            data, move = await client.hmget(f"{redis_prefix}{{ROOM0001}}:room", ["data", "m2"])
        assert data.startswith(snapshots.COMPRESSED.encode()) and len(data) < len(text) / 4
        assert move == b"move 2", "a move is stored as it is"
        assert await store.load("ROOM0001") == StoredRoom(2, text, 1, ["move 2"])
    finally:
        await store.close()


@pytest.fixture
async def listener(store: RoomStore, request: pytest.FixtureRequest) -> AsyncIterator[RoomStore]:
    """Whose subscription hears ``store``'s commits: another process's store on Redis,
    ``store`` itself in memory."""
    if not isinstance(store, RedisRoomStore):
        yield store
        return
    other = _redis_store(request, "cluster" if store.cluster else "redis")
    await other.start()
    yield other
    await other.close()


async def test_commits_and_messages_reach_the_subscription_in_order(
    store: RoomStore, listener: RoomStore
) -> None:
    events = listener.events()
    await listener.watch("ROOM0001")
    await store.commit(commit(1, '{"v":1}'))
    await store.publish("ROOM0001", '{"type":"chat"}')
    assert await next_event(events) == StoreEvent("commit", "ROOM0001", version=1)
    assert await next_event(events) == StoreEvent("message", "ROOM0001", '{"type":"chat"}')
    await events.aclose()  # type: ignore[attr-defined]


@pytest.mark.redis
async def test_redis_a_process_hears_only_the_rooms_it_watches(redis_prefix: str) -> None:
    """Each room has its own channel: a process subscribes to it while it serves the room,
    and hears nothing of the others (it would pay to read each announcement)."""
    one = RedisRoomStore(REDIS_URL, prefix=redis_prefix)
    other = RedisRoomStore(REDIS_URL, prefix=redis_prefix)
    heard = other.events()
    try:
        await one.start()
        await other.start()
        await other.watch("ROOM0002")
        assert await one.commit(commit(1, code="ROOM0001"))  # not watched: not heard
        assert await one.commit(commit(1, code="ROOM0002"))
        assert await next_event(heard) == StoreEvent("commit", "ROOM0002", version=1)
        other.unwatch("ROOM0002")
        await other.watch("ROOM0003")
        assert await one.commit(commit(2, code="ROOM0002"))  # no longer watched
        await one.publish("ROOM0001", "not watched either")
        await one.publish("ROOM0003", "watched")
        assert await next_event(heard) == StoreEvent("message", "ROOM0003", "watched")
        async with redis.asyncio.from_url(REDIS_URL) as client:
            channels = await client.pubsub_channels(f"{redis_prefix}*")
        assert channels == [other.channel_of("ROOM0003").encode()]
    finally:
        await heard.aclose()  # type: ignore[attr-defined]
        await one.close()
        await other.close()


async def test_commits_in_flight_at_once_are_each_answered_for_their_own_room(
    store: RoomStore,
) -> None:
    """Many rooms' commits share a connection and wait on it together: each gets its own
    answer, and of several racing for one version exactly one wins."""
    codes = [f"ROOM{number:04d}" for number in range(30)]
    assert all(await asyncio.gather(*(store.commit(commit(1, code=c)) for c in codes)))
    racing = [commit(2, f'{{"by":{n}}}', code=codes[0]) for n in range(5)]
    others = [commit(2, '{"v":2}', code=c) for c in codes[1:]]
    results = await asyncio.gather(*(store.commit(c) for c in [*racing, *others]))
    assert sum(results[: len(racing)]) == 1
    assert all(results[len(racing) :])
    winner = racing[results.index(True)]
    assert await snapshot_of(store, codes[0]) == winner.data
    assert [await snapshot_of(store, c) for c in codes[1:]] == ['{"v":2}'] * len(others)


async def test_wake_times_index_rooms_that_need_a_look(store: RoomStore) -> None:
    await store.commit(commit(1, code="AAAAAAAA", wake_at=100.0))
    await store.commit(commit(1, code="BBBBBBBB", wake_at=200.0))
    await store.commit(commit(1, code="CCCCCCCC"))
    assert await store.due(150.0) == (["AAAAAAAA"], 100.0)
    await store.commit(commit(2, code="AAAAAAAA"))
    assert await store.due(150.0) == ([], 200.0)


async def test_a_wake_time_is_settled_unless_a_newer_version_indexed_its_own(
    store: RoomStore,
) -> None:
    await store.commit(commit(1, code="AAAAAAAA", wake_at=100.0))
    await store.settle_wake("AAAAAAAA", 1, 300.0)
    assert await store.due(150.0) == ([], 300.0)
    await store.commit(commit(2, code="AAAAAAAA", wake_at=120.0))
    await store.settle_wake("AAAAAAAA", 1, None)  # a look at version 1, late
    assert await store.due(150.0) == (["AAAAAAAA"], 120.0)
    await store.settle_wake("AAAAAAAA", 2, None)
    assert await store.due(150.0) == ([], None)
    # The next commit's wake time is the one version 2 had, before it was settled away.
    await store.commit(commit(3, code="AAAAAAAA", wake_at=120.0))
    assert await store.due(150.0) == (["AAAAAAAA"], 120.0)


async def test_a_wake_time_settled_away_comes_back_with_the_next_commit_that_has_it(
    store: RoomStore,
) -> None:
    """A store that sends its wake index only what changed compares with the time put back by
    ``settle_wake``, not with the one the last commit asked for."""
    await store.commit(commit(1, code="AAAAAAAA", wake_at=100.0))
    await store.settle_wake("AAAAAAAA", 1, None)
    assert await store.due(150.0) == ([], None)
    again = dataclasses.replace(commit(2, code="AAAAAAAA", wake_at=100.0), previous_wake_at=100.0)
    await store.commit(again)
    assert await store.due(150.0) == (["AAAAAAAA"], 100.0)


async def test_listed_rooms_follow_each_commit(store: RoomStore) -> None:
    await store.commit(commit(1, code="AAAAAAAA", listing='"a"'))
    await store.commit(commit(1, code="BBBBBBBB", listing='"b"', ttl=120))
    assert await store.listed_rooms(offset=0, limit=50) == (['"b"', '"a"'], 2)
    assert await store.listed_rooms(offset=1, limit=1) == (['"a"'], 2)
    await store.commit(commit(2, code="AAAAAAAA", listing=None))
    assert await store.listed_rooms(offset=0, limit=50) == (['"b"'], 1)


async def test_expired_rooms_leave_the_list_and_the_waiting_count(store: RoomStore) -> None:
    await store.commit(commit(1, code="AAAAAAAA", listing='"a"', ttl=1, waiting=True))
    await store.commit(commit(1, code="BBBBBBBB", listing='"b"', waiting=True))
    await store.commit(commit(1, code="CCCCCCCC", waiting=False))
    assert await store.waiting_rooms() == 2
    deadline = time.monotonic() + 5
    while await store.load("AAAAAAAA") is not None:
        assert time.monotonic() < deadline, "the room never expired"
        await asyncio.sleep(0.1)
    assert await store.listed_rooms(offset=0, limit=50) == (['"b"'], 1)
    assert await store.waiting_rooms() == 1
    await store.commit(commit(2, code="BBBBBBBB", waiting=False))
    assert await store.waiting_rooms() == 0


async def test_a_claim_is_granted_once_until_it_expires(store: RoomStore) -> None:
    assert await store.claim("ROOM0001:7", 5)
    assert not await store.claim("ROOM0001:7", 5)
    assert await store.claim("ROOM0001:8", 5)


async def test_hits_are_counted_per_key_within_the_window(store: RoomStore) -> None:
    assert [await store.hit("join:1.2.3.4", limit=2, window_seconds=60) for _ in range(3)] == [
        True,
        True,
        False,
    ]
    assert await store.hit("join:5.6.7.8", limit=2, window_seconds=60)


async def test_held_members_are_kept_per_key_until_released_or_their_time_runs_out(
    store: RoomStore,
) -> None:
    await store.hold_place("playing:1.2.3.4", "AAAAAAAA", seconds=60)
    await store.hold_place("playing:1.2.3.4", "BBBBBBBB", seconds=0.2)
    await store.hold_place("playing:5.6.7.8", "CCCCCCCC", seconds=60)
    assert sorted(await store.places("playing:1.2.3.4")) == ["AAAAAAAA", "BBBBBBBB"]
    await store.free_place("playing:1.2.3.4", "AAAAAAAA")
    await asyncio.sleep(0.3)  # the short hold's own time running out is what is tested
    assert await store.places("playing:1.2.3.4") == []
    assert await store.places("playing:5.6.7.8") == ["CCCCCCCC"]


async def test_held_places_are_counted_in_one_read_and_a_short_hold_keeps_the_long_ones(
    store: RoomStore,
) -> None:
    """Issue 44, hole 7: the games ceiling is a count of a held set (no member read), and a
    short hold (a table nobody opened) never ends the set's life before a long one's (in
    Redis the set's time to live followed the last hold: the long holds went with it)."""
    await store.hold_place("games_in_play", "AAAAAAAA", seconds=60)
    await store.hold_place("games_in_play", "BBBBBBBB", seconds=0.2)
    assert await store.count_places("games_in_play") == 2
    await asyncio.sleep(1.5)  # past the short hold and the one second it gave the set
    assert await store.count_places("games_in_play") == 1
    assert await store.places("games_in_play") == ["AAAAAAAA"]


async def test_the_memory_store_frees_expired_rooms_on_a_clock() -> None:
    """Issue 30, point 6: rooms nobody asks about again (and their chat) are freed."""
    store = MemoryRoomStore(sweep_seconds=0.05)
    await store.start()
    try:
        for index in range(30):
            code = f"ROOM{index:04d}"
            assert await store.commit(commit(1, code=code, ttl=1, waiting=True))
            assert await store.chat(code, '{"text": "hello"}', keep=100)
        assert store.rooms_in_memory == 30
        # Nothing announces a sweep (it is the clock's own work): look until it has run.
        async with asyncio.timeout(5):
            while store.rooms_in_memory:  # noqa: ASYNC110
                await asyncio.sleep(0.05)
        assert await store.waiting_rooms() == 0
    finally:
        await store.close()


@pytest.mark.redis
async def test_redis_keeps_a_room_with_unrecorded_games_and_expires_the_rest(
    redis_prefix: str,
) -> None:
    store = RedisRoomStore(REDIS_URL, prefix=redis_prefix)
    await store.commit(commit(1, code="AAAAAAAA", ttl=60))
    await store.commit(commit(1, code="BBBBBBBB", ttl=None))
    async with redis.asyncio.from_url(REDIS_URL) as client:
        assert 59 <= await client.ttl(f"{redis_prefix}{{AAAAAAAA}}:room") <= 60 + 60 // TTL_SLACK
        assert await client.ttl(f"{redis_prefix}{{BBBBBBBB}}:room") == -1
    await store.close()


@pytest.mark.redis
async def test_redis_renews_a_rooms_time_to_live_only_once_its_extra_is_spent(
    redis_prefix: str,
) -> None:
    """A commit sends ``EXPIRE`` only when the room would otherwise live less than its time
    to live from now, or more than that and its extra (``TTL_SLACK``): not once a move. Its
    chat list is renewed with it."""
    now = [1000.0]
    store = RedisRoomStore(REDIS_URL, prefix=redis_prefix, clock=lambda: now[0])
    room, chat = f"{redis_prefix}{{ROOM0001}}:room", f"{redis_prefix}{{ROOM0001}}:chat"
    longest = 600 + 600 // TTL_SLACK
    try:
        assert await store.commit(commit(1, ttl=600))
        assert await store.chat("ROOM0001", '{"text":"hi"}', keep=10)
        async with redis.asyncio.from_url(REDIS_URL) as client:
            assert longest - 1 <= await client.ttl(room) <= longest
            await client.expire(room, 30)  # as if Redis's clock had moved on, not the store's
            await client.expire(chat, 30)
            now[0] += 600 // TTL_SLACK - 1  # the extra is not spent yet
            assert await store.commit(commit(2, "move 2", ttl=600, step=True))
            assert await client.ttl(room) <= 30, "not renewed"
            now[0] += 2  # now it is
            assert await store.commit(commit(3, "move 3", ttl=600, step=True))
            assert longest - 1 <= await client.ttl(room) <= longest, "renewed"
            assert longest - 1 <= await client.ttl(chat) <= longest, "with its chat"
            assert await store.commit(commit(4, ttl=60))  # back to a shorter time to live
            assert await client.ttl(room) <= 60 + 60 // TTL_SLACK
            assert await store.commit(commit(5, ttl=None))
            assert await client.ttl(room) == -1
            assert await client.ttl(chat) == -1
    finally:
        await store.close()


@pytest.mark.redis
async def test_redis_commits_go_on_after_its_scripts_are_flushed(redis_prefix: str) -> None:
    """As after a restart of Redis: the commit script is no longer cached there."""
    store = RedisRoomStore(REDIS_URL, prefix=redis_prefix)
    try:
        assert await store.commit(commit(1, '{"v":1}'))
        async with redis.asyncio.from_url(REDIS_URL) as client:
            await client.script_flush()
        assert await store.commit(commit(2, '{"v":2}'))
        assert not await store.commit(commit(2, '{"v":"again"}'))
        assert await snapshot_of(store, "ROOM0001") == '{"v":2}'
    finally:
        await store.close()


@pytest.mark.redis
async def test_redis_commits_go_on_after_their_connections_are_killed(redis_prefix: str) -> None:
    store = RedisRoomStore(REDIS_URL, prefix=redis_prefix)
    rounds = 4
    try:
        for version in range(1, rounds + 1):  # the commit connection is made
            assert await store.commit(commit(version))
        async with redis.asyncio.from_url(REDIS_URL) as client:
            name = redis_prefix.strip(":")
            ours = [c for c in await client.client_list() if c["name"] == name]
            assert ours, "the store names its connections after its prefix"
            for connection in ours:
                await client.client_kill_filter(_id=connection["id"])
        await asyncio.sleep(0.1)  # the server's close arrives
        for version in range(rounds + 1, 2 * rounds + 1):
            assert await store.commit(commit(version, f'{{"v":{version}}}'))
        assert await snapshot_of(store, "ROOM0001") == f'{{"v":{2 * rounds}}}'
    finally:
        await store.close()


CONVERGE_SECONDS = 1.0
"""After the subscription is lost, how soon every connection must show the latest state."""


@pytest.mark.redis
async def test_every_connection_converges_after_the_subscription_is_lost(
    redis_prefix: str,
) -> None:
    settings = base_settings(redis_url=REDIS_URL, redis_prefix=redis_prefix)
    async with (
        live_server(settings) as one,
        live_server(settings) as other,
        one.http() as http,
    ):
        code, host = await create_room(http, seats=2, spectators=True)
        bob = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()
        await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        clients = [
            await connect_client(one, code, host),
            await connect_client(other, code, bob["token"]),
            await connect_client(one, code),
            await connect_client(other, code),
        ]
        for client in clients:
            await client.wait_for("state")
        async with redis.asyncio.from_url(REDIS_URL) as admin:
            ours = await admin.client_list(_type="pubsub")
            name = redis_prefix.strip(":")
            ids = [client["id"] for client in ours if client["name"] == name]
            assert len(ids) == 2, "each process has one subscription"
            for client_id in ids:
                await admin.client_kill_filter(_id=client_id)
        # Committed while the subscriptions are down: only a resync can bring it.
        latest = await one.runtime.service.update(code, lambda room: room.clone())
        started = time.monotonic()

        async def converged(client: Client) -> None:
            await client.wait_for("state", lambda m: m["version"] >= latest.version)

        await asyncio.wait_for(
            asyncio.gather(*(converged(client) for client in clients)), CONVERGE_SECONDS
        )
        assert time.monotonic() - started < CONVERGE_SECONDS
        for client in clients:
            await client.close()


async def test_a_redis_that_never_answers_fails_each_call_in_bounded_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No socket timeout is set on the connections: each call is bounded as a whole."""
    import app.store.redis as redis_store

    monkeypatch.setattr(redis_store, "_COMMAND_SECONDS", 0.3)
    accepted: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(writer)  # reads nothing back, answers nothing

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    store = RedisRoomStore(f"redis://127.0.0.1:{port}/0", prefix="silent:")
    try:
        started = time.monotonic()
        with pytest.raises(OSError):
            await store.load("ABCDE")
        commit = Commit(
            code="ABCDE", version=1, data="{}", wake_at=None, listing=None, ttl_seconds=1
        )
        with pytest.raises(OSError):
            await store.commit(commit)
        assert time.monotonic() - started < 3
        assert accepted
    finally:
        await store.close()
        server.close()
        for writer in accepted:
            writer.close()


async def test_a_commit_to_a_redis_gone_quiet_times_out_and_drops_its_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Redis that takes the connection but never answers the commit: the commit fails in
    the store's own time, its connection is closed (whatever else waited on it fails with it),
    and the next commit opens another."""
    import hiredis

    import app.store.redis as redis_store

    monkeypatch.setattr(redis_store, "_COMMAND_SECONDS", 0.2)
    opened: list[asyncio.StreamReader] = []
    closed = asyncio.Event()

    async def quiet(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        opened.append(reader)
        commands = hiredis.Reader()
        while data := await reader.read(65536):
            commands.feed(data)
            while (command := commands.gets()) is not False:
                if command[0] != b"EVALSHA":  # the handshake is answered, the commit never
                    writer.write(b"+OK\r\n")
        closed.set()
        writer.close()

    server = await asyncio.start_server(quiet, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    store = RedisRoomStore(f"redis://127.0.0.1:{port}/0", prefix="quiet:")
    try:
        with pytest.raises(TimeoutError):
            await store.commit(commit(1))
        await asyncio.wait_for(closed.wait(), 1)
        with pytest.raises(TimeoutError):
            await store.commit(commit(1))
        assert len(opened) == 2
    finally:
        await store.close()
        server.close()
        await server.wait_closed()


@pytest.mark.redis
async def test_a_connection_answered_in_time_outlives_many_reply_bounds() -> None:
    """The watch on a commit connection follows its oldest command: commands answered in
    time, over many times the bound, never trip it; one left unanswered does."""
    from app.resp.connection import connect

    connection = await connect(REDIS_URL, name="watch-test", reply_seconds=0.2)
    try:
        started = time.monotonic()
        while time.monotonic() - started < 1.0:
            assert await connection.call("PING") == "PONG"
            await asyncio.sleep(0.03)
        assert connection.usable
        # BLPOP on an empty list answers after a second: past the bound.
        with pytest.raises(TimeoutError):
            await connection.call("BLPOP", "watch-test:nothing", 1)
        assert not connection.usable
    finally:
        connection.close()


async def test_a_subscription_to_a_node_gone_silent_is_made_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A node that keeps the connection but stops answering (a network partition) is noticed
    by a PING it does not answer: the room is subscribed to again, and re-read."""
    import hiredis

    import app.store.channels as channels

    monkeypatch.setattr(channels, "_QUIET_SECONDS", 0.2)
    opened: list[asyncio.StreamWriter] = []

    async def partitioned(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        opened.append(writer)
        commands = hiredis.Reader()
        while data := await reader.read(65536):
            commands.feed(data)
            while (command := commands.gets()) is not False:
                if command[0] == b"SUBSCRIBE":
                    channel = command[1]
                    writer.write(
                        b"*3\r\n$9\r\nsubscribe\r\n$%d\r\n%s\r\n:1\r\n" % (len(channel), channel)
                    )
                elif command[0] != b"PING":  # the handshake is answered, a PING never
                    writer.write(b"+OK\r\n")

    server = await asyncio.start_server(partitioned, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    store = RedisRoomStore(f"redis://127.0.0.1:{port}/0", prefix="partitioned:")
    events = store.events()
    try:
        await store.watch("ROOM0001")
        assert len(opened) == 1
        assert await next_event(events) == StoreEvent("resync", "ROOM0001")
        assert len(opened) == 2, "subscribed again on a new connection"
    finally:
        await events.aclose()  # type: ignore[attr-defined]
        await store.close()
        server.close()
        for writer in opened:
            writer.close()


@pytest.mark.redis
async def test_a_commit_waiting_for_replicas_holds_up_no_read(redis_prefix: str) -> None:
    """``WAIT`` blocks the connection it is sent on: commits that wait go on connections of
    their own, so reads (and other rooms' commits) never queue behind one. The test Redis has
    no replica, so each ``WAIT`` lasts its whole timeout and the commit is counted."""
    store = RedisRoomStore(REDIS_URL, prefix=redis_prefix, wait_replicas=1, wait_ms=1000)
    try:
        await store.start()
        assert await store.commit(commit(1, '{"v":1}'))
        assert store.unreplicated == 1
        waiting = asyncio.create_task(store.commit(commit(2, '{"v":2}')))
        other = asyncio.create_task(store.commit(commit(1, code="ROOM0002")))
        await asyncio.sleep(0.1)  # both are sent and waiting for a replica
        assert await snapshot_of(store, "ROOM0001") == '{"v":2}', "written before the WAIT"
        assert not waiting.done() and not other.done()
        assert await waiting and await other
        assert store.unreplicated == 3
    finally:
        await store.close()


@pytest.mark.redis
async def test_a_commit_whose_answer_is_lost_is_read_back_and_never_sent_again(
    redis_prefix: str,
) -> None:
    """The commit (a move appended, then a snapshot, compressed as the store writes it)
    reaches Redis and runs, but the connection breaks before its answer comes back: the store
    reads the room back, finds its own move or snapshot there and says so, without sending it
    again: each is applied once."""
    import hiredis
    from redis.asyncio.connection import parse_url

    from app.store.redis import _COMMIT_ONE_NODE

    target = parse_url(REDIS_URL)
    commit_runs = 0
    answers_dropped = 0

    async def proxy(client_reader: asyncio.StreamReader, client: asyncio.StreamWriter) -> None:
        nonlocal commit_runs, answers_dropped
        upstream_reader, upstream = await asyncio.open_connection(target["host"], target["port"])
        swallow = asyncio.Event()

        async def answers() -> None:
            nonlocal answers_dropped
            while data := await upstream_reader.read(65536):
                if swallow.is_set():  # the commit's answer: lost with the connection
                    answers_dropped += 1
                    break
                client.write(data)
            client.close()
            upstream.close()

        answering = asyncio.create_task(answers())
        commands = hiredis.Reader()
        while data := await client_reader.read(65536):
            commands.feed(data)
            while (command := commands.gets()) is not False:
                if command[:2] == [b"EVALSHA", _COMMIT_ONE_NODE.sha.encode()]:
                    commit_runs += 1
                    if commit_runs in (2, 3):
                        swallow.set()
            upstream.write(data)
        upstream.close()
        await answering

    server = await asyncio.start_server(proxy, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    store = RedisRoomStore(f"redis://127.0.0.1:{port}/{target['db']}", prefix=redis_prefix)
    try:
        assert await store.commit(commit(1, "snapshot 1"))
        assert await store.commit(commit(2, "move 2", step=True)), "read back as written"
        assert answers_dropped == 1, "the second commit's answer was lost"
        assert commit_runs == 2, "and it was not sent again"
        assert await store.commit(commit(3, "snapshot 3")), "read back as written"
        assert (answers_dropped, commit_runs) == (2, 3)
        assert await store.commit(commit(4, "move 4", step=True))
        assert await store.commit(commit(5, "move 5", step=True))
        assert await store.load("ROOM0001") == StoredRoom(
            5, "snapshot 3", 3, ["move 4", "move 5"]
        ), "each commit is in the room once"
    finally:
        await store.close()
        server.close()


async def test_the_memory_store_sweep_leaves_nothing_of_expired_rooms() -> None:
    """Issue 44 point 10: once their time has run out, rooms (read after they expired or
    not), their chat, wake, listing and waiting entries, claims, counters and held places are
    all freed by the sweep, whether or not anyone lists the rooms again."""
    now = [1000.0]
    store = MemoryRoomStore(clock=lambda: now[0])
    rooms = 500
    for index in range(rooms):
        code = f"ROOM{index:04d}"
        listing = f'{{"code": "{code}"}}'
        assert await store.commit(
            commit(1, code=code, ttl=60, waiting=True, listing=listing, wake_at=now[0] + 30)
        )
        assert await store.chat(code, '{"text": "hello"}', keep=100)
        assert await store.claim(f"wake:{code}", 5)
        assert await store.hit(
            f"join:10.0.{index // 256}.{index % 256}", limit=5, window_seconds=60
        )
        await store.hold_place(f"waiting:10.0.0.{index % 200}", code, seconds=60)
    assert store.entries == rooms * 8
    now[0] += 61
    for index in range(0, rooms, 2):  # read once they expired: the read lets the room go
        assert await store.load(f"ROOM{index:04d}") is None
    store.sweep()
    assert store.entries == 0


@pytest.mark.redis
async def test_redis_sweep_drops_expired_rooms_from_every_buckets_lists(
    redis_prefix: str,
) -> None:
    """Issue 44 point 10: the buckets' waiting sets and public lists kept expired rooms'
    entries until someone counted or listed them; the sweep drops them, no reader needed."""
    now = [1000.0]
    store = RedisRoomStore(REDIS_URL, prefix=redis_prefix, clock=lambda: now[0])
    rooms = 200
    try:
        for index in range(rooms):
            code = f"ROOM{index:04d}"
            listing = f'{{"code": "{code}"}}'
            assert await store.commit(commit(1, code=code, ttl=60, waiting=True, listing=listing))
        async with redis.asyncio.Redis.from_url(REDIS_URL) as client:

            async def entries() -> int:
                total = 0
                for key in await client.keys(f"{redis_prefix}{{bucket-*}}:*"):
                    kind = (await client.type(key)).decode()
                    if kind == "zset":
                        total += await client.zcard(key)
                    elif kind == "hash":
                        total += await client.hlen(key)
                return total

            assert await entries() == rooms * 3
            now[0] += 61
            assert await store.sweep() == rooms
            assert await entries() == 0
    finally:
        await store.close()


@pytest.mark.redis
async def test_redis_sweeps_its_lists_on_its_own_clock(redis_prefix: str) -> None:
    """Started, the Redis store sweeps expired rooms' index entries by itself (the same
    ``Sweeper`` as the memory stores'), with no reader and no call to ``sweep``."""
    now = [1000.0]
    store = RedisRoomStore(REDIS_URL, prefix=redis_prefix, clock=lambda: now[0], sweep_seconds=0.05)
    await store.start()
    try:
        assert await store.commit(commit(1, code="SWEPT001", ttl=60, waiting=True))
        assert await store.waiting_rooms() == 1
        now[0] += 61
        async with redis.asyncio.Redis.from_url(REDIS_URL) as client:
            waiting = [key for key in await client.keys(f"{redis_prefix}{{bucket-*}}:waiting")]
            assert waiting
            async with asyncio.timeout(5):
                while sum([await client.zcard(key) for key in waiting]):  # noqa: ASYNC110
                    await asyncio.sleep(0.05)
    finally:
        await store.close()


async def test_a_room_is_restored_only_where_none_is_and_indexed(store: RoomStore) -> None:
    due = time.time() - 1
    assert await store.restore("PARKED01", version=7, data="{}", wake_at=due, ttl_seconds=60)
    assert await store.load("PARKED01") == StoredRoom(7, "{}", 7, [])
    assert "PARKED01" in (await store.due(time.time()))[0]
    assert not await store.restore("PARKED01", version=3, data="[]", wake_at=None, ttl_seconds=60)
    assert await store.load("PARKED01") == StoredRoom(7, "{}", 7, [])

    assert await store.commit(commit(8, "[1]", code="PARKED01", step=True))
    assert await store.load("PARKED01") == StoredRoom(8, "{}", 7, ["[1]"])


async def test_a_room_is_restored_with_the_chat_it_was_parked_with(store: RoomStore) -> None:
    lines = ['{"text":"first"}', '{"text":"second"}']
    assert await store.restore(
        "PARKED03", version=4, data="{}", wake_at=None, ttl_seconds=60, chat=lines
    )
    assert await store.chat_lines("PARKED03") == lines
    assert await store.chat("PARKED03", '{"text":"third"}', keep=3)
    assert await store.chat("PARKED03", '{"text":"fourth"}', keep=3)
    assert (
        await store.chat_lines("PARKED03")
        == [*lines[1:], '{"text":"third"}', '{"text":"fourth"}'][-3:]
    )

    assert await store.drop("PARKED03", version=4, chat=await store.chat_lines("PARKED03"))
    assert await store.restore("PARKED03", version=4, data="{}", wake_at=None, ttl_seconds=60)
    assert await store.chat_lines("PARKED03") == [], "a room parked without chat has none"


async def test_a_room_is_not_dropped_with_a_chat_line_said_since_it_was_read(
    store: RoomStore,
) -> None:
    assert await store.commit(commit(1, code="PARKED04"))
    assert await store.chat("PARKED04", '{"text":"kept"}', keep=100)
    read = await store.chat_lines("PARKED04")
    assert await store.chat("PARKED04", '{"text":"said since"}', keep=100)
    assert not await store.drop("PARKED04", version=1, chat=read)
    assert not await store.drop("PARKED04", version=1), "nor as if it had none"
    assert await store.load("PARKED04") is not None
    assert await store.drop("PARKED04", version=1, chat=await store.chat_lines("PARKED04"))
    assert await store.load("PARKED04") is None
    assert await store.chat_lines("PARKED04") == []


async def test_a_room_is_dropped_only_at_the_version_given(store: RoomStore) -> None:
    assert await store.commit(commit(1, code="PARKED02", wake_at=time.time() - 1))
    assert await store.commit(commit(2, "[2]", code="PARKED02", step=True))
    assert not await store.drop("PARKED02", version=1)
    assert await store.load("PARKED02") is not None

    assert await store.drop("PARKED02", version=2)
    assert await store.load("PARKED02") is None
    assert "PARKED02" not in (await store.due(time.time()))[0]
    assert not await store.drop("PARKED02", version=2)
    assert await store.commit(commit(1, code="PARKED02"))
