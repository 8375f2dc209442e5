"""100,000 parked turn-based games: what they cost the database, and how fast one is parked,
brought back, and found due.

Inserts ``--games`` parked games (four seats, a game 20 moves in, each with its own code and
a deadline within three days) in one bulk insert, into SQLite (a file in a scratch folder, the
default) or the Postgres of ``--database`` (its tables emptied first), migrated to the newest
revision. Then, on the Redis at ``--redis`` (default ``CASH_STASH_BENCH_REDIS_URL`` or
``redis://127.0.0.1:6379/14``, under a key prefix of its own deleted afterwards):

- write-through: one version of a game in play written (``TurnArchive.save``, as a move's
  commit does), median and p99 over ``--samples``;
- park: a game in Redis nobody is at, parked by ``TurnKeeper.park`` (read from Redis, written
  to the database, marked, dropped from Redis), median and p99 over ``--samples``;
- wake: a parked game loaded by a process that never held it (``RoomService.load``: read from
  the database, restored into Redis, decoded), median and p99;
- the database's bytes per game (Postgres: ``pg_total_relation_size`` of both tables; SQLite:
  the file's size), over the number of games;
- one due poll (``TurnArchive.due``, 100 rows) at that size: median of 50, and the plan
  (``EXPLAIN``) that shows it reads the ``wake_at`` index::

    python bench/parked.py
    python bench/parked.py --database postgresql+asyncpg://postgres@127.0.0.1:5432/bench
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
import zlib
from pathlib import Path

import redis
from sqlalchemy import delete, insert, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as ``python bench/parked.py``: the repository's root

import engine  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.db.models import TurnGame, TurnPlayer  # noqa: E402
from app.db.session import create_engine, create_session_factory  # noqa: E402
from app.rooms import lobby, play  # noqa: E402
from app.rooms.ai import AiRunner  # noqa: E402
from app.rooms.model import Room, RoomOptions, Seat, room_text  # noqa: E402
from app.rooms.recording import FinishedGame  # noqa: E402
from app.rooms.service import RoomService  # noqa: E402
from app.settings import Settings  # noqa: E402
from app.store.base import Commit  # noqa: E402
from app.store.redis import RedisRoomStore  # noqa: E402
from app.turns.database import LEVEL, DatabaseTurnArchive  # noqa: E402
from app.turns.keeper import TurnKeeper  # noqa: E402
from app.turns.records import turn_record  # noqa: E402

DAY = 86_400.0
BATCH = 2_000
PLAYERS = 4


class Recorder:
    async def record(self, game: FinishedGame) -> None:
        return None


def game_in_play(seed: int, now: float) -> Room:
    """A four-seat turn-based game 20 moves in, its people gone an hour ago."""
    seats = [
        Seat(name=f"P{n}", token_hash=f"{n}" * 64, player_id=str(uuid.uuid4()), disconnected_at=now)
        for n in range(PLAYERS)
    ]
    options = RoomOptions(room_name="Bench", seats=PLAYERS, mode="turn", move_seconds=86_400)
    room = lobby.new_room(code="BENCH", options=options, host=seats[0], now=now)
    for seat in seats[1:]:
        room, _ = lobby.take_seat(room, seat)
    room = play.start(room, seed=seed, game_id=str(uuid.uuid4()), now=now)
    rng = random.Random(seed)
    for _ in range(20):
        if room.status != "playing":
            break
        action = rng.choice(engine.legal_actions(room.engine_state()))
        room = play.apply(room, seat=action["seat"], action=action, now=now, mover="player")
    room.version = 21
    return room


def code_of(number: int) -> str:
    return f"B{number:07d}"


def percentiles(seconds: list[float]) -> str:
    ms = sorted(value * 1000 for value in seconds)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return f"median {statistics.median(ms):.2f} ms, p99 {p99:.2f} ms (n={len(ms)})"


async def bulk_insert(
    sessions: async_sessionmaker[AsyncSession], games: int, template: Room, now: float
) -> None:
    """``games`` parked rows: the template's text under each code, compressed as kept."""
    text_of = room_text(template)
    rng = random.Random(1)
    for start in range(0, games, BATCH):
        rows, players = [], []
        for number in range(start, min(games, start + BATCH)):
            code = code_of(number)
            data = text_of.replace('"code":"BENCH"', f'"code":"{code}"', 1)
            rows.append(
                {
                    "code": code,
                    "version": template.version,
                    "room": zlib.compress(data.encode(), LEVEL),
                    "status": "playing",
                    "wake_at": now + rng.uniform(60, 3 * DAY),
                    "idle_since": None,
                    "parked": True,
                    "parked_at": now,
                    "updated_at": now,
                }
            )
            players += [
                {"code": code, "seat": seat, "player_id": uuid.uuid4().hex}
                for seat in range(PLAYERS)
            ]
        async with sessions() as session, session.begin():
            await session.execute(insert(TurnGame), rows)
            await session.execute(insert(TurnPlayer), players)


