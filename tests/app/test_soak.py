"""A soak sized for the suite: rooms of AI players on two processes, every game to the end.

``bench/soak.py`` runs the same with 200 rooms (its result is in docs/performance.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.db.migrate import upgrade
from bench.soak import SOAK_LIMITS, play_rooms, stored_games
from tests.app.processes import ServerProcess, running_servers, server_env

pytestmark = pytest.mark.redis

ROOMS = 12
LOG_WAITS = 50
"""Tenths of a second to wait for the servers' last log lines."""


@pytest.fixture
def database(tmp_path: Path) -> Path:
    path = tmp_path / "games.db"
    upgrade(f"sqlite+aiosqlite:///{path}")
    return path


@pytest.fixture
def ai_servers(redis_prefix: str, database: Path) -> Iterator[list[ServerProcess]]:
    """Two processes with the per-address limits a soak from one address needs lifted."""
    env = server_env(redis_prefix, database, ai_workers="1", timeout_level="easy", **SOAK_LIMITS)
    with running_servers(env, 2) as servers:
        yield servers


async def test_rooms_of_ai_players_on_two_processes_all_finish_stored_once(
    ai_servers: list[ServerProcess], database: Path
) -> None:
    bases = [server.endpoint.base_url for server in ai_servers]
    played = await play_rooms(bases, ROOMS, seats=2, level="easy", seconds=45)
    assert all(game.recorded for game in played), "a finished game was not recorded"
    rows = await stored_games(f"sqlite+aiosqlite:///{database}")
    assert {game.game_id: 1 for game in played} == rows, "each game is stored exactly once"
    # A game's row is written before its log line, which a thread then reads from the
    # process's pipe: under load the last line may come a moment after the row.
    for _ in range(LOG_WAITS):
        logged = "".join(server.logged for server in ai_servers)
        recorded_lines = [line for line in logged.splitlines() if 'msg="recorded game ' in line]
        if len(recorded_lines) >= ROOMS:
            break
        await asyncio.sleep(0.1)
    assert len(recorded_lines) == ROOMS
    errors = [line for line in logged.splitlines() if " level=error " in line]
    assert not errors, errors[:3]
