"""Play now across server processes sharing Redis: players on different processes meet, are
paired by rating, get AI after the wait, leave when they cancel or go, and 200 at once are
each seated exactly once. On one Redis node and again on a Redis Cluster (``redis_target``)."""

from __future__ import annotations

import asyncio
import sqlite3
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.db.repository import public_player_id
from app.matchmaking.redis_store import RedisMatchStore
from tests.app.processes import ServerProcess, migrated_database, running_servers, server_env
from tests.app.queueing import Queued, queue_up
from tests.app.redis_target import RedisTarget

pytestmark = pytest.mark.redis


def _env(redis_target: RedisTarget, database: Path, **settings: str) -> dict[str, str]:
    """Servers for players who all queue from one address (loopback) but stand for many
    people: the address's shares lifted, its games among them (at 4, a fifth player waiting
    in one process was refused ``too_many_games``, 1008, whenever the matcher had not yet
    seated the four before it)."""
    return server_env(
        redis_target,
        database,
        queue_joins_per_minute="1000",
        queue_sockets_per_address="1000",
        games_per_address="100000",
        queue_tick_seconds="0.1",
        **settings,
    )


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return migrated_database(tmp_path / "games.db")


@pytest.fixture
def two_servers(redis_target: RedisTarget, database: Path) -> Iterator[list[ServerProcess]]:
    env = _env(redis_target, database, queue_ai_wait_seconds="3600")
    with running_servers(env, 2) as servers:
        yield servers


def _rate(database: Path, guest_id: str, rating: float) -> None:
    """Give a guest a rating in the finished games' database, as their games would have."""
    mu = rating + 3.0
    with sqlite3.connect(database) as db:
        db.execute(
            "INSERT INTO players (id, name, mu, sigma, rating, games, rated_games, wins)"
            " VALUES (?, 'someone', ?, 1.0, ?, 10, 10, 5)",
            (public_player_id(guest_id), mu, rating),
        )


async def _room(server: ServerProcess, code: str) -> dict[str, object]:
    async with server.endpoint.http() as http:
        response = await http.get(f"/api/rooms/{code}")
    assert response.status_code == 200
    room: dict[str, object] = response.json()
    return room


async def test_two_players_on_different_processes_meet_in_one_room(
    two_servers: list[ServerProcess],
) -> None:
    first, second = two_servers
    ann = await queue_up(first.endpoint, "Ann")
    bob = await queue_up(second.endpoint, "Bob")
    at_ann, at_bob = await asyncio.gather(ann.matched(), bob.matched())
    assert at_ann["code"] == at_bob["code"]
    assert {at_ann["seat"], at_bob["seat"]} == {0, 1}
    room = await _room(first, at_ann["code"])
    assert room["status"] == "playing"
    # Who is seated first depends on which process's player proves alive first: either.
    assert sorted(seat["name"] for seat in room["seats"]) == ["Ann", "Bob"]  # type: ignore[attr-defined]


async def test_players_of_very_different_ratings_are_paired_closest_first(
    redis_target: RedisTarget, database: Path
) -> None:
    guests = {name: str(uuid.uuid4()) for name in ("low", "high", "higher", "lower")}
    ratings = {"low": 1.0, "high": 30.0, "higher": 32.0, "lower": 3.0}
    for name, guest in guests.items():
        _rate(database, guest, ratings[name])
    env = _env(redis_target, database, queue_ai_wait_seconds="3600", queue_window_per_second="0")
    with running_servers(env, 2) as servers:
        queued: dict[str, Queued] = {}
        for index, name in enumerate(guests):
            server = servers[index % 2].endpoint
            queued[name] = await queue_up(server, name, player_id=guests[name])
        placed = {name: await q.matched() for name, q in queued.items()}
    assert placed["low"]["code"] == placed["lower"]["code"]
    assert placed["high"]["code"] == placed["higher"]["code"]
    assert placed["low"]["code"] != placed["high"]["code"]


