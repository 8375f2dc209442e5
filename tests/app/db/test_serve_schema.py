"""Issue 31: ``cash-stash serve`` on a database whose schema is not at the newest migration
refuses to start with one clear line; on the embedded SQLite file, it migrates it instead."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from scratch_databases import scratch_database

from app.db.migrate import schema_revisions, upgrade
from tests.app.live import WAIT, free_port
from tests.app.processes import running_servers, server_env

NEWEST = Path(__file__).resolve().parents[3] / "migrations" / "versions"


def newest_revision() -> str:
    return max(path.name.split("_", 1)[0] for path in NEWEST.glob("[0-9]*_*.py"))


def serve_refused(database_url: str) -> list[str]:
    """Run ``cash-stash serve`` on ``database_url``, expecting it to exit: its log lines."""
    env = server_env("unused:", Path("unused.db"), database_url=database_url)
    del env["CASH_STASH_REDIS_URL"]
    finished = subprocess.run(
        [Path(sys.executable).parent / "cash-stash", "serve", "--port", str(free_port())],
        env=env,
        capture_output=True,
        text=True,
        timeout=3 * WAIT,
        check=False,
    )
    assert finished.returncode == 1, finished.stderr
    return finished.stderr.splitlines()


def assert_one_clear_line(lines: list[str], *words: str) -> None:
    assert "Traceback" not in "\n".join(lines), "\n".join(lines)
    refusals = [line for line in lines if "not serving:" in line]
    assert len(refusals) == 1, lines
    for word in words:
        assert word in refusals[0], refusals[0]


async def test_serve_migrates_the_embedded_sqlite_file(tmp_path: Path) -> None:
    database = tmp_path / "games.db"
    env = server_env("unused:", database)
    del env["CASH_STASH_REDIS_URL"]
    with running_servers(env, 1):
        current, newest = await asyncio.to_thread(
            schema_revisions, f"sqlite+aiosqlite:///{database}"
        )
    assert current == newest == {newest_revision()}


@pytest.mark.postgres
@pytest.mark.parametrize("at", [None, "0001"])
async def test_serve_refuses_a_postgres_database_behind_the_newest_migration(
    at: str | None, tmp_path: Path
) -> None:
    async with scratch_database("postgres", tmp_path) as url:
        if at is not None:
            await asyncio.to_thread(upgrade, url, at)
        lines = await asyncio.to_thread(serve_refused, url)
        assert_one_clear_line(lines, at or "no schema", newest_revision(), "cash-stash migrate")


@pytest.mark.postgres
async def test_serve_starts_on_a_postgres_database_at_the_newest_migration(
    tmp_path: Path,
) -> None:
    async with scratch_database("postgres", tmp_path) as url:
        await asyncio.to_thread(upgrade, url)
        env = server_env("unused:", Path("unused.db"), database_url=url)
        del env["CASH_STASH_REDIS_URL"]
        with running_servers(env, 1) as (server,):
            async with server.endpoint.http() as http:
                assert (await http.get("/healthz")).status_code == 200


async def test_serve_says_in_one_line_that_the_database_cannot_be_reached() -> None:
    url = f"postgresql+asyncpg://cash:secret-password@127.0.0.1:{free_port()}/nothing"
    lines = await asyncio.to_thread(serve_refused, url)
    assert_one_clear_line(lines, "cannot read the database")
    assert "secret-password" not in "\n".join(lines)


async def test_servers_started_together_on_a_new_sqlite_file_migrate_it_once(
    tmp_path: Path,
) -> None:
    database = tmp_path / "games.db"
    env = server_env("unused:", database)
    del env["CASH_STASH_REDIS_URL"]
    with running_servers(env, 3) as servers:
        for server in servers:
            async with server.endpoint.http() as http:
                assert (await http.get("/healthz")).status_code == 200
    current, newest = await asyncio.to_thread(schema_revisions, f"sqlite+aiosqlite:///{database}")
    assert current == newest
