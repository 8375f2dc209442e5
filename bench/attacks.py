"""Attacks (issue 44): each attack against one game server while an honest room plays.

Starts one ``cash-stash serve`` (rooms in memory, or ``--redis URL``) on default settings, seats
an honest room of four people (``bench/load.py``'s scripted clients, from 127.0.0.1) and has
them act ``--rate`` times a second, timing each act until the actor's new state. First idle,
then each attack of ``bench/attacks_ws.py``, ``attacks_http.py``, ``attacks_games.py`` and
``attacks_misc.py`` (whichever exist) for ``--seconds``, each in a process of its own: from one
source address of its own, or a hundred for the attacks named ``…@100`` (``addresses_for``). Per
attack it prints the server's CPU (share of one core, from ``/proc/<pid>/stat``), its memory
(RSS at the end and its growth during the attack), the honest act→state p50/p99, what the attack
counted, the attack's own process's CPU (on a small machine it takes cores from the server and
the honest room too), and after a ``@100`` attack whether an honest person could still start a
game. The
table at the end sets each against idle, with the goals: from one address, honest p99 within 2x
idle and the server below half a core; from a hundred, honest players still start::

    python bench/attacks.py
    python bench/attacks.py --only lobby_pages,invisible_names --seconds 10
    python bench/attacks.py --redis redis://127.0.0.1:6379/9
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import os
import resource
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

# Run as a script, this folder's engine.py would shadow the packages the server imports.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import httpx  # noqa: E402
import redis  # noqa: E402

from bench.servers import serve  # noqa: E402
from bench.swarm import (  # noqa: E402
    Swarm,
    cpu_seconds,
    percentile,
    rss_bytes,
    setup_rooms,
    start_games,
)

Attack = Callable[[str, list[str], float], Awaitable[dict[str, float]]]

AREAS = ("attacks_ws", "attacks_http", "attacks_games", "attacks_misc")
"""The modules that may hold attacks, each an ``ATTACKS`` dict; a missing one is skipped."""
HONEST_SEATS = 4
MAX_SECONDS = 120.0
CPU_GOAL = 0.5
"""The server's share of one core an attack from one address may cause."""
P99_GOAL = 2.0
"""How many times idle's p99 the honest p99 may be under an attack from one address."""


@dataclass
class Phase:
    name: str
    cpu: float
    """Share of one core."""
    rss: int
    rss_growth: int
    latencies: list[float]
    counters: dict[str, float] = field(default_factory=dict)
    attacker_cpu: float = 0.0
    """The attack's own process's share of one core: on a machine of two cores, what it takes
    is taken from the honest room's client and the server too."""
    honest_start: str = ""
    """After a ``@100`` attack: the status of an honest person's start (or empty)."""

    @property
    def p50(self) -> float:
        return percentile(sorted(self.latencies), 0.5)

    @property
    def p99(self) -> float:
        return percentile(sorted(self.latencies), 0.99)


def load_attacks(only: set[str], *, quiet: bool = False) -> dict[str, Attack]:
    attacks: dict[str, Attack] = {}
    for area in AREAS:
        try:
            module = importlib.import_module(f"bench.{area}")
        except ModuleNotFoundError as missing:
            if missing.name != f"bench.{area}":
                raise
            if not quiet:
                print(f"({area}.py not here: skipped)")
            continue
        attacks.update(module.ATTACKS)
    return {name: run for name, run in attacks.items() if not only or name in only}