async def main(arguments: argparse.Namespace) -> None:
    scratch = tempfile.TemporaryDirectory()
    database = arguments.database or f"sqlite+aiosqlite:///{scratch.name}/parked.db"
    await asyncio.to_thread(upgrade, database)
    engine_ = create_engine(database)
    sessions = create_session_factory(engine_)
    async with sessions() as session, session.begin():
        await session.execute(delete(TurnPlayer))
        await session.execute(delete(TurnGame))
    now = time.time()
    template = game_in_play(7, now - 3600)
    whole = room_text(template).encode()
    print(f"room text {len(whole)} B, kept {len(zlib.compress(whole, LEVEL))} B")

    began = time.perf_counter()
    await bulk_insert(sessions, arguments.games, template, now)
    print(f"insert {arguments.games} parked games: {time.perf_counter() - began:.1f} s")

    if database.startswith("sqlite"):
        size = await asyncio.to_thread(os.path.getsize, database.split("///", 1)[1])
    else:
        async with sessions() as session:
            size = int(
                await session.scalar(
                    text(
                        "SELECT pg_total_relation_size('turn_games')"
                        " + pg_total_relation_size('turn_players')"
                    )
                )
                or 0
            )
    print(f"database bytes per game: {size / arguments.games:.0f}")

    archive = DatabaseTurnArchive(sessions)
    polls = []
    for _ in range(50):
        began = time.perf_counter()
        await archive.due(now + DAY, unparked_before=now + DAY - 60, limit=100)
        polls.append(time.perf_counter() - began)
    print(f"due poll, 100 of ~{arguments.games // 3} due: {percentiles(polls)}")
    due_query = (
        "SELECT code FROM turn_games WHERE wake_at <= :now AND (parked OR wake_at <= :lag)"
        " ORDER BY wake_at LIMIT 100"
    )
    explain = "EXPLAIN QUERY PLAN " if database.startswith("sqlite") else "EXPLAIN "
    async with sessions() as session:
        plan = await session.execute(text(explain + due_query), {"now": now + DAY, "lag": now})
        for row in plan:
            print("  plan:", " | ".join(str(cell) for cell in row))

    prefix = f"bench_parked:{uuid.uuid4().hex[:8]}:"
    settings = Settings(
        redis_url=arguments.redis,
        redis_prefix=prefix,
        park_after_seconds=300,
        database_url=database,
    )
    store = RedisRoomStore(arguments.redis, prefix=prefix)
    await store.start()
    try:
        service = RoomService(
            store=store, settings=settings, recorder=Recorder(), ai=AiRunner(0), turns=archive
        )
        keeper = TurnKeeper(service, archive)
        parks, saves = [], []
        for number in range(arguments.samples):
            room = template.model_copy(update={"code": f"P{number:07d}", "version": 1})
            text_of = room_text(room)
            await store.commit(
                Commit(room.code, 1, text_of, room.wake_at(30, 5), None, ttl_seconds=1800)
            )
            began = time.perf_counter()
            await archive.save(turn_record(room, text=text_of, wake_at=room.wake_at(30, 5)))
            saves.append(time.perf_counter() - began)
            began = time.perf_counter()
            parked = await keeper.park(room.code)
            parks.append(time.perf_counter() - began)
            assert parked, "the room was not parked"
        print(f"write-through (one version's upsert): {percentiles(saves)}")
        print(f"park: {percentiles(parks)}")

        woken = RoomService(
            store=store, settings=settings, recorder=Recorder(), ai=AiRunner(0), turns=archive
        )
        wakes = []
        for number in random.Random(2).sample(range(arguments.games), arguments.samples):
            began = time.perf_counter()
            room = await woken.load(code_of(number))
            wakes.append(time.perf_counter() - began)
            assert room is not None and room.code == code_of(number)
        print(f"wake (database -> Redis -> loaded): {percentiles(wakes)}")
    finally:
        await store.close()
        with redis.Redis.from_url(arguments.redis) as client:
            for key in client.scan_iter(f"{prefix}*", count=1000):
                client.delete(key)
        await engine_.dispose()
        scratch.cleanup()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--database", help="a Postgres URL; default: a scratch SQLite file")
    parser.add_argument(
        "--redis",
        default=os.environ.get("CASH_STASH_BENCH_REDIS_URL", "redis://127.0.0.1:6379/14"),
    )
    asyncio.run(main(parser.parse_args()))
