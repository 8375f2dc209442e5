"""``cash-stash serve`` told to stop (SIGTERM) ends the ordinary way, with status 0: Python's
exit handlers run, multiprocessing's among them, so the AI pool's semaphores are unlinked by
the server itself and its resource tracker has none to report as leaked."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.app.live import WAIT, bearer, connect_client, create_room, play_out
from tests.app.processes import migrated_database, server_env, start_servers

pytestmark = pytest.mark.redis


@pytest.fixture
def database(tmp_path: Path) -> Path:
    return migrated_database(tmp_path / "games.db")


async def test_sigterm_ends_the_server_with_status_0_and_no_leaked_semaphore(
    redis_prefix: str, database: Path
) -> None:
    env = server_env(redis_prefix, database, ai_workers="1", timeout_level="easy")
    (server,) = start_servers(env, 1)
    try:
        async with server.endpoint.http() as http:
            code, host = await create_room(http, seats=2)
            added = await http.post(
                f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(host)
            )
            assert added.status_code == 201, added.text
            ann = await connect_client(server.endpoint, code, host)
            await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
            await ann.wait_for("state")
            await play_out(ann, 0, random.Random(5))  # the AI pool's workers decided moves
            await ann.close()
    finally:
        server.terminate()
        server.process.wait(WAIT)
    assert server.process.returncode == 0, "died of the re-raised signal, exit handlers unrun"
    assert "Application shutdown complete" in server.logged
    assert "resource_tracker" not in server.logged, server.logged[-2000:]
