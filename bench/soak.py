"""Soak: rooms of AI players on two server processes sharing one Redis, all played to the end.

Checks that every game finished, was stored exactly once, and that no process logged an error.
Loopback only; it starts and stops its own servers and migrates the database it is given
(``python bench/soak.py --help``)::

    python bench/soak.py --rooms 200 --database-url postgresql+asyncpg://…/empty_database
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine
from websockets.asyncio.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script: the repository's root, for ``bench``

from bench.servers import serve  # noqa: E402

REDIS_URL = os.environ.get("CASH_STASH_BENCH_REDIS_URL", "redis://127.0.0.1:6379/14")


@dataclass(frozen=True, slots=True)
class Played:
    """One room's game as the soak saw it."""

    code: str
    game_id: str
    recorded: bool


async def _play_room(
    index: int, bases: list[str], *, seats: int, level: str, limit: asyncio.Semaphore, until: float
) -> Played:
    """Create a room on one process, watch it from the other, and wait for the recorded game.

    The host is at the table, connected to the room's own process, and plays a random legal
    move in its turns (a game nobody is connected to waits for somebody: the server never
    plays a table of only AI).
    """
    home, away = bases[index % len(bases)], bases[(index + 1) % len(bases)]
    # Idle connections are dropped before the server's keep-alive (5 s) closes them: this
    # client waits out a whole game between requests, and reusing a connection the server was
    # closing at that moment failed the request (httpx.ReadError).
    limits = httpx.Limits(keepalive_expiry=2.0)
    async with httpx.AsyncClient(base_url=home, timeout=30, limits=limits) as http:
        async with limit:
            made = await http.post(
                "/api/rooms", json={"name": f"Host {index}", "seats": seats, "spectators": True}
            )
            made.raise_for_status()
            code, token = made.json()["code"], made.json()["token"]
            auth = {"Authorization": f"Bearer {token}"}
            for _ in range(seats - 1):
                added = await http.post(
                    f"/api/rooms/{code}/bots", json={"level": level}, headers=auth
                )
                added.raise_for_status()
        url = away.replace("http://", "ws://") + f"/ws/{code}"
        host_url = home.replace("http://", "ws://") + f"/ws/{code}"
        async with connect(host_url, max_size=None, open_timeout=30) as host:
            await host.send(json.dumps({"type": "hello", "token": token}))
            await host.recv()  # sent once the host's arrival is committed
            async with connect(url, max_size=None, open_timeout=30) as watcher:
                await watcher.send(json.dumps({"type": "hello"}))
                await _watch(watcher, host, http, code, auth, index, until)
        game_id = (await http.get(f"/api/rooms/{code}")).json()["game"]["id"]
        while time.monotonic() < until:
            if (await http.get(f"/api/games/{game_id}")).status_code == 200:
                return Played(code, game_id, recorded=True)
            await asyncio.sleep(0.1)
        return Played(code, game_id, recorded=False)


async def _watch(
    watcher: ClientConnection,
    host: ClientConnection,
    http: httpx.AsyncClient,
    code: str,
    auth: dict[str, str],
    index: int,
    until: float,
) -> None:
    """Start the game and watch it to its end while the host plays."""
    (await http.post(f"/api/rooms/{code}/start", headers=auth)).raise_for_status()
    playing = asyncio.create_task(_host_plays(host, random.Random(index)))
    try:
        async with asyncio.timeout(max(0.0, until - time.monotonic())):
            async for raw in watcher:
                message = json.loads(raw)
                if message["type"] == "state" and message["view"]["over"]:
                    break
    finally:
        playing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await playing


async def _host_plays(host: ClientConnection, rng: random.Random) -> None:
    """Play the host's seat: a random legal move from each new state in its turn; after a
    refusal, a move from the latest state again."""
    latest: dict[str, Any] | None = None
    acted_on = -1
    moves = 0
    async for raw in host:
        message = json.loads(raw)
        if message["type"] == "state":
            latest = message
        elif message["type"] == "error" and message.get("ref") is not None:
            acted_on = -1  # refused: choose again
        else:
            continue
        if latest is None or latest["view"]["over"]:
            continue
        seat = latest["view"]["seat"]
        if seat in latest["view"]["to_act"] and latest["legal"] and latest["version"] > acted_on:
            acted_on = latest["version"]
            moves += 1
            act = {
                "type": "act",
                "ref": moves,
                "version": latest["version"],
                "action": rng.choice(latest["legal"]),
            }
            await host.send(json.dumps(act))


