"""What an operator sees: Prometheus metrics, and key=value logs that never hold a secret."""

from __future__ import annotations

import asyncio
import random
import re
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.app.conftest import base_settings
from tests.app.live import bearer, connect_client, create_room, live_server, play_out
from tests.app.processes import server_env, start_servers
from tests.app.redis_target import RedisTarget


async def test_metrics_count_connections_rooms_actions_and_ai_time() -> None:
    async with live_server(base_settings(metrics_token="scrape")) as live, live.http() as http:
        code, host = await create_room(http, seats=2)
        await http.post(f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(host))
        ann = await connect_client(live, code, host)
        await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        await ann.wait_for("state")
        await play_out(ann, 0, random.Random(3))
        response = await http.get("/metrics", headers=bearer("scrape"))
        await ann.close()
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }
    assert samples[("cash_stash_connections", ())] == 1
    assert samples[("cash_stash_rooms", ())] == 1
    assert samples[("cash_stash_actions_total", (("mover", "player"),))] > 0
    assert samples[("cash_stash_actions_total", (("mover", "ai"),))] > 0
    assert samples[("cash_stash_ai_decision_seconds_count", (("level", "easy"),))] > 0
    assert ("cash_stash_commit_conflicts_total", ()) in samples
    assert samples[("cash_stash_queue_drops_total", ())] == 0


@pytest.mark.redis
async def test_a_whole_game_logs_room_and_seat_but_never_a_token(
    redis_target: RedisTarget, tmp_path: Path
) -> None:
    env = server_env(redis_target, tmp_path / "games.db", log_level="debug")
    (server,) = start_servers(env, 1)
    try:
        async with server.endpoint.http() as http:
            code, host = await create_room(http, seats=3)
            bob = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()
            await http.post(f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(host))
            clients = [
                await connect_client(server.endpoint, code, token) for token in (host, bob["token"])
            ]
            await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
            for client in clients:
                await client.wait_for("state")
            await asyncio.gather(
                *(
                    play_out(client, seat, random.Random(seat))
                    for seat, client in enumerate(clients)
                )
            )
            for client in clients:
                await client.close()
            await http.get("/healthz")
    finally:
        server.stop()
    logged = server.logged
    assert host not in logged and bob["token"] not in logged, "a seat token was logged"
    lines = logged.splitlines()
    odd = [line for line in lines if not line.startswith("time=")]
    assert not odd, odd[:3]
    assert any(f"room={code} seat=1 msg=connected" in line for line in lines)
    assert any(re.search(f'room={code} seat=[01] msg="action ', line) for line in lines)
    assert any(f'room={code} msg="game over"' in line for line in lines)
