"""Rooms in Redis outlive a process: two servers share a room, and a restart loses nothing.

Each test runs on one Redis node and again on a Redis Cluster (``redis_target``)."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.rooms.ai import AiRunner
from app.rooms.model import Room
from app.rooms.service import RoomService
from tests.app.conftest import base_settings
from tests.app.live import (
    Endpoint,
    ListRecorder,
    bearer,
    connect_client,
    create_room,
    live_server,
    play_out,
)
from tests.app.processes import (
    ServerProcess,
    migrated_database,
    running_servers,
    server_env,
)
from tests.app.redis_target import RedisTarget

pytestmark = pytest.mark.redis

METRICS_TOKEN = "scrape"


async def _counted(server: Endpoint, name: str, **labels: str) -> float:
    """The value of one sample in a server process's ``/metrics`` (0 when it has none)."""
    async with server.http() as http:
        response = await http.get("/metrics", headers=bearer(METRICS_TOKEN))
    assert response.status_code == 200
    return sum(
        sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
        if sample.name == name and sample.labels == labels
    )


async def test_a_restart_resumes_rooms_and_their_clocks_from_redis(
    redis_target: RedisTarget,
) -> None:
    settings = base_settings(**redis_target.settings)
    async with live_server(settings) as first, first.http() as http:
        code, host = await create_room(http, seats=2, turn_seconds=30)
        guest = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()
        tokens = [host, guest["token"]]
        await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        ann = await connect_client(first, code, host)
        before = await ann.wait_for("state")
        await ann.close()

    # While no server runs, the clock of the seat to act runs out.
    store = redis_target.store()
    offline = RoomService(store=store, settings=settings, recorder=ListRecorder(), ai=AiRunner(0))

    def run_out(room: Room) -> Room:
        assert room.game is not None
        game = room.game.model_copy(update={"deadline": time.time() - 1})
        return room.model_copy(update={"game": game})

    expired = await offline.update(code, run_out)
    await store.close()
    late_seat = expired.game.to_act[0] if expired.game else None

    async with live_server(settings) as second:
        clients = [await connect_client(second, code, token) for token in tokens]
        history = before["view"]["log"]
        resumed = await clients[0].wait_for("state", lambda m: len(m["view"]["log"]) > len(history))
        assert resumed["view"]["log"][: len(history)] == history
        made = resumed["view"]["log"][len(history) :]
        assert any(entry["seat"] == late_seat for entry in made), "the clock's move was not made"
        room = await second.runtime.service.load(code)
        assert room is not None and room.game is not None
        ends = await asyncio.gather(
            *(play_out(client, seat, random.Random(seat)) for seat, client in enumerate(clients))
        )
        assert ends[0]["version"] == ends[1]["version"]
        assert room.game.id == (await second.recorder.game(room.game.id)).game_id


