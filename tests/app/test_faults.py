"""A server process that stops, gently (SIGTERM) or not (kill -9), in the middle of a game;
on one Redis node and on a Redis Cluster (``redis_target``)."""

from __future__ import annotations

import asyncio
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed

from tests.app.live import Client, bearer, connect_client, create_room, play_out
from tests.app.processes import ServerProcess, server_env, start_servers
from tests.app.redis_target import RedisTarget

pytestmark = pytest.mark.redis

EXIT_SECONDS = 10.0
"""A process told to stop must be gone within this long."""


@pytest.fixture
def two_servers(redis_target: RedisTarget, tmp_path: Path) -> Iterator[list[ServerProcess]]:
    servers = start_servers(server_env(redis_target, tmp_path / "games.db"), 2)
    try:
        yield servers
    finally:
        for server in servers:
            server.stop()


async def _step(clients: list[Client], rng: random.Random, ref: str) -> None:
    """The seat to act plays a random legal action; every client sees the result."""
    state = clients[0].state
    assert state is not None
    seat = state["view"]["to_act"][0]
    mover = clients[seat]
    assert mover.state is not None
    before = mover.state["version"]
    await mover.act(rng.choice(mover.state["legal"]), ref=ref)
    for client in clients:
        await client.wait_for("state", lambda m: m["version"] > before)


async def _closed(client: Client) -> int | None:
    """Read until the server closes the connection; its close code (None: no close frame)."""
    with pytest.raises(ConnectionClosed):
        while True:
            await client.recv()
    return client.ws.protocol.close_rcvd.code if client.ws.protocol.close_rcvd else None


@pytest.mark.parametrize("stop", ["sigterm", "kill -9"])
async def test_a_stopped_process_loses_nothing_and_its_players_finish_elsewhere(
    two_servers: list[ServerProcess], stop: str
) -> None:
    doomed, survivor = two_servers
    rng = random.Random(11)
    async with doomed.endpoint.http() as http:
        code, host = await create_room(http, seats=2)
        bob = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()
        ann = await connect_client(doomed.endpoint, code, host)
        bob_client = await connect_client(survivor.endpoint, code, bob["token"])
        # Both seats are in (their hellos answered) before the game starts.
        for seated in (ann, bob_client):
            await seated.room_until(lambda room: all(s and s["connected"] for s in room["seats"]))
        await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
    clients = [ann, bob_client]
    for client in clients:
        await client.wait_for("state")
    for number in range(6):
        await _step(clients, rng, f"warm-{number}")
    while 0 not in (ann.state or {})["view"]["to_act"]:
        await _step(clients, rng, f"until-ann-{time.monotonic()}")

    # Ann's action is in flight when her process is told to stop.
    seen: dict[str, Any] = dict(ann.state or {})
    in_flight = rng.choice(seen["legal"])
    await ann.act(in_flight, ref="in-flight")
    stopped_at = time.monotonic()
    if stop == "sigterm":
        doomed.terminate()
    else:
        doomed.process.kill()
    close_code = await _closed(ann)
    doomed.process.wait(EXIT_SECONDS)
    if stop == "sigterm":
        assert close_code == 1012, "clients are told to reconnect (service restart)"
        assert time.monotonic() - stopped_at < EXIT_SECONDS
        # uvicorn exits by re-raising the signal it handled, once shutdown is complete.
        assert doomed.process.returncode in (0, -signal.SIGTERM), doomed.logged
        assert "Application shutdown complete" in doomed.logged
    seen = dict(ann.state or seen)

    # Ann reconnects to the other process and finds everything that was committed.
    ann = await connect_client(survivor.endpoint, code, host)
    resumed = await ann.wait_for("state")
    assert resumed["version"] >= seen["version"]
    assert resumed["view"]["log"][: len(seen["view"]["log"])] == seen["view"]["log"]
    # Resending the in-flight action applies it if it was lost, or answers it if it was not.
    await ann.act(in_flight, ref="in-flight")
    answer = await ann.answer("in-flight", after=resumed["version"])
    if answer["type"] == "applied":  # it was committed before the process stopped
        assert answer["version"] <= resumed["version"]
    assert ann.state is not None
    assert ann.state["view"]["log"][: len(seen["view"]["log"])] == seen["view"]["log"]
    ends = await asyncio.gather(
        play_out(ann, 0, random.Random(1)), play_out(bob_client, 1, random.Random(2))
    )
    assert ends[0]["version"] == ends[1]["version"]
    assert ends[0]["view"]["log"][: len(seen["view"]["log"])] == seen["view"]["log"]
    for client in (ann, bob_client):
        await client.close()
    assert " level=error " not in survivor.logged