def addresses_for(name: str) -> list[str]:
    """The source addresses of attack ``name``: its own, so that what one attack leaves in an
    address's limits (games in play, joins a minute, replay bytes) is not the next one's.
    Attack number i (in ``load_attacks``'s order) sends from 127.0.(i+1).2, or, for a ``@100``
    attack, from 127.(i+10).0.2 to 127.(i+10).0.101; the honest room is 127.0.0.1."""
    index = list(load_attacks(set(), quiet=True)).index(name)
    if name.endswith("@100"):
        return [f"127.{index + 10}.0.{2 + n}" for n in range(100)]
    return [f"127.0.{index + 1}.2"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def honest_start(base_url: str) -> str:
    """Whether a person (from 127.0.0.1) can still make a table with a bot and start it."""
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as http:
        made = await http.post("/api/rooms", json={"name": "Honest", "seats": 2})
        if made.status_code != 201:
            return f"create {made.status_code}"
        code, token = made.json()["code"], made.json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        bot = await http.post(f"/api/rooms/{code}/bots", json={}, headers=auth)
        if bot.status_code != 201:
            return f"bot {bot.status_code}"
        started = await http.post(f"/api/rooms/{code}/start", headers=auth)
        return "started" if started.is_success else f"start {started.status_code}"


async def attack_apart(name: str, base_url: str, seconds: float) -> dict[str, float]:
    """Run the attack in a process of its own, so that its clients' work does not delay the
    honest room's (which shares nothing with it but the server); what it counted, with the
    process's own CPU seconds as ``attacker_cpu_seconds``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--one",
        name,
        "--url",
        base_url,
        "--seconds",
        str(seconds),
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(seconds + 60):
            out, _ = await child.communicate()
    except TimeoutError:
        child.kill()
        await child.wait()
        return {"unfinished": 1.0}
    if child.returncode != 0:
        return {"failed": 1.0}
    counters: dict[str, float] = json.loads(out.decode().splitlines()[-1])
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the child is reaped: counted here
    counters["attacker_cpu_seconds"] = (
        after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    )
    return counters


def run_one(name: str, base_url: str, seconds: float) -> None:
    """``--one``: run one attack here and print its counters as JSON on the last line."""
    attack = load_attacks({name}, quiet=True)[name]
    print(json.dumps(asyncio.run(attack(base_url, addresses_for(name), seconds))))


async def phase(
    name: str,
    attack: Attack | None,
    *,
    pid: int,
    swarm: Swarm,
    base_url: str,
    args: argparse.Namespace,
) -> Phase:
    print(f"{name}: {args.seconds:.0f} s", flush=True)
    first = len(swarm.stats.latencies)
    rss_before = rss_bytes(pid)
    cpu_before, clock = cpu_seconds(pid), time.monotonic()
    honest = asyncio.create_task(swarm.drive(args.rate, args.seconds))
    counters: dict[str, float] = {}
    if attack is not None:
        counters = await attack_apart(name, base_url, args.seconds)
    await honest
    await swarm.settle()
    cpu = (cpu_seconds(pid) - cpu_before) / (time.monotonic() - clock)
    rss = rss_bytes(pid)
    elapsed = time.monotonic() - clock
    done = Phase(name, cpu, rss, rss - rss_before, swarm.stats.latencies[first:], counters)
    done.attacker_cpu = counters.pop("attacker_cpu_seconds", 0.0) / elapsed
    if name.endswith("@100"):
        done.honest_start = await honest_start(base_url)
    print(
        f"  cpu {done.cpu:.0%} (attacker {done.attacker_cpu:.0%})"
        f"  rss {rss / 2**20:.0f} MB ({done.rss_growth / 2**20:+.0f})"
        f"  honest p50 {done.p50:.1f} ms p99 {done.p99:.1f} ms ({len(done.latencies)} acts)"
        f"  {' '.join(f'{k}={v:g}' for k, v in sorted(counters.items()))}"
        + (f"  honest start: {done.honest_start}" if done.honest_start else ""),
        flush=True,
    )
    # Let what the attack left (closing sockets, AI turns) settle before the next one.
    await asyncio.sleep(args.pause)
    return done


def verdict(done: Phase, idle: Phase) -> str:
    if done.name.endswith("@100"):
        return "ok" if done.honest_start == "started" else "honest refused"
    misses = []
    if done.p99 > P99_GOAL * idle.p99:
        misses.append("p99")
    if done.cpu > CPU_GOAL:
        misses.append("cpu")
    return "ok" if not misses else "over: " + ",".join(misses)


def table(phases: list[Phase]) -> None:
    idle = phases[0]
    print()
    print(
        f"{'attack':<24} {'cpu':>5} {'atk':>5} {'rss MB':>7} {'grew':>5} {'p50 ms':>7}"
        f" {'p99 ms':>7} {'p99/idle':>8}  goal"
    )
    for done in phases:
        ratio = done.p99 / idle.p99 if idle.p99 else float("nan")
        print(
            f"{done.name:<24} {done.cpu:>5.0%} {done.attacker_cpu:>5.0%} {done.rss / 2**20:>7.0f}"
            f" {done.rss_growth / 2**20:>+5.0f} {done.p50:>7.1f} {done.p99:>7.1f}"
            f" {ratio:>8.1f}  {'—' if done is idle else verdict(done, idle)}"
        )


async def run(args: argparse.Namespace, attacks: dict[str, Attack]) -> list[Phase]:
    port = free_port()
    base_url = f"http://127.0.0.1:{port}"
    # Default settings but for where finished games go: a scratch SQLite file of this run's,
    # which the server migrates as it starts (a database in memory is not migrated, and no
    # finished game, which the replay and practice attacks need, would be recorded).
    scratch = tempfile.mkdtemp(prefix="cash-stash-attacks-")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("CASH_STASH_")},
        "CASH_STASH_DATABASE_URL": f"sqlite+aiosqlite:///{scratch}/games.db",
    }
    if args.redis:
        env["CASH_STASH_REDIS_URL"] = args.redis
        env["CASH_STASH_REDIS_PREFIX"] = f"cash_stash_attacks:{port}:"
    server = serve(env, port)
    try:
        rooms = await setup_rooms(base_url, 1, HONEST_SEATS)
        await start_games(base_url, rooms)
        limits = httpx.Limits(keepalive_expiry=2.0)  # before the server's 5 s keep-alive
        async with httpx.AsyncClient(base_url=base_url, timeout=30, limits=limits) as rest:
            swarm = Swarm(
                lambda room, seat: f"ws://127.0.0.1:{port}/ws/{room.code}",
                rooms,
                rest=lambda room: rest,
            )
            await swarm.connect_all()
            await swarm.ready()
            kwargs = {"pid": server.pid, "swarm": swarm, "base_url": base_url, "args": args}
            phases = [await phase("idle", None, **kwargs)]
            for name, attack in attacks.items():
                phases.append(await phase(name, attack, **kwargs))
            await swarm.close()
        return phases
    finally:
        server.terminate()
        with contextlib.suppress(Exception):
            server.wait(10)
        shutil.rmtree(scratch, ignore_errors=True)
        if args.redis:
            with redis.Redis.from_url(args.redis) as client:
                keys = list(client.scan_iter(f"cash_stash_attacks:{port}:*"))
                if keys:
                    client.delete(*keys)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="each attack's length")
    # Ten acts a second for 30 s: a p99 of 300 acts, not the slowest of 80 (one late act).
    parser.add_argument("--rate", type=float, default=10.0, help="honest acts a second")
    parser.add_argument("--redis", default="", help="rooms in this Redis (default: memory)")
    parser.add_argument("--only", default="", help="comma-separated attack names")
    parser.add_argument("--pause", type=float, default=3.0, help="seconds between attacks")
    parser.add_argument("--one", default="", help=argparse.SUPPRESS)
    parser.add_argument("--url", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.seconds = min(args.seconds, MAX_SECONDS)
    if args.one:
        run_one(args.one, args.url, args.seconds)
        return
    attacks = load_attacks({name for name in args.only.split(",") if name})
    table(asyncio.run(run(args, attacks)))


if __name__ == "__main__":
    main()
