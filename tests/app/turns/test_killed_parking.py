"""A process killed for real (SIGKILL) while it parks turn-based games loses none: each is
still in the store or parked in the database at its newest version, and each wakes and takes
a move in a fresh process."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.db.session import create_engine, create_session_factory
from app.rooms.ai import AiRunner
from app.rooms.service import RoomService
from app.runtime import store_for
from app.settings import Settings
from app.turns.database import DatabaseTurnArchive
from tests.app.conftest import REDIS_URL, base_settings
from tests.app.db.scratch_databases import emptied
from tests.app.live import WAIT, ListRecorder
from tests.app.redis_target import RedisTarget
from tests.app.turns.conftest import Table, move, turn_table

pytestmark = pytest.mark.redis

GAMES = 30
PARK_AFTER = 0.05
"""Seconds idle before a game is parked: every game is parkable as soon as it is dealt."""
POLL = 0.05
"""The parking process looks this often, so it starts parking at once."""
ONE_PARKING = 0.008
"""About how long one room's parking takes (load, write, mark, drop): the kill lands within
this much after a room is said parked, so anywhere in the next one's."""
KILLS = 4


@dataclass
class Side:
    """A process of the test's own on the same store and database as the parking process."""

    settings: Settings
    service: RoomService
    archive: DatabaseTurnArchive


@pytest.fixture
async def side(shared_url: str, redis_prefix: str) -> AsyncIterator[Side]:
    engine = create_engine(await emptied(shared_url))
    settings = base_settings(
        redis_url=REDIS_URL,
        redis_prefix=redis_prefix,
        database_url=shared_url,
        park_after_seconds=PARK_AFTER,
    )
    store = store_for(settings)
    await store.start()
    archive = DatabaseTurnArchive(create_session_factory(engine))
    service = RoomService(
        store=store, settings=settings, recorder=ListRecorder(), ai=AiRunner(0), turns=archive
    )
    try:
        yield Side(settings, service, archive)
    finally:
        await store.close()
        await engine.dispose()


def parking_process(settings: Settings) -> subprocess.Popen[str]:
    """The keeper's loop in a process of its own, on ``settings``' store and database."""
    target = RedisTarget(REDIS_URL, settings.redis_prefix)
    env = {
        **os.environ,
        **target.env(),
        "CASH_STASH_DATABASE_URL": settings.database_url,
        "CASH_STASH_PARK_AFTER_SECONDS": str(PARK_AFTER),
        "CASH_STASH_TURN_POLL_SECONDS": str(POLL),
        "CASH_STASH_DISCONNECT_GRACE_SECONDS": str(settings.disconnect_grace_seconds),
        "CASH_STASH_SEAT_OPEN_SECONDS": str(settings.seat_open_seconds),
        "CASH_STASH_AI_WORKERS": "0",
        "CASH_STASH_AI_PAUSE_SECONDS": "0",
        "PYTHONPATH": str(Path.cwd()),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "tests.app.turns.parking_process"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def killed_after(process: subprocess.Popen[str], parked: int, rng: random.Random) -> set[str]:
    """Wait until the process says it has parked ``parked`` rooms, let it go on a random
    moment more (within the next room's parking), then SIGKILL it; the rooms it said."""
    said: set[str] = set()
    assert process.stdout is not None
    try:
        while len(said) < parked:
            line = process.stdout.readline()
            if not line:
                raise AssertionError("the parking process exited:\n" + process.stderr.read())
            said.add(line.strip())
        time.sleep(rng.uniform(0, ONE_PARKING))
    finally:
        process.kill()
        process.wait(WAIT)
    return said


async def unparked_games(side: Side, tables: list[Table], newest: dict[str, int]) -> int:
    """Check that every game is in the store or parked in the database at its newest version,
    never both at different versions; how many are not parked yet."""
    unparked = 0
    for table in tables:
        stored = await side.service.store.load(table.code)
        archived = await side.archive.room(table.code)
        assert archived is not None, "every game is kept in the database"
        assert archived.version == newest[table.code], "at its newest version"
        if stored is None:
            assert archived.parked, "a game out of the store is parked"
        else:
            assert stored.version == archived.version, "one game, not two copies"
        unparked += not archived.parked
    return unparked


async def test_a_process_killed_midway_through_parking_loses_no_game(side: Side) -> None:
    rng = random.Random(42)
    tables: list[Table] = [
        await turn_table(side.service, host=f"Host{number}", guests=(f"Guest{number}",))
        for number in range(GAMES)
    ]
    newest: dict[str, int] = {}
    for table in tables:
        room = await side.service.store.load(table.code)
        assert room is not None
        newest[table.code] = room.version

    unparked = GAMES
    for _ in range(KILLS):
        said = killed_after(parking_process(side.settings), rng.randrange(1, unparked // 2), rng)
        for code in said:
            assert await side.service.store.load(code) is None, "said parked: out of the store"
        left = await unparked_games(side, tables, newest)
        assert 0 < left < unparked, "killed midway: some games parked, some not yet"
        unparked = left

    fresh = RoomService(
        store=store_for(side.settings),
        settings=side.settings,
        recorder=ListRecorder(),
        ai=AiRunner(0),
        turns=side.archive,
    )
    await fresh.store.start()
    try:
        for table in tables:
            moved = await move(fresh, table, rng)
            assert moved.version == newest[table.code] + 1
            archived = await side.archive.room(table.code)
            assert archived is not None and archived.version == moved.version
            assert not archived.parked
            assert await fresh.store.load(table.code) is not None
    finally:
        await fresh.store.close()