async def play_rooms(
    bases: list[str], rooms: int, *, seats: int = 3, level: str = "easy", seconds: float = 600.0
) -> list[Played]:
    """Play ``rooms`` AI games across the servers at ``bases``; every one within ``seconds``."""
    limit = asyncio.Semaphore(20)
    until = time.monotonic() + seconds
    return list(
        await asyncio.gather(
            *(
                _play_room(i, bases, seats=seats, level=level, limit=limit, until=until)
                for i in range(rooms)
            )
        )
    )


async def stored_games(database_url: str) -> dict[str, int]:
    """How many rows each game id has in the database."""
    engine = create_async_engine(database_url)
    try:
        async with engine.connect() as connection:
            rows = await connection.execute(text("SELECT id, count(*) FROM games GROUP BY id"))
            return {str(game_id): int(count) for game_id, count in rows}
    finally:
        await engine.dispose()


SOAK_LIMITS = {
    "join_limit": "100000",
    "create_limit": "100000",
    "request_rate_per_second": "1000000",
    "request_burst": "1000000",
    "waiting_rooms_per_address": "100000",
    "games_per_address": "100000",
    "max_games_in_play": "100000",
    "ws_connections_per_address": "100000",
    "replays_per_minute": "100000",
    "ws_messages_per_address_per_second": "1000000",
    "ws_messages_per_address_burst": "1000000",
}
"""The per-address limits lifted for a soak, whose every room, connection and replay comes
from one address (loopback): at the defaults it would be refused after a few rooms."""


def soak_env(database_url: str, prefix: str) -> dict[str, str]:
    """Server settings for a soak: rooms in Redis, AI right away, the per-address limits
    lifted (``SOAK_LIMITS``)."""
    return {
        **os.environ,
        "CASH_STASH_REDIS_URL": REDIS_URL,
        "CASH_STASH_REDIS_PREFIX": prefix,
        "CASH_STASH_DATABASE_URL": database_url,
        "CASH_STASH_AI_PAUSE_SECONDS": "0",
        "CASH_STASH_AI_WORKERS": "1",
        "CASH_STASH_TIMEOUT_LEVEL": "easy",
        **{f"CASH_STASH_{name.upper()}": value for name, value in SOAK_LIMITS.items()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument(
        "--seats", type=int, default=3, help="seats per room (2-6): the host and AI players"
    )
    parser.add_argument("--level", default="easy", choices=["easy", "medium", "hard"])
    parser.add_argument("--seconds", type=float, default=900.0, help="give up after this long")
    parser.add_argument("--first-port", type=int, default=18301)
    parser.add_argument(
        "--database-url",
        help="an empty database for the finished games (Postgres: postgresql+asyncpg://…); "
        "default: a SQLite file in a scratch folder",
    )
    args = parser.parse_args()
    prefix = f"cash_stash_soak:{uuid.uuid4().hex[:8]}:"
    with tempfile.TemporaryDirectory() as scratch:
        database_url = args.database_url or f"sqlite+aiosqlite:///{Path(scratch) / 'games.db'}"
        env = soak_env(database_url, prefix)
        subprocess.run(
            [str(Path(sys.executable).parent / "cash-stash"), "migrate"], env=env, check=True
        )
        ports = [args.first_port, args.first_port + 1]
        logs: list[list[str]] = [[], []]
        servers = [serve(env, port, log=log) for port, log in zip(ports, logs, strict=True)]
        started = time.monotonic()
        try:
            played = asyncio.run(
                play_rooms(
                    [f"http://127.0.0.1:{port}" for port in ports],
                    args.rooms,
                    seats=args.seats,
                    level=args.level,
                    seconds=args.seconds,
                )
            )
        finally:
            elapsed = time.monotonic() - started
            for server in servers:
                server.terminate()
            for server in servers:
                try:
                    server.wait(15)
                except subprocess.TimeoutExpired:
                    print(f"server {server.pid} did not stop within 15 s of SIGTERM; killed")
                    server.kill()
            _forget(prefix)
        rows = asyncio.run(stored_games(database_url))
    logged = "".join(line for log in logs for line in log)
    errors = [line for line in logged.splitlines() if " level=error " in line]
    recorded = sum(p.recorded for p in played)
    stored_once = sum(rows.get(p.game_id) == 1 for p in played)
    print(
        f"rooms {args.rooms} (a host and {args.seats - 1} {args.level} AI seats each)"
        " on 2 processes"
    )
    print(f"finished {len(played)}  recorded {recorded}  stored once {stored_once}")
    print(f"errors logged {len(errors)}  elapsed {elapsed:.1f} s")
    for line in errors[:5]:
        print("  ", line)
    ok = recorded == stored_once == args.rooms and not errors
    print("PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)


def _forget(prefix: str) -> None:
    import redis

    with redis.Redis.from_url(REDIS_URL) as client:
        keys = list(client.scan_iter(f"{prefix}*"))
        if keys:
            client.delete(*keys)


if __name__ == "__main__":
    main()