async def test_a_lone_player_gets_ai_after_the_wait_and_at_once_when_asked(
    redis_target: RedisTarget, database: Path
) -> None:
    env = _env(redis_target, database, queue_ai_wait_seconds="1")
    with running_servers(env, 2) as (first, second):
        ann = await queue_up(first.endpoint, "Ann", seats=3)
        placed = await ann.matched()
        room = await _room(second, placed["code"])
        assert [s["kind"] for s in room["seats"]] == ["person", "ai", "ai"]  # type: ignore[attr-defined]

    env = _env(redis_target, database, queue_ai_wait_seconds="3600")
    with running_servers(env, 2) as (first, second):
        bob = await queue_up(second.endpoint, "Bob", seats=4)
        await bob.send({"type": "fill_ai"})
        placed = await bob.matched()
        room = await _room(first, placed["code"])
        assert [s["kind"] for s in room["seats"]] == ["person", "ai", "ai", "ai"]  # type: ignore[attr-defined]


async def test_cancel_and_disconnect_leave_the_queue(two_servers: list[ServerProcess]) -> None:
    first, second = two_servers
    ann = await queue_up(first.endpoint, "Ann", seats=3)
    bob = await queue_up(second.endpoint, "Bob", seats=3)
    await bob.client.wait_for("waiting", lambda m: m["waiting"] == 2)
    await ann.send({"type": "cancel"})
    await ann.client.wait_for("cancelled")
    await bob.client.wait_for("waiting", lambda m: m["waiting"] == 1)
    cy = await queue_up(first.endpoint, "Cy", seats=3)
    await bob.client.wait_for("waiting", lambda m: m["waiting"] == 2)
    await cy.close()
    await bob.client.wait_for("waiting", lambda m: m["waiting"] == 1)


async def test_two_hundred_players_at_once_are_each_seated_once(
    redis_target: RedisTarget, database: Path
) -> None:
    env = _env(redis_target, database, queue_ai_wait_seconds="3600")
    with running_servers(env, 3) as servers:
        queued = await asyncio.gather(
            *(queue_up(servers[index % 3].endpoint, f"P{index}", seats=4) for index in range(200))
        )
        placed = await asyncio.gather(*(q.matched() for q in queued))
        seats = Counter((p["code"], p["seat"]) for p in placed)
        rooms = Counter(p["code"] for p in placed)
        assert len(seats) == 200  # no seat given twice
        assert len(rooms) == 50 and set(rooms.values()) == {4}
        for code in list(rooms)[:5]:
            room = await _room(servers[0], code)
            assert [s["kind"] for s in room["seats"]] == ["person"] * 4  # type: ignore[attr-defined]
        for q in queued:
            await q.close()


async def test_players_taken_by_a_process_that_died_are_queued_again(
    two_servers: list[ServerProcess], redis_target: RedisTarget
) -> None:
    first, second = two_servers
    ann = await queue_up(first.endpoint, "Ann", seats=3)
    bob = await queue_up(second.endpoint, "Bob", seats=3)
    await bob.client.wait_for("waiting", lambda m: m["waiting"] == 2)
    # A third process takes Ann and Bob for a table, then dies before making it.
    store = RedisMatchStore(
        redis_target.url, prefix=redis_target.prefix, cluster=redis_target.cluster is not None
    )
    queue = "queue-3-advanced-plain"
    taken = [w.ticket for w in await store.snapshot(queue, now=time.time(), stale_before=0)]
    assert len(taken) == 2
    assert await store.take(queue, taken, lease_until=time.time() + 1)
    await store.close()
    # Cy arrives. Ann and Bob are not in the queue until the lease runs out; then all three
    # meet (nothing else could seat them: the AI would wait an hour).
    cy = await queue_up(first.endpoint, "Cy", seats=3)
    placed = await asyncio.gather(ann.matched(), bob.matched(), cy.matched())
    assert len({p["code"] for p in placed}) == 1
    assert sorted(p["seat"] for p in placed) == [0, 1, 2]
