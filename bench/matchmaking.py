"""Play now under load: players arriving at the queue over a minute, on several processes.

Starts ``--processes`` ``cash-stash serve`` processes sharing one Redis (a key prefix of the
run's own, deleted afterwards) and a fresh SQLite file, then sends ``--players`` players to
``/ws/queue`` for ``--seats``-seat tables, one every ``--seconds / --players`` seconds, dealt
over the processes in turn. Each player waits until the server sends them to a seat. Reports
the median and p95 wait, the wait of the player who completed each table (how long matching
itself takes once a table can be made), the rooms made, the AI seats in them (read back from
each room), and each process's CPU over the run. All players are new (the same rating), so
every table is made of whoever comes first, unless ``--rating-spread`` gives them ratings
(written to the database first): then the window of accepted ratings matters, and a player
the window has not matched in ``--ai-wait`` seconds gets AI::

    python bench/matchmaking.py --players 1000 --seconds 60 --seats 4 --processes 2
    python bench/matchmaking.py --players 1000 --seconds 60 --rating-spread 30
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

import httpx
import redis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script: the repository's root, for ``bench``

from app.db.migrate import upgrade  # noqa: E402
from app.db.repository import public_player_id  # noqa: E402
from bench.servers import serve  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
STARTUP_SECONDS = 30.0


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def one_player(
    port: int, number: int, guest: str, seats: int, waits: dict[int, tuple[float, str]]
) -> None:
    async with connect(f"ws://127.0.0.1:{port}/ws/queue", open_timeout=30) as ws:
        asked = time.monotonic()
        await ws.send(
            json.dumps(
                {
                    "type": "queue",
                    "name": f"P{number}",
                    "player_id": guest,
                    "seats": seats,
                }
            )
        )
        pinging: asyncio.Task[None] | None = None
        try:
            async for raw in ws:
                message = json.loads(raw)
                if message["type"] == "queued":
                    # The queue matches only a player who answers, now and every ping_every.
                    pinging = asyncio.create_task(keep_pinging(ws, message["ping_every"]))
                if message["type"] == "matched":
                    waits[number] = (time.monotonic() - asked, message["code"])
                    return
                if message["type"] == "error":
                    raise RuntimeError(message["message"])
        finally:
            if pinging is not None:
                pinging.cancel()


async def keep_pinging(ws: ClientConnection, every: float) -> None:
    with contextlib.suppress(ConnectionClosed):
        while True:
            await ws.send(json.dumps({"type": "ping"}))
            await asyncio.sleep(every)


def rate_players(path: Path, spread: float, count: int) -> list[str]:
    """``count`` guest ids, each with a rating drawn evenly from 0 to ``spread`` in the
    database (0 for all: every player new)."""
    rng = random.Random(7)
    guests = [str(uuid.UUID(int=rng.getrandbits(128), version=4)) for _ in range(count)]
    if spread > 0:
        with sqlite3.connect(path) as db:
            db.executemany(
                "INSERT INTO players (id, name, mu, sigma, rating, games, rated_games, wins)"
                " VALUES (?, 'bench', ?, 1.0, ?, 10, 10, 5)",
                [
                    (public_player_id(guest), rating + 3.0, rating)
                    for guest in guests
                    for rating in [rng.uniform(0.0, spread)]
                ],
            )
    return guests


async def run(args: argparse.Namespace, database: str, guests: list[str]) -> None:
    prefix = f"cash_stash_bench:{uuid.uuid4().hex[:10]}:"
    env = {
        **os.environ,
        "CASH_STASH_REDIS_URL": args.redis_url,
        "CASH_STASH_REDIS_PREFIX": prefix,
        "CASH_STASH_DATABASE_URL": database,
        "CASH_STASH_QUEUE_AI_WAIT_SECONDS": str(args.ai_wait),
        "CASH_STASH_QUEUE_JOINS_PER_MINUTE": str(args.players),
        "CASH_STASH_QUEUE_SOCKETS_PER_ADDRESS": str(args.players),
        "CASH_STASH_CREATE_LIMIT": str(args.players),
        "CASH_STASH_GAMES_PER_ADDRESS": str(args.players),
        "CASH_STASH_REQUEST_RATE_PER_SECOND": "1000000",
        "CASH_STASH_REQUEST_BURST": "1000000",
        # Nobody connects to the tables made: their seats must not be handed to the AI.
        "CASH_STASH_DISCONNECT_GRACE_SECONDS": "3600",
    }
    ports = [free_port() for _ in range(args.processes)]
    servers: list[subprocess.Popen[str]] = []
    try:
        for port in ports:
            servers.append(serve(env, port, seconds=STARTUP_SECONDS))
        cpu_before = [cpu_seconds(server.pid) for server in servers]
        started = time.monotonic()
        waits: dict[int, tuple[float, str]] = {}
        tasks = []
        gap = args.seconds / args.players
        for number in range(args.players):
            await asyncio.sleep(max(0.0, started + number * gap - time.monotonic()))
            port = ports[number % len(ports)]
            player = one_player(port, number, guests[number], args.seats, waits)
            tasks.append(asyncio.create_task(player))
        await asyncio.gather(*tasks)
        elapsed = time.monotonic() - started
        cpu = [
            cpu_seconds(server.pid) - used for server, used in zip(servers, cpu_before, strict=True)
        ]
        rooms = Counter(code for _, code in waits.values())
        ai_seats = 0
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{ports[0]}", timeout=30) as http:
            for code in rooms:
                room = (await http.get(f"/api/rooms/{code}")).json()
                ai_seats += sum(1 for seat in room["seats"] if seat and seat["kind"] == "ai")
        all_waits = [wait for wait, _ in waits.values()]
        completing = [min(wait for wait, code in waits.values() if code == room) for room in rooms]
        print(
            f"players {len(waits)} over {args.seconds:g} s, ratings 0-{args.rating_spread:g}, "
            f"{args.seats}-seat tables, "
            f"{args.processes} processes, AI after {args.ai_wait:g} s"
        )
        print(
            f"wait: median {statistics.median(all_waits):.2f} s, "
            f"p95 {percentile(all_waits, 0.95):.2f} s, max {max(all_waits):.2f} s"
        )
        print(
            "the player who completed a table: "
            f"median {statistics.median(completing) * 1000:.0f} ms, "
            f"p95 {percentile(completing, 0.95) * 1000:.0f} ms"
        )
        print(f"rooms made {len(rooms)}; people seated {sum(rooms.values())}; AI seats {ai_seats}")
        for number, used in enumerate(cpu):
            print(
                f"process {number}: CPU {used:.2f} s over {elapsed:.1f} s "
                f"({100 * used / elapsed:.1f} % of a core)"
            )
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            with contextlib.suppress(subprocess.TimeoutExpired):
                server.wait(10)
        with redis.Redis.from_url(args.redis_url) as client:
            keys = list(client.scan_iter(f"{prefix}*"))
            if keys:
                client.delete(*keys)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seats", type=int, default=4, choices=range(2, 7))
    parser.add_argument("--processes", type=int, default=2, choices=range(1, 9))
    parser.add_argument("--ai-wait", type=float, default=20.0)
    parser.add_argument(
        "--rating-spread",
        type=float,
        default=0.0,
        help="players' ratings drawn evenly from 0 to this (0: every player new)",
    )
    parser.add_argument(
        "--redis-url",
        default=os.environ.get("CASH_STASH_BENCH_REDIS_URL", "redis://127.0.0.1:6379/14"),
    )
    args = parser.parse_args()
    if not 1 <= args.players <= 5000 or not 1 <= args.seconds <= 600:
        parser.error("--players 1..5000 and --seconds 1..600")
    workdir = Path(tempfile.mkdtemp(prefix="cash-stash-bench-"))
    database = f"sqlite+aiosqlite:///{workdir / 'games.db'}"
    upgrade(database)
    guests = rate_players(workdir / "games.db", args.rating_spread, args.players)
    asyncio.run(run(args, database, guests))


if __name__ == "__main__":
    main()
