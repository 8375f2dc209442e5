"""The queue's store (``MatchStore``), in memory and in Redis: a group is taken by exactly one
caller, a lease that runs out puts its players back, a player waits in one queue at a time."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from app.matchmaking import live
from app.matchmaking.live import GameIndex
from app.matchmaking.model import Placement, Waiting
from app.matchmaking.redis_store import RedisMatchStore
from app.matchmaking.store import GameEntry, MatchStore, MemoryMatchStore
from app.rooms import lobby, play
from app.rooms.model import Room, RoomOptions, Seat
from tests.app.redis_target import RedisTarget

QUEUE = "queue-2-advanced-plain"


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis), "cluster"])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[MatchStore]:
    if request.param == "memory":
        yield MemoryMatchStore()
        return
    if request.param == "redis":
        from tests.app.conftest import REDIS_URL

        target = RedisTarget(REDIS_URL, request.getfixturevalue("redis_prefix"))
    else:
        cluster = request.getfixturevalue("redis_cluster")
        target = RedisTarget(cluster.url, request.getfixturevalue("cluster_prefix"), cluster)
    redis_store = RedisMatchStore(
        target.url, prefix=target.prefix, cluster=target.cluster is not None
    )
    yield redis_store
    await redis_store.close()


def _waiting(ticket: str, player_id: str | None = None, *, at: float = 100.0) -> Waiting:
    return Waiting(
        ticket=ticket,
        name=ticket,
        player_id=player_id or f"player-{ticket}",
        token_hash="0" * 64,
        rating=0.0,
        joined_at=at,
    )


async def test_a_group_is_taken_by_exactly_one_caller(store: MatchStore) -> None:
    for ticket in "abc":
        assert await store.join(QUEUE, _waiting(ticket), now=100.0, hold_seconds=10)
    assert await store.take(QUEUE, ["a", "b"], lease_until=200.0)
    assert not await store.take(QUEUE, ["b", "c"], lease_until=200.0)
    left = await store.snapshot(QUEUE, now=101.0, stale_before=95.0)
    assert [w.ticket for w in left] == ["c"]


async def test_a_lease_that_runs_out_puts_its_players_back(store: MatchStore) -> None:
    for ticket in "ab":
        await store.join(QUEUE, _waiting(ticket), now=100.0, hold_seconds=10)
    assert await store.take(QUEUE, ["a", "b"], lease_until=105.0)
    assert await store.snapshot(QUEUE, now=104.0, stale_before=95.0) == []
    back = await store.snapshot(QUEUE, now=106.0, stale_before=95.0)
    assert sorted(w.ticket for w in back) == ["a", "b"]


async def test_a_placement_is_read_once_by_the_players_process(store: MatchStore) -> None:
    await store.join(QUEUE, _waiting("a"), now=100.0, hold_seconds=10)
    await store.take(QUEUE, ["a"], lease_until=200.0)
    await store.place(QUEUE, {"a": Placement(code="ABCDEFGH", seat=0)})
    beat = await store.heartbeat(QUEUE, [("a", "player-a")], now=101.0, hold_seconds=10)
    assert beat == {"a": Placement(code="ABCDEFGH", seat=0)}
    assert await store.heartbeat(QUEUE, [("a", "player-a")], now=102.0, hold_seconds=10) == {}
    # Placed, never back in the queue when the lease time passes.
    assert await store.snapshot(QUEUE, now=300.0, stale_before=250.0) == []


async def test_a_player_kept_alive_by_no_process_is_dropped(store: MatchStore) -> None:
    await store.join(QUEUE, _waiting("a"), now=100.0, hold_seconds=10)
    await store.join(QUEUE, _waiting("b"), now=100.0, hold_seconds=10)
    await store.heartbeat(QUEUE, [("b", "player-b")], now=108.0, hold_seconds=10)
    left = await store.snapshot(QUEUE, now=109.0, stale_before=105.0)
    assert [w.ticket for w in left] == ["b"]


async def test_a_player_waits_in_one_queue_at_a_time(store: MatchStore) -> None:
    assert await store.join(QUEUE, _waiting("a", "ann"), now=100.0, hold_seconds=10)
    other = "queue-3-simple-plain"
    assert not await store.join(other, _waiting("b", "ann"), now=101.0, hold_seconds=10)
    assert await store.leave(QUEUE, "a", "ann")
    assert await store.join(other, _waiting("b", "ann"), now=102.0, hold_seconds=10)
    # A hold nobody renews runs out: a process that died does not lock the player out.
    assert await store.join(QUEUE, _waiting("c", "ann"), now=113.0, hold_seconds=10)


async def test_fill_with_ai_marks_the_waiting_player(store: MatchStore) -> None:
    await store.join(QUEUE, _waiting("a"), now=100.0, hold_seconds=10)
    assert await store.ask_ai(QUEUE, "a")
    (waiting,) = await store.snapshot(QUEUE, now=101.0, stale_before=95.0)
    assert waiting.ai_now
    assert not await store.ask_ai(QUEUE, "nobody")


async def test_games_in_play_are_counted_and_public_ones_paged(store: MatchStore) -> None:
    for index in range(5):
        listing = None if index == 0 else f'{{"code": "G{index}"}}'
        entry = GameEntry(code=f"G{index}", version=3, listing=listing, playing=True)
        await store.note_game(entry, now=100.0 + index)
    page, listed, playing = await store.live_games(offset=0, limit=2, since=50.0)
    assert (listed, playing) == (4, 5)
    assert page == ['{"code": "G4"}', '{"code": "G3"}']
    # An older version never undoes a newer one; a finished game leaves the index.
    await store.note_game(GameEntry("G4", 2, None, playing=True), now=110.0)
    await store.note_game(GameEntry("G3", 4, None, playing=False), now=111.0)
    page, listed, playing = await store.live_games(offset=0, limit=10, since=50.0)
    assert (listed, playing) == (3, 4)
    assert page[0] == '{"code": "G4"}'
    # Games nothing happened in since ``since`` are dropped.
    assert (await store.live_games(offset=0, limit=10, since=103.5))[1:] == (1, 1)


async def test_players_online_add_up_over_processes_that_still_report(store: MatchStore) -> None:
    await store.report_online("one", 3, now=100.0)
    await store.report_online("two", 4, now=104.0)
    assert await store.online(since=99.0) == 7
    assert await store.online(since=101.0) == 4


def _started_room() -> Room:
    options = RoomOptions(room_name="Play now", visibility="public", seats=2)
    room = lobby.new_room(code="ABCDEFGH", options=options, host=Seat(name="Ann"), now=0.0)
    room, _ = lobby.take_seat(room, lobby.bot_seat(room, "easy"))
    room.version = 2
    return play.start(room, seed=1, game_id="g", now=0.0)


async def test_a_game_finished_on_another_process_leaves_the_index() -> None:
    store = MemoryMatchStore()
    first, second = GameIndex(store), GameIndex(store)
    room = _started_room()
    first.committed(room)
    await first.flush()
    page, listed, playing = await store.live_games(offset=0, limit=10, since=0.0)
    assert (listed, playing) == (1, 1)
    assert '"cards_left"' in page[0] and "Easy Bot" in page[0]
    finished = room.clone()
    finished.status = "finished"
    finished.version = room.version + 1
    second.committed(finished)
    await second.flush()
    assert await store.live_games(offset=0, limit=10, since=0.0) == ([], 0, 0)


class NotingStore(MemoryMatchStore):
    """Keeps every entry the index writes, with when."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[tuple[str, int, float]] = []

    async def note_game(self, entry: GameEntry, *, now: float) -> None:
        self.written.append((entry.code, entry.version, now))
        await super().note_game(entry, now=now)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def time(self) -> float:
        return self.now


