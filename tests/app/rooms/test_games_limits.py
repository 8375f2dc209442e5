"""What a game costs an address and the server (issue 44, holes 5 to 8): practice tables and
Play now count among an address's games, only a table a person opened counts toward the
ceiling of games in play (and the ceiling refuses without reading rooms), and a seat whose
person never opens the table goes to the AI in ``seat_open_seconds``.

Seconds are those of a test clock (``Clock``): the rooms' and the store's ``time.time``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.db.migrate import upgrade
from app.db.recorder import DatabaseRecorder
from app.db.session import create_engine, create_session_factory
from app.main import create_app
from app.rooms.ai import AiRunner
from app.rooms.credentials import hash_token
from app.rooms.due import DueWork
from app.rooms.errors import RoomError
from app.rooms.model import RoomOptions
from app.rooms.service import RoomService
from app.rooms.tables import Tables
from app.store.base import RoomStore, StoredRoom
from tests.app.clock import Clock
from tests.app.conftest import MakeSettings
from tests.app.db.finished_games import bot, person, played_game
from tests.app.db.scratch_databases import serve_sessions
from tests.app.live import ListRecorder, live_server
from tests.app.queueing import Queued, queue_up


class CountedReads:
    """A store that counts the rooms read through it."""

    def __init__(self, store: RoomStore) -> None:
        self._store = store
        self.rooms_read = 0

    async def load(self, code: str, *, after: int = 0) -> StoredRoom | None:
        self.rooms_read += 1
        return await self._store.load(code, after=after)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    return Clock(monkeypatch)


def service_on(store: RoomStore | CountedReads, **settings: Any) -> RoomService:
    from tests.app.conftest import base_settings

    return RoomService(
        store=store,  # type: ignore[arg-type]
        settings=base_settings(**settings),
        recorder=ListRecorder(),
        ai=AiRunner(0),
    )


async def started_game(
    service: RoomService, *, address: str | None = None, connect: bool = False
) -> tuple[str, list[str]]:
    """A two-seat room, Ann and Bob seated, dealt; its code and the seats' tokens. With
    ``connect``, Ann has opened the table (her socket is connected)."""
    room, host = await Tables(service).create(
        name="Ann", player_id=None, options=RoomOptions(room_name="Table", seats=2)
    )
    _, _, guest = await Tables(service).join(room.code, name="Bob", player_id=None)
    if connect:
        await service.set_presence(room.code, hash_token(host), connected=True)
    await Tables(service).start(room.code, token=host, address=address)
    return room.code, [host, guest]


async def test_a_table_nobody_opens_stops_counting_toward_the_ceiling(
    store: RoomStore, clock: Clock
) -> None:
    """Dealt, a table counts for ``table_join_seconds``; a person there keeps it counted (for
    as long as they stay, past those seconds); when the last person leaves it counts for
    ``table_join_seconds`` more, then no more."""
    service = service_on(store, max_games_in_play=1, table_join_seconds=10.0)
    code, tokens = await started_game(service)
    assert await Tables(service).games_in_play_at_ceiling()
    clock.advance(11.0)
    assert not await Tables(service).games_in_play_at_ceiling(), "nobody opened the table"

    await service.set_presence(code, hash_token(tokens[0]), connected=True)
    assert await Tables(service).games_in_play_at_ceiling()
    clock.advance(600.0)
    assert await Tables(service).games_in_play_at_ceiling(), "Ann is still there"

    await service.set_presence(code, hash_token(tokens[0]), connected=False)
    clock.advance(9.0)
    assert await Tables(service).games_in_play_at_ceiling()
    clock.advance(2.0)
    assert not await Tables(service).games_in_play_at_ceiling(), "everybody left"


async def test_tables_nobody_opens_leave_room_under_the_ceiling_for_a_start(
    store: RoomStore, clock: Clock
) -> None:
    """The ceiling full of tables nobody opened refuses a start only until they stop counting."""
    service = service_on(store, max_games_in_play=3, table_join_seconds=10.0)
    for _ in range(3):
        await started_game(service)
    room, host = await Tables(service).create(
        name="Cy", player_id=None, options=RoomOptions(room_name="Honest", seats=2)
    )
    await Tables(service).join(room.code, name="Dee", player_id=None)
    with pytest.raises(RoomError) as refused:
        await Tables(service).start(room.code, token=host)
    assert refused.value.code == "too_many_games"
    clock.advance(11.0)
    started = await Tables(service).start(room.code, token=host)
    assert started.status == "playing"


@pytest.mark.parametrize("ceiling", [3, 6])
async def test_a_start_refused_at_the_ceiling_reads_no_other_room(
    store: RoomStore, clock: Clock, ceiling: int
) -> None:
    """At the ceiling, a start reads its own room only: the games in play are a count in the
    store, not rooms read one by one (today's ceiling of 1,000 read 1,000 rooms a start)."""
    counted = CountedReads(store)
    service = service_on(counted, max_games_in_play=ceiling)
    for _ in range(ceiling):
        await started_game(service, connect=True)
    room, host = await Tables(service).create(
        name="Cy", player_id=None, options=RoomOptions(room_name="Honest", seats=2)
    )
    await Tables(service).join(room.code, name="Dee", player_id=None)
    service.distrust()
    counted.rooms_read = 0
    with pytest.raises(RoomError) as refused:
        await Tables(service).start(room.code, token=host)
    assert refused.value.code == "too_many_games"
    assert counted.rooms_read == 1, "only the room being started is read"


async def test_a_seat_never_opened_goes_to_the_ai_seat_open_seconds_after_someone_came(
    store: RoomStore, clock: Clock
) -> None:
    """Bob never opens the table: with Ann there, his seat waits ``seat_open_seconds`` from
    the deal (not ``disconnect_grace_seconds``), then the AI plays it. Ann, who opened it and
    left, gets the whole grace."""
    service = service_on(store, seat_open_seconds=4.0, disconnect_grace_seconds=30.0)
    code, tokens = await started_game(service)
    clock.advance(1.0)
    await service.set_presence(code, hash_token(tokens[0]), connected=True)
    clock.advance(2.9)
    assert (await DueWork(service).wake(code)).claimed
    room = await service.load(code)
    assert room is not None and room.seats[1] is not None
    assert not room.seats[1].away, "woken early, Bob's seat still waits"
    clock.advance(0.1)
    assert (await DueWork(service).wake(code)).claimed
    room = await service.load(code)
    assert room is not None and room.seats[1] is not None and room.seats[0] is not None
    assert room.seats[1].away, "Bob's seat went to the AI"
    assert not room.seats[0].away

    await service.set_presence(code, hash_token(tokens[1]), connected=True)
    await service.set_presence(code, hash_token(tokens[0]), connected=False)
    clock.advance(29.9)
    assert (await DueWork(service).wake(code)).claimed
    room = await service.load(code)
    assert room is not None and room.seats[0] is not None
    assert not room.seats[0].away, "Ann opened the table: she has the whole grace"
    clock.advance(0.1)
    assert (await DueWork(service).wake(code)).claimed
    room = await service.load(code)
    assert room is not None and room.seats[0] is not None
    assert room.seats[0].away


async def test_games_started_count_among_the_address_games(store: RoomStore, clock: Clock) -> None:
    service = service_on(store, games_per_address=2)
    for _ in range(2):
        await started_game(service, address="10.0.0.1")
    with pytest.raises(RoomError) as refused:
        await started_game(service, address="10.0.0.1")
    assert refused.value.code == "too_many_games"
    await started_game(service, address="10.0.0.2")


async def first_of(queued: Queued, *kinds: str) -> dict[str, Any]:
    """The first message of one of ``kinds`` the queued player is sent."""
    while True:
        message = await queued.client.recv()
        if message["type"] in kinds:
            return message


async def test_play_now_tables_count_among_the_address_games(make_settings: MakeSettings) -> None:
    """One address gets ``games_per_address`` Play now tables; asking for one more is refused
    (``too_many_games``) while they are in play. Another address still gets its table."""
    settings = make_settings(games_per_address=2, queue_ai_wait_seconds=3600)
    async with live_server(settings) as live:
        tables = []
        for name in ("Ann", "Bob", "Cy"):
            queued = await queue_up(live, name, address="127.0.0.2")
            await queued.send({"type": "fill_ai"})
            answer = await first_of(queued, "matched", "error")
            tables.append(answer)
            await queued.close()
        assert [answer["type"] for answer in tables] == ["matched", "matched", "error"]
        assert tables[2]["code"] == "too_many_games"
        other = await queue_up(live, "Dee", address="127.0.0.3")
        await other.send({"type": "fill_ai"})
        assert (await other.matched())["code"] not in {t.get("code") for t in tables}
        await other.close()


async def test_waiting_players_count_among_the_address_games(make_settings: MakeSettings) -> None:
    """Players of one address already waiting count too: with one game to spare, a second
    queue socket of the address is refused, not matched beside the first."""
    settings = make_settings(games_per_address=1, queue_ai_wait_seconds=3600)
    async with live_server(settings) as live:
        ann = await queue_up(live, "Ann", address="127.0.0.2")
        await ann.client.wait_for("waiting")
        bob = await queue_up(live, "Bob", address="127.0.0.2")
        refused = await first_of(bob, "matched", "error")
        assert refused["type"] == "error" and refused["code"] == "too_many_games"
        await ann.send({"type": "fill_ai"})
        await ann.matched()
        await ann.close()
        await bob.close()


async def test_a_ghost_in_the_queue_is_never_matched(make_settings: MakeSettings) -> None:
    """A player who queued and never answered (no ``ping`` after ``queued``) is not matched:
    the two players who answer, queued after it, are seated together, and the ghost's socket
    is closed (``queue_silent``) once ``queue_alive_seconds`` pass."""
    settings = make_settings(queue_ai_wait_seconds=3600, queue_alive_seconds=3.0)
    async with live_server(settings) as live:
        ghost = await queue_up(live, "Ghost", ping=False)
        ann = await queue_up(live, "Ann")
        bob = await queue_up(live, "Bob")
        at_ann = await ann.matched()
        room = await live.runtime.service.load(at_ann["code"])
        assert room is not None
        # Either may be the table's host: what counts is that the ghost has no seat.
        assert sorted(seat.name for seat in room.seats if seat is not None) == ["Ann", "Bob"]
        assert (await bob.matched())["code"] == at_ann["code"]
        silent = await first_of(ghost, "matched", "error")
        assert silent["type"] == "error" and silent["code"] == "queue_silent"
        for queued in (ghost, ann, bob):
            await queued.close()


@pytest.fixture
async def practice_app(
    make_settings: MakeSettings, tmp_path: Path
) -> AsyncIterator[tuple[Any, DatabaseRecorder]]:
    """The app (memory, then Redis) over a migrated SQLite database, and its recorder."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'games.db'}"
    await asyncio.to_thread(upgrade, url)
    database = create_engine(url)
    sessions = create_session_factory(database)

    app = create_app(make_settings(games_per_address=2, database_url=url))
    serve_sessions(app, sessions)
    async with app.router.lifespan_context(app):
        yield app, DatabaseRecorder(sessions)
    await database.dispose()


async def test_practice_tables_count_among_the_address_games(
    practice_app: tuple[Any, DatabaseRecorder],
) -> None:
    """A practice table is a game in play with AI seats: one address opens
    ``games_per_address`` of them, the next is refused (``too_many_games``); another address
    still opens one."""
    app, recorder = practice_app
    game = played_game([person(0, "Ann"), bot(1, "hard")], seed=3, rules="simple")
    await recorder.record(game)
    step = next(i for i, action in enumerate(game.actions) if action["seat"] == 0)

    async def practise(address: str) -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=(address, 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.post(
                f"/api/games/{game.game_id}/practice", json={"step": step, "name": "Cleo"}
            )

    answers = [await practise("10.0.0.1") for _ in range(3)]
    assert [answer.status_code for answer in answers] == [201, 201, 429]
    assert answers[2].json()["code"] == "too_many_games"
    assert (await practise("10.0.0.2")).status_code == 201