@pytest.fixture
def two_servers(redis_target: RedisTarget, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    """Two ``cash-stash serve`` processes on one Redis, each counting in ``/metrics``."""
    database = migrated_database(tmp_path / "games.db")
    env = server_env(redis_target, database, metrics_token=METRICS_TOKEN)
    with running_servers(env, 2) as servers:
        yield servers


async def test_two_processes_play_one_room_together_and_decide_each_ai_turn_once(
    two_servers: list[ServerProcess],
) -> None:
    one, other = (server.endpoint for server in two_servers)
    async with one.http() as http_one, other.http() as http_other:
        code, host = await create_room(http_one, seats=3, spectators=True)
        joined = await http_other.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
        bob_token = joined.json()["token"]
        await http_one.post(f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(host))
        ann = await connect_client(one, code, host)
        bob = await connect_client(other, code, bob_token)
        watcher = await connect_client(other, code)
        started = await http_other.post(f"/api/rooms/{code}/start", headers=bearer(host))
        assert started.status_code == 200
        # The watcher reads as the game goes (one that falls a queue behind is dropped).
        ann_end, bob_end, watched = await asyncio.gather(
            play_out(ann, 0, random.Random(5)),
            play_out(bob, 1, random.Random(6)),
            watcher.game_over(),
        )
        assert ann_end["version"] == bob_end["version"] == watched["version"]
        assert ann_end["view"]["players"] == bob_end["view"]["players"]
        # The room tells its connections once the finished game is in the database: that is
        # the room's last change (before it, one process may answer a version behind).
        await watcher.room_until(lambda room: room["game"]["recorded"])
        summaries = [
            (await http.get(f"/api/rooms/{code}")).json() for http in (http_one, http_other)
        ]
        assert summaries[0] == summaries[1]
        assert summaries[0]["status"] == "finished"
        assert summaries[0]["game"]["recorded"]
        for client in (ann, bob, watcher):
            await client.close()
        game = (await http_other.get(f"/api/games/{summaries[0]['game']['id']}")).json()
    # Each AI turn was claimed by one process and decided once: the two processes together
    # asked the AI exactly as often as the bot moved in the recorded game.
    bot_moves = sum(1 for step in game["replay"] if (step["action"] or {}).get("seat") == 2)
    assert bot_moves > 0
    decided = [
        await _counted(server, "cash_stash_ai_decision_seconds_count", level="easy")
        for server in (one, other)
    ]
    assert sum(decided) == bot_moves, decided
    logged = "".join(server.logged for server in two_servers)
    assert host not in logged and bob_token not in logged, "a seat token was logged"


async def test_two_processes_apply_a_timeout_exactly_once(redis_target: RedisTarget) -> None:
    settings = base_settings(**redis_target.settings)
    async with live_server(settings) as one, live_server(settings) as other, one.http() as http:
        code, host = await create_room(http, seats=2, turn_seconds=60, spectators=True)
        guest = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()
        await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        watchers = [await connect_client(one, code, host), await connect_client(other, code)]
        logged = [len((await watcher.wait_for("state"))["view"]["log"]) for watcher in watchers]
        before = await one.runtime.service.load(code)
        assert before is not None and before.game is not None
        late_seat = before.game.to_act[0]

        def run_out(room: Room) -> Room:
            room = room.clone()
            assert room.game is not None
            room.game.deadline = time.time() - 1
            return room

        expired = await one.runtime.service.update(code, run_out)
        assert expired.game is not None
        for watcher, seen in zip(watchers, logged, strict=True):
            await watcher.wait_for("state", lambda m, seen=seen: len(m["view"]["log"]) > seen)
        after = await other.runtime.service.load(code)
        assert after is not None and after.game is not None
        assert len(after.game.actions) == len(expired.game.actions) + 1
        late = after.seats[late_seat]
        assert late is not None and late.timeouts == 1 and not late.away
        assert guest["seat"] == 1
        for watcher in watchers:
            await watcher.close()


async def test_a_seat_with_a_device_on_each_process_stays_present_while_one_of_them_does(
    redis_target: RedisTarget,
) -> None:
    """Ann's seat has a connection on each of two processes (two devices). The one on the
    first process leaves: the seat stays present, and nothing is committed (before, the first
    process marked Ann gone and the second marked her back: two commits, and the table saw her
    leave). Then the other leaves too: the seat is marked away, once."""
    settings = base_settings(presence_seconds=0.2, **redis_target.settings)
    async with live_server(settings) as one, live_server(settings) as other, one.http() as http:
        code, host = await create_room(http, seats=2)
        guest = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()
        await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        bob = await connect_client(other, code, guest["token"])
        devices = [await connect_client(one, code, host), await connect_client(other, code, host)]
        for device in devices:
            await device.wait_for("state")
        await bob.room_until(lambda room: all(seat["connected"] for seat in room["seats"]))
        before = (await http.get(f"/api/rooms/{code}")).json()

        await devices[0].close()
        await asyncio.sleep(settings.presence_seconds * 10)
        after = (await http.get(f"/api/rooms/{code}")).json()
        assert after["seats"][0]["connected"]
        assert after["version"] == before["version"], "a presence commit while a device stayed"

        await devices[1].close()
        gone = await bob.room_until(lambda room: not room["seats"][0]["connected"])
        assert gone["version"] == before["version"] + 1
        await asyncio.sleep(settings.presence_seconds * 5)
        assert (await http.get(f"/api/rooms/{code}")).json()["version"] == gone["version"]
        await bob.close()