def _moved(room: Room, code: str, *, moves: int = 1) -> Room:
    moved = room.clone()
    moved.code = code
    moved.version = room.version + moves
    return moved


async def test_each_game_is_written_again_when_its_time_comes_and_only_then(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock()
    monkeypatch.setattr(live, "time", clock)
    store = NotingStore()
    index = GameIndex(store)
    public = _started_room()
    private = _moved(public, "PRIVATE1", moves=0)
    private.options = private.options.model_copy(update={"visibility": "private"})
    for room in (public, private):
        index.committed(room)
    await index.flush()
    first = public.version
    assert sorted(store.written) == [("ABCDEFGH", first, 1000.0), ("PRIVATE1", first, 1000.0)]
    # Moves meanwhile: nothing is written until each room's time comes, then its latest.
    for step in range(1, 40):
        clock.now = 1000.0 + step * live.NOTE_EVERY_SECONDS / 4
        index.committed(public := _moved(public, public.code))
        index.committed(private := _moved(private, private.code))
        await index.flush()
    public_writes = [(version, at) for code, version, at in store.written if code == "ABCDEFGH"]
    private_writes = [(version, at) for code, version, at in store.written if code == "PRIVATE1"]
    assert public_writes == [
        (first + 4 * n, 1000.0 + n * live.NOTE_EVERY_SECONDS) for n in range(10)
    ], "the public game, every NOTE_EVERY_SECONDS, as it was then"
    assert [at for _, at in private_writes] == [1000.0], "the private one waits KEEP_SECONDS"
    clock.now = 1000.0 + live.KEEP_SECONDS
    await index.flush()
    assert store.written[-1] == ("PRIVATE1", private.version, clock.now), "then its latest"
    # A game that ends is written at the next look, whenever it was written last.
    finished = _moved(public, public.code)
    finished.status = "finished"
    index.committed(finished)
    await index.flush()
    assert store.written[-1] == ("ABCDEFGH", finished.version, clock.now)
    assert await store.live_games(offset=0, limit=10, since=0.0) == ([], 0, 1)


async def test_matched_players_leave_nothing_in_the_memory_store() -> None:
    """Issue 44 point 10: 10,000 matched players left 10,000 entries behind. Players who read
    their placement leave nothing; a placement nobody reads, a hold, a game nobody lists and a
    process that stopped reporting go at the sweep once their time has run out."""
    clock = Clock()
    store = MemoryMatchStore(clock=clock.time)
    players = 1000
    for number in range(players):
        assert await store.join(QUEUE, _waiting(f"t{number}"), now=clock.now, hold_seconds=10)
    for number in range(0, players, 2):
        pair = [f"t{number}", f"t{number + 1}"]
        assert await store.take(QUEUE, pair, lease_until=clock.now + 30)
        await store.place(
            QUEUE, {t: Placement(code=f"R{number}", seat=i) for i, t in enumerate(pair)}
        )
    read = [(f"t{n}", f"player-t{n}") for n in range(players // 2)]
    placed = await store.heartbeat(QUEUE, read, now=clock.now, hold_seconds=10)
    assert len(placed) == players // 2
    for number in range(players):
        await store.note_game(
            GameEntry(code=f"G{number}", version=1, listing=None, playing=True), now=clock.now
        )
    await store.report_online("process-1", 3, now=clock.now)
    assert await store.snapshot(QUEUE, now=clock.now, stale_before=clock.now - 5) == []
    # Left: the unread half's placements and holds, the games, the process's report.
    assert store.entries == players // 2 * 2 + players + 1
    clock.now += 301
    store.sweep()
    assert store.entries == 0


async def test_the_started_memory_store_sweeps_on_its_clock() -> None:
    clock = Clock()
    store = MemoryMatchStore(clock=clock.time, sweep_seconds=0.01)
    await store.start()
    try:
        await store.report_online("process-1", 3, now=clock.now)
        assert store.entries == 1
        clock.now += 301
        # Nothing announces a sweep (it is the clock's own work): look until it has run.
        async with asyncio.timeout(5):
            while store.entries:  # noqa: ASYNC110
                await asyncio.sleep(0.01)
    finally:
        await store.close()
