"""Load: a swarm of WebSocket seats playing many rooms at once, against the game server and
against a bare fan-out server (``bench/bare.py``) in the same run.

Sets up ``--rooms`` rooms of ``--seats`` seats on ``--processes`` game server processes sharing
one store (rooms in Redis), connects every seat, then plays open loop: each room's seat to act
sends a random legal action every ``1 / rate`` seconds (a tick whose previous action has not
come back yet is counted as missed, not queued). Each room's seats all go to one process, chosen
by consistent hashing on the room code, the affinity a proxy gives (nginx's ``hash …
consistent``); with ``--spread`` they are dealt over the processes instead (the worst case, no
affinity). The bare server (one process) gets the same swarm, its views padded to the game
server's size. Each rate is played ``--repeats`` times per server, the two taking turns. Per
rate it reports medians of actions/s, views/s and server CPU per action (summed over the game
processes), p50/p99 action-to-view latency (from sending to the actor seeing the new version)
over all the rate's actions, and the ratio of CPU per action; per game process, the commit
announcements it heard against the moves of the rooms it serves; bytes of ``state`` per move and
seat, and the median ``state`` after move 20 of a game; Redis commands and bytes per move (from
each node's ``INFO``); after connecting, each server's memory per idle connection, and at the
end a mid-game room's memory in Redis. With ``--find-p99 MS`` it then looks for the game
server's fastest rate that it keeps up with at a p99 within MS.

The servers are pinned to one core, this generator to the other, with a Redis of the run's own
(``redis-server`` on a free port, nothing saved) on the generator's core: left to float, the
machine's Redis was woken on the server's core by each commit and took turns with it there, and
that waiting showed as the server's latency. ``--cluster`` starts a local Redis Cluster instead
(three primaries with a replica each, ``tests/redis_cluster.py``), its six nodes on the
generator's core too. ``CASH_STASH_BENCH_REDIS_URL`` names another single Redis instead (not
pinned). Loopback only; bounded in rooms, seconds and repeats; stops its servers itself::

    python bench/load.py --rooms 250 --seats 4 --rates 0.5,1,2 --seconds 10 --repeats 3
    python bench/load.py --rooms 250 --rates 1 --processes 2 --cluster --wait-replicas 1
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import gc
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
import uuid
import zlib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if sys.path[:1] != [str(ROOT)]:  # this folder's engine.py must not be what is found
    sys.path.insert(0, str(ROOT))

from bench.load_redis import (  # noqa: E402
    Backing,
    RedisStep,
    forget,
    redis_counters,
    redis_for_run,
    redis_memory,
    redis_step,
    room_memory,
)
from bench.phases.sitecustomize import COLLECTOR, COUNTED, PHASES  # noqa: E402
from bench.servers import pin, progress, wait_for_line  # noqa: E402
from bench.swarm import (  # noqa: E402
    LATE_MOVE,
    Room,
    Seat,
    Swarm,
    cpu_seconds,
    median,
    percentile,
    rss_bytes,
    setup_rooms,
    start_games,
)

MAX_ROOMS = 2000
MAX_SECONDS = 120.0
MAX_REPEATS = 9
MAX_PROCESSES = 8
RING_POINTS = 160
"""Points per process on the hash ring (as nginx's ``hash … consistent``, ketama's 160)."""
SEARCH_GROWTH = 1.25
"""How much faster each step of ``--find-p99`` plays than the last, until one misses."""
SEARCH_MAX_RATE = 20.0
"""Actions per second per room beyond which ``--find-p99`` stops looking."""


@dataclass
class Step:
    """One server at one rate for one stretch of ``--seconds``."""

    rate: float
    actions_per_second: float
    views_per_second: float
    view_bytes: float
    latencies: list[float]
    """Seconds from each act to its view, sorted."""
    cpu_per_action_ms: float
    cpu_share: float
    generator_share: float
    """This load generator's own CPU use: near 100% means it, not the server, is the limit."""
    missed: int
    closed: int = 0
    """Seats the server closed during the step."""
    dropped: float = 0.0
    """Connections the server dropped as too slow (its queue-drop counter) during the step."""
    conflicts: float = 0.0
    """Commits the server lost to a moved version during the step."""
    bytes_per_move_per_seat: float = 0.0
    """Bytes of ``state`` the swarm received per move and seat."""
    processes: list[ProcessStep] = field(default_factory=list)
    """Each game server process's part (none for the bare server)."""
    redis: RedisStep | None = None
    late_sizes: list[int] = field(default_factory=list)
    """Bytes of each ``state`` past move ``LATE_MOVE`` of its game."""
    late_samples: list[str] = field(default_factory=list)
    phases: dict[str, float] = field(default_factory=dict)
    """``--phases``: µs of the game server's CPU per move in each phase, over its processes
    (``bench/phases/sitecustomize.py``), and under ``ALL_CPU`` all of it."""
    calls: dict[str, float] = field(default_factory=dict)
    """``--phases``: calls per move of each phase's function (and of each counted one)."""


@dataclass
class ProcessStep:
    """One game server process during a step."""

    heard_per_second: float
    """Commit announcements it heard on its rooms' channels (its own commits' included)."""
    served_moves_per_second: float
    """Moves made in the rooms it holds a connection to (the swarm's count)."""
    all_moves_per_second: float
    committed_per_second: float
    """Actions it committed itself."""
    cpu_share: float
    rooms: int
    """Rooms it holds a connection to."""


COUNTERS = (
    "cash_stash_queue_drops_total",
    "cash_stash_commit_conflicts_total",
    'cash_stash_room_events_total{kind="commit"}',
    'cash_stash_room_events_total{kind="message"}',
    'cash_stash_room_events_total{kind="resync"}',
    'cash_stash_actions_total{mover="player"}',
)
HEARD, COMMITTED = COUNTERS[2], COUNTERS[5]
METRICS_TOKEN = uuid.uuid4().hex
"""The game server's ``/metrics`` answers only this run's bearer of it."""


async def process_counters(http: httpx.AsyncClient) -> dict[str, float]:
    """One process's counters; an answer other than 200 stops the run (counters silently
    missing would read as zeros)."""
    answer = await http.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
    answer.raise_for_status()
    text = answer.text
    return {
        name: float(value)
        for name, _, value in (line.rpartition(" ") for line in text.splitlines())
        if name in COUNTERS
    }


@dataclass
class Target:
    """A running server, its connected swarm, and what was measured of it."""

    name: str
    swarm: Swarm
    pids: list[int]
    """Its processes (the game server may have several; the bare server has one)."""
    http: list[httpx.AsyncClient] = field(default_factory=list)
    """Each game server process's REST API (counters); empty for the bare server."""
    redis_nodes: list[str] = field(default_factory=list)
    """The game server's Redis nodes, to read their counters; empty for the bare server."""
    compressed: bool = False
    """Per-message deflate was on (its ``state`` sizes on the wire are then reported)."""
    idle_bytes_per_connection: float = 0.0
    room_memory: dict[str, float] = field(default_factory=dict)
    """A mid-game room's memory in Redis (``room_memory``); the game server's only."""
    steps: list[Step] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)
    """CSV rows: server, offered rate, send time in the step (s), latency (ms)."""
    phases: str | None = None
    """``--phases``: where each game server process writes its phases' totals (``.<pid>``)."""


async def step(target: Target, rate: float, seconds: float) -> Step:
    """Play one rate for ``seconds`` against one server and measure it."""
    swarm, stats = target.swarm, target.swarm.stats
    offered = rate * len(swarm.rooms)
    progress(f"{target.name}: {offered:.0f} actions/s offered for {seconds:.0f} s")
    before = (stats.views, stats.view_bytes, len(stats.latencies), stats.missed, stats.closed)
    late_before = len(stats.late_sizes)
    samples_before = len(stats.late_samples)
    moves_before = [room.moves for room in swarm.rooms]
    counters = await asyncio.gather(*(process_counters(http) for http in target.http))
    nodes_before = redis_counters(target.redis_nodes)
    phases_before = await phase_totals(target)
    # The generator's own collections (up to 0.9 s over 4,000 client connections) would
    # show as the server's latency: collect now, and not during the step.
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        cpu_before = [cpu_seconds(pid) for pid in target.pids]
        generator_before = time.process_time()
        started, started_clock = time.monotonic(), time.perf_counter()
        await swarm.drive(rate, seconds)
        elapsed = time.monotonic() - started
        # Still without collections: taken at once (and the counters with them), they
        # held up the last actions' views for up to 0.4 s and showed in the server's p99.
        await swarm.settle()
        cpu = [cpu_seconds(pid) - used for pid, used in zip(target.pids, cpu_before, strict=True)]
        generator = time.process_time() - generator_before
    finally:
        gc.enable()
    nodes_after = redis_counters(target.redis_nodes)
    phases_after = await phase_totals(target)
    counters_after = await asyncio.gather(*(process_counters(http) for http in target.http))
    change = [
        {name: value - old.get(name, 0.0) for name, value in new.items()}
        for old, new in zip(counters, counters_after, strict=True)
    ]
    latencies = stats.latencies[before[2] :]
    target.trace.extend(
        f"{target.name},{offered:.0f},{sent - started_clock:.3f},{1000 * latency:.1f}"
        for sent, latency in zip(stats.sent_at[before[2] :], latencies, strict=True)
    )
    views = stats.views - before[0]
    moves = len(latencies)
    room_moves = [room.moves - old for room, old in zip(swarm.rooms, moves_before, strict=True)]
    processes = [
        ProcessStep(
            heard_per_second=change[number].get(HEARD, 0.0) / elapsed,
            served_moves_per_second=sum(
                made
                for room, made in zip(swarm.rooms, room_moves, strict=True)
                if number in room.processes
            )
            / elapsed,
            all_moves_per_second=moves / elapsed,
            committed_per_second=change[number].get(COMMITTED, 0.0) / elapsed,
            cpu_share=cpu[number] / elapsed,
            rooms=sum(1 for room in swarm.rooms if number in room.processes),
        )
        for number in range(len(target.http))
    ]
    measured = Step(
        rate=offered,
        actions_per_second=moves / elapsed,
        views_per_second=views / elapsed,
        view_bytes=(stats.view_bytes - before[1]) / max(views, 1),
        latencies=sorted(latencies),
        cpu_per_action_ms=1000 * sum(cpu) / max(moves, 1),
        cpu_share=sum(cpu) / elapsed,
        generator_share=generator / elapsed,
        missed=stats.missed - before[3],
        closed=stats.closed - before[4],
        dropped=sum(each.get(COUNTERS[0], 0.0) for each in change),
        conflicts=sum(each.get(COUNTERS[1], 0.0) for each in change),
        bytes_per_move_per_seat=(stats.view_bytes - before[1])
        / max(moves, 1)
        / len(swarm.rooms[0].seats),
        processes=processes,
        redis=redis_step(nodes_before, nodes_after, moves, elapsed) if nodes_before else None,
        late_sizes=stats.late_sizes[late_before:],
        late_samples=stats.late_samples[samples_before:],
        phases=per_move(phases_before, phases_after, moves),
        calls=per_move(phases_before, phases_after, moves, calls=True),
    )
    # Let the last actions come back before the next step.
    await asyncio.sleep(1)
    for room in swarm.rooms:
        room.pending = None
    return measured


ALL_CPU = "all the process's CPU"


async def phase_totals(target: Target) -> list[dict[str, Any]]:
    """Each game server process's phase totals now (``--phases``; none without it): asked for
    with ``SIGUSR1``, read once the process has written them anew."""
    if target.phases is None:
        return []
    totals: list[dict[str, Any]] = []
    for pid in target.pids:
        path = Path(f"{target.phases}.{pid}")
        before = _phases_written(path)
        os.kill(pid, signal.SIGUSR1)
        for _ in range(200):
            await asyncio.sleep(0.01)
            read = _phases_written(path)
            if read is not None and (before is None or read["written"] > before["written"]):
                totals.append(read)
                break
        else:
            raise RuntimeError(f"process {pid} wrote no phases (is bench/phases on its path?)")
    return totals


def _phases_written(path: Path) -> dict[str, Any] | None:
    if not path.exists():
        return None
    written: dict[str, Any] = json.loads(path.read_text())
    return written


def per_move(
    before: list[dict[str, Any]], after: list[dict[str, Any]], moves: int, *, calls: bool = False
) -> dict[str, float]:
    """µs per move of each phase between two readings, summed over the processes (``calls``:
    calls per move instead, and no ``ALL_CPU``)."""
    phases: dict[str, float] = {}
    which, scale = (1, 1.0) if calls else (0, 1000.0)
    for old, new in zip(before, after, strict=True):
        for label, totals in new["phases"].items():
            spent = totals[which] - old["phases"].get(label, [0, 0])[which]
            phases[label] = phases.get(label, 0.0) + spent / scale / max(moves, 1)
        if not calls:
            spent = new["cpu_ns"] - old["cpu_ns"]
            phases[ALL_CPU] = phases.get(ALL_CPU, 0.0) + spent / scale / max(moves, 1)
    return phases


async def connect_seats(target: Target, args: argparse.Namespace) -> None:
    """Connect every seat and measure the server's memory per idle connection."""
    idle_before = sum(rss_bytes(pid) for pid in target.pids)
    progress(f"{target.name}: connecting {args.rooms * args.seats} seats")
    await target.swarm.connect_all()
    await target.swarm.ready()
    await asyncio.sleep(2)
    target.idle_bytes_per_connection = (
        sum(rss_bytes(pid) for pid in target.pids) - idle_before
    ) / (args.rooms * args.seats)


class Ring:
    """Consistent hashing of room codes onto processes, as the proxy's affinity does: each
    process owns ``RING_POINTS`` points of a circle of CRC-32 values, and a room goes to the
    owner of the first point at or after its code's hash, so adding a process moves only the
    rooms that fall to it."""

    def __init__(self, processes: int) -> None:
        points = sorted(
            (zlib.crc32(f"app{number}-{point}".encode()), number)
            for number in range(processes)
            for point in range(RING_POINTS)
        )
        self._hashes = [point for point, _ in points]
        self._owners = [owner for _, owner in points]

    def process_of(self, code: str) -> int:
        at = bisect.bisect_left(self._hashes, zlib.crc32(code.encode())) % len(self._hashes)
        return self._owners[at]


@asynccontextmanager
async def game_server(args: argparse.Namespace, backing: Backing) -> AsyncIterator[Target]:
    """``--processes`` of ``cash-stash serve`` on one store, pinned to the first core, with
    the rooms set up and every seat connected; stopped (and their Redis keys deleted)
    afterwards."""
    ports = [args.first_port + number for number in range(args.processes)]
    prefix = f"cash_stash_load:{uuid.uuid4().hex[:8]}:"
    env = {
        **os.environ,
        "CASH_STASH_REDIS_URL": backing.url,
        "CASH_STASH_REDIS_PREFIX": prefix,
        "CASH_STASH_REDIS_CLUSTER": "true" if backing.cluster else "false",
        "CASH_STASH_REDIS_WAIT_REPLICAS": str(args.wait_replicas),
        "CASH_STASH_DATABASE_URL": "sqlite+aiosqlite:///:memory:",
        "CASH_STASH_AI_WORKERS": "0",
        "CASH_STASH_JOIN_LIMIT": "1000000",
        "CASH_STASH_CREATE_LIMIT": "1000000",
        "CASH_STASH_REQUEST_RATE_PER_SECOND": "1000000",
        "CASH_STASH_REQUEST_BURST": "1000000",
        "CASH_STASH_MAX_WAITING_ROOMS": "1000000",
        # Every room is made and played from one address (loopback): the shares of it lifted.
        "CASH_STASH_WAITING_ROOMS_PER_ADDRESS": "1000000",
        "CASH_STASH_GAMES_PER_ADDRESS": "1000000",
        "CASH_STASH_MAX_GAMES_IN_PLAY": "1000000",
        "CASH_STASH_WS_CONNECTIONS_PER_ADDRESS": "1000000",
        "CASH_STASH_WS_MESSAGES_PER_SECOND": "1000",
        "CASH_STASH_WS_MESSAGES_PER_ADDRESS_PER_SECOND": "1000000",
        "CASH_STASH_WS_MESSAGES_PER_ADDRESS_BURST": "1000000",
        # Each connection's first state is a whole one, budgeted per address: 2 a second.
        "CASH_STASH_WS_WHOLE_STATES_PER_SECOND": "1000000",
        "CASH_STASH_WS_WHOLE_STATES_BURST": "1000000",
        "CASH_STASH_DISCONNECT_GRACE_SECONDS": "3600",
        "CASH_STASH_LOG_LEVEL": "warning",
        "CASH_STASH_METRICS_TOKEN": METRICS_TOKEN,
        "CASH_STASH_WS_COMPRESSION": "true" if args.compression else "false",
    }
    phases = None
    if args.phases:
        phases = str(Path(tempfile.mkdtemp(prefix="cash_stash_phases_")) / "phases")
        env["CASH_STASH_BENCH_PHASES"] = phases
        env["PYTHONPATH"] = os.pathsep.join(
            filter(None, [str(BENCH / "phases"), os.environ.get("PYTHONPATH")])
        )
    command = [str(Path(sys.executable).parent / "cash-stash"), "serve", "--port"]
    memory_before = redis_memory(backing)
    with contextlib.ExitStack() as stack:
        logs = [stack.enter_context(tempfile.TemporaryFile("w+")) for _ in ports]
        processes: list[subprocess.Popen[str]] = []
        try:
            for port, log in zip(ports, logs, strict=True):
                processes.append(
                    subprocess.Popen(  # noqa: ASYNC220
                        [*command, str(port)], env=env, stderr=log, text=True
                    )
                )
                pin(processes[-1].pid, 0)
            # Used between steps too: idle connections go before the server's keep-alive
            # (5 s) closes them, or a request may meet a connection being closed.
            limits = httpx.Limits(keepalive_expiry=2.0)
            async with contextlib.AsyncExitStack() as clients:
                http = [
                    await clients.enter_async_context(
                        httpx.AsyncClient(
                            base_url=f"http://127.0.0.1:{port}", timeout=30, limits=limits
                        )
                    )
                    for port in ports
                ]
                for one in http:
                    await _wait_healthy(one)
                progress(f"game server: creating {args.rooms} rooms of {args.seats}")
                base = f"http://127.0.0.1:{ports[0]}"
                rooms = await setup_rooms(base, args.rooms, args.seats)
                await start_games(base, rooms)
                ring = Ring(args.processes)
                for room in rooms:
                    for seat in room.seats:
                        seat.process = (
                            seat.index % args.processes
                            if args.spread
                            else ring.process_of(room.code)
                        )

                def url(room: Room, seat: Seat) -> str:
                    return f"ws://127.0.0.1:{ports[seat.process]}/ws/{room.code}"

                def rest(room: Room) -> httpx.AsyncClient:
                    return http[room.seats[0].process]

                target = Target(
                    "game server",
                    Swarm(url, rooms, rest),
                    [process.pid for process in processes],
                    http,
                    backing.nodes,
                    compressed=args.compression,
                    phases=phases,
                )
                await connect_seats(target, args)
                try:
                    yield target
                    target.room_memory = room_memory(backing, prefix, rooms, memory_before)
                finally:
                    await target.swarm.close()
        finally:
            for process in processes:
                process.terminate()
            for process in processes:
                process.wait(15)
            if not backing.cluster:
                forget(backing.url, prefix)
            for log in logs:
                log.seek(0)
                problems = [line for line in log if " level=error " in line or "Traceback" in line]
                print("".join(problems[:10]), end="")


async def _wait_healthy(http: httpx.AsyncClient) -> None:
    for _ in range(100):
        try:
            await http.get("/healthz")
            return
        except httpx.TransportError:
            await asyncio.sleep(0.1)


@asynccontextmanager
async def bare_server(args: argparse.Namespace) -> AsyncIterator[Target]:
    """``bench/bare.py`` on the same core as the game server, every seat connected."""
    port = args.first_port + args.processes
    command = [sys.executable, str(BENCH / "bare.py"), "--port", str(port)]
    if args.compression:
        command.append("--compression")
    command += ["--padding", args.bare_padding]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)  # noqa: ASYNC220
    try:
        pin(process.pid, 0)
        wait_for_line(process, "serving")
        rooms = [
            Room(f"R{number}", None, [Seat(index) for index in range(args.seats)])
            for number in range(args.rooms)
        ]

        def url(room: Room, seat: Seat) -> str:
            return f"ws://127.0.0.1:{port}/ws/{room.code}?seat={seat.index}&seats={args.seats}"

        target = Target("bare fan-out", Swarm(url, rooms), [process.pid])
        await connect_seats(target, args)
        try:
            yield target
        finally:
            await target.swarm.close()
    finally:
        process.terminate()
        process.wait(15)


def wire_size(text: str) -> int:
    """A state's size with per-message deflate, compressed whole and on its own (no context
    takeover). The game server compresses a state's own head and the tail every seat's state
    shares apart (``app/transport/deflate.py``: ``joined``), which sends about 7% more."""
    from app.transport.deflate import SharedCompression

    return len(SharedCompression().deflated(text.encode()))


async def run(args: argparse.Namespace, backing: Backing) -> tuple[Target, Target, list[Step]]:
    """Both servers up at once; each rate played ``--repeats`` times, the two servers taking
    turns, so a change in the machine's speed during the run falls on both alike. Then, with
    ``--find-p99``, the search for the game server's fastest rate within that p99."""
    async with game_server(args, backing) as game, bare_server(args) as bare:
        for rate in args.rates:
            for _ in range(args.repeats):
                with _aside(bare):
                    game.steps.append(await step(game, rate, args.seconds))
                bare.swarm.pad_to = int(game.steps[-1].view_bytes)
                with _aside(game):
                    bare.steps.append(await step(bare, rate, args.seconds))
        with _aside(bare):
            searched = [] if args.find_p99 is None else await find_rate(game, args)
    return game, bare, searched


IDLE_NICENESS = 19


def _may_renice() -> bool:
    """Whether this generator may give a server its priority back after lowering it."""
    return os.geteuid() == 0 or resource.getrlimit(resource.RLIMIT_NICE)[0] >= 20


@contextlib.contextmanager
def _aside(idle: Target) -> Iterator[None]:
    """The server not being measured at the lowest CPU priority while the other plays. Both
    share one core: idle, the bare server's keepalive pings to its 4,000 connections and its
    collections of them took a third of the core for seconds at a time, and the game server
    waited for it (its p99 showed those seconds). It still runs whenever the core is free.
    Without the right to raise a priority again, both servers keep theirs (and say so)."""
    if not _may_renice():
        progress(f"{idle.name} stays at its priority (no right to raise it back)")
        yield
        return
    threads = [int(task.name) for pid in idle.pids for task in Path(f"/proc/{pid}/task").iterdir()]
    for thread in threads:
        os.setpriority(os.PRIO_PROCESS, thread, IDLE_NICENESS)
    try:
        yield
    finally:
        for thread in threads:
            with contextlib.suppress(ProcessLookupError):
                os.setpriority(os.PRIO_PROCESS, thread, 0)


def within(measured: Step, p99_ms: float) -> bool:
    """The server kept up (98% of the offered actions done) with p99 at most ``p99_ms``."""
    kept_up = measured.actions_per_second >= 0.98 * measured.rate
    return kept_up and percentile(measured.latencies, 0.99) <= p99_ms


async def find_rate(game: Target, args: argparse.Namespace) -> list[Step]:
    """Game server steps from the lowest of ``--rates`` up, each ``SEARCH_GROWTH`` faster,
    until one misses ``--find-p99``; then ``--search-steps`` halvings of the gap between the
    last step within it and the first beyond. One step per rate: read it with the spread of
    the repeated steps above."""
    limit, rooms = args.find_p99, len(game.swarm.rooms)
    steps: list[Step] = []
    best: Step | None = None
    beyond: Step | None = None
    rate = min(args.rates)
    while beyond is None and rate <= SEARCH_MAX_RATE:
        steps.append(await step(game, rate, args.seconds))
        if within(steps[-1], limit):
            best, rate = steps[-1], rate * SEARCH_GROWTH
        else:
            beyond = steps[-1]
    for _ in range(args.search_steps):
        if best is None or beyond is None:
            break
        steps.append(await step(game, (best.rate + beyond.rate) / 2 / rooms, args.seconds))
        if within(steps[-1], limit):
            best = steps[-1]
        else:
            beyond = steps[-1]
    return steps


def report_search(searched: list[Step], p99_ms: float) -> None:
    print(f"\ngame server, searching for the fastest rate with p99 <= {p99_ms:.0f} ms:")
    print("  offered/s  actions/s  p50 ms  p99 ms  CPU ms/action  within")
    for measured in searched:
        print(
            f"  {measured.rate:9.0f}  {measured.actions_per_second:9.1f}"
            f"  {percentile(measured.latencies, 0.5):6.1f}"
            f"  {percentile(measured.latencies, 0.99):6.1f}"
            f"  {measured.cpu_per_action_ms:13.2f}  {'yes' if within(measured, p99_ms) else 'no'}"
        )
    good = [measured.rate for measured in searched if within(measured, p99_ms)]
    if good:
        print(f"  fastest within: {max(good):.0f} actions/s offered")
    else:
        print("  no rate tried was within it")


def report(target: Target) -> None:
    """Per rate: medians over the repeats, and latency percentiles over all their actions."""
    views = [s.view_bytes for s in target.steps]
    print(f"\n{target.name}: {target.swarm.stats.views} views, median {median(views):.0f} B")
    print(f"  memory per idle connection: {target.idle_bytes_per_connection / 1024:.1f} KiB")
    print(
        "  offered/s  actions/s  views/s  p50 ms  p99 ms  CPU ms/action  CPU share"
        "  generator  missed  closed  dropped  conflicts"
    )
    for rate, steps in by_rate(target).items():
        latencies = sorted(latency for s in steps for latency in s.latencies)
        print(
            f"  {rate:9.0f}  {median(s.actions_per_second for s in steps):9.1f}"
            f"  {median(s.views_per_second for s in steps):7.0f}"
            f"  {percentile(latencies, 0.5):6.1f}  {percentile(latencies, 0.99):6.1f}"
            f"  {median(s.cpu_per_action_ms for s in steps):13.2f}"
            f"  {median(s.cpu_share for s in steps):9.0%}"
            f"  {median(s.generator_share for s in steps):9.0%}"
            f"  {sum(s.missed for s in steps):6d}  {sum(s.closed for s in steps):6d}"
            f"  {sum(s.dropped for s in steps):7.0f}"
            f"  {sum(s.conflicts for s in steps):9.0f}"
        )
    if any(len(steps) > 1 for steps in by_rate(target).values()):
        # A stall in one step sets the p99 of the whole rate: show how the steps differ.
        print("  p99 ms of each step:")
        for rate, steps in by_rate(target).items():
            shown = "  ".join(f"{percentile(s.latencies, 0.99):.1f}" for s in steps)
            print(f"  {rate:9.0f}  {shown}")


def report_game(game: Target) -> None:
    """What only the game server has: each process's part, the bytes on the wire, Redis's
    work per move and a room's memory in Redis."""
    print("\n  per process (medians over the steps): commit announcements heard/s against the")
    print("  moves/s of the rooms it serves, and against all the rooms' moves/s:")
    print(
        "  offered/s  process  rooms  heard/s  served moves/s  heard/served  heard/all"
        "  committed/s  CPU share"
    )
    for rate, steps in by_rate(game).items():
        for number in range(len(game.pids)):
            parts = [s.processes[number] for s in steps]
            served = [p.heard_per_second / max(p.served_moves_per_second, 1e-9) for p in parts]
            of_all = [p.heard_per_second / max(p.all_moves_per_second, 1e-9) for p in parts]
            print(
                f"  {rate:9.0f}  {number:7d}  {parts[0].rooms:5d}"
                f"  {median(p.heard_per_second for p in parts):7.1f}"
                f"  {median(p.served_moves_per_second for p in parts):14.1f}"
                f"  {median(served):12.2f}  {median(of_all):9.2f}"
                f"  {median(p.committed_per_second for p in parts):11.1f}"
                f"  {median(p.cpu_share for p in parts):9.0%}"
            )
    print(
        f"\n  state bytes: per move and seat, and the median state after move {LATE_MOVE}"
        " of a game:"
    )
    for rate, steps in by_rate(game).items():
        late = sorted(size for s in steps for size in s.late_sizes)
        shown = f"{median(late):.0f} B over {len(late)} states" if late else "none that late"
        samples = [text for s in steps for text in s.late_samples]
        if samples and game.compressed:
            shown += f", {median(wire_size(text) for text in samples):.0f} B on the wire"
        print(
            f"  {rate:9.0f}  {median(s.bytes_per_move_per_seat for s in steps):7.0f} B per move"
            f" and seat; after move {LATE_MOVE}: {shown}"
        )
    if any(s.redis for s in game.steps):
        print("\n  Redis per move (medians over the steps; primaries, commands inside scripts")
        print("  counted as Redis counts them):")
        for rate, steps in by_rate(game).items():
            measured = [s.redis for s in steps if s.redis is not None]
            names = sorted({name for m in measured for name in m.commands})
            commands = {name: median(m.commands.get(name, 0.0) for m in measured) for name in names}
            print(
                f"  {rate:9.0f}  {median(sum(m.commands.values()) for m in measured):.1f} commands,"
                f" {median(m.bytes_in for m in measured):.0f} B in,"
                f" {median(m.bytes_out for m in measured):.0f} B out,"
                f" {median(m.replicated for m in measured):.0f} B to replicas;"
                f" all nodes {median(m.cpu_share for m in measured):.0%} of a core"
            )
            print(
                "             "
                + ", ".join(
                    f"{name} {calls:.2f}"
                    for name, calls in sorted(commands.items(), key=lambda item: -item[1])
                    if calls >= 0.01
                )
            )
    if any(s.phases for s in game.steps):
        report_phases(game)
    memory = game.room_memory
    if memory:
        print(
            f"\n  a room in Redis: its keys {memory['own'] / 1024:.1f} KiB (MEMORY USAGE, median of"
            f" {memory['rooms']:.0f} rooms at move {memory['moves']:.0f} of their game);"
            f" the primaries' memory per room {memory['per_room'] / 1024:.1f} KiB"
        )


def report_phases(game: Target) -> None:
    """``--phases``: where the game server's CPU per move went, by phase, and how many times a
    move each phase's function was called (medians over the steps); an indented phase runs
    inside the one above it. Then the calls a move of the functions only counted."""
    print("\n  where a move's CPU went, timed in the server (µs and calls per move, medians):")
    rates = by_rate(game)
    print("  " + " " * 40 + "".join(f"{rate:>9.0f}/s  calls" for rate in rates))
    labels = [label for label, _ in PHASES] + [COLLECTOR]
    rows = [(label, label) for label in labels]
    for label, shown in [*rows, ("the rest (event loop, tasks, ...)", None), (ALL_CPU, ALL_CPU)]:
        cells = []
        for steps in rates.values():
            if shown is None:  # what no top-level phase holds
                top = [name for name in labels if not name.startswith(" ")]
                value = median(s.phases[ALL_CPU] - sum(s.phases[n] for n in top) for s in steps)
                cells.append(f"{value:11.1f}       ")
            else:
                value = median(s.phases.get(shown, 0.0) for s in steps)
                calls = median(s.calls.get(shown, 0.0) for s in steps)
                shown_calls = "" if shown == ALL_CPU else f"{calls:7.2f}"
                cells.append(f"{value:11.1f}{shown_calls:>7s}")
        print(f"  {label:40s}" + "".join(cells))
    print("  counted only (calls per move):")
    for label, _ in COUNTED:
        calls = [median(s.calls.get(label, 0.0) for s in steps) for steps in rates.values()]
        cells = [f"{each:18.2f}" for each in calls]
        print(f"  {label:40s}" + "".join(cells))


def by_rate(target: Target) -> dict[float, list[Step]]:
    steps: dict[float, list[Step]] = {}
    for s in target.steps:
        steps.setdefault(s.rate, []).append(s)
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=250)
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--rates", default="0.5,1,2", help="actions per second per room")
    parser.add_argument("--seconds", type=float, default=10.0, help="per rate and repeat")
    parser.add_argument("--repeats", type=int, default=3, help="steps per rate and server")
    parser.add_argument("--first-port", type=int, default=18401)
    parser.add_argument(
        "--processes", type=int, default=1, help="game server processes on the one store"
    )
    parser.add_argument(
        "--spread",
        action="store_true",
        help="deal each room's seats over the processes (no affinity by room code)",
    )
    parser.add_argument(
        "--cluster",
        action="store_true",
        help="a local Redis Cluster (three primaries, a replica each) instead of one node",
    )
    parser.add_argument(
        "--wait-replicas",
        type=int,
        default=0,
        help="CASH_STASH_REDIS_WAIT_REPLICAS for the game server (WAIT after each commit)",
    )
    parser.add_argument(
        "--compression",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="per-message deflate on both servers (on by default, as in the game server)",
    )
    parser.add_argument(
        "--bare-padding",
        choices=("game", "x"),
        default="game",
        help="what pads the bare server's states: game text (default; deflate works as on a"
        " real state) or one letter repeated (deflate nearly free: a lower floor than real)",
    )
    parser.add_argument(
        "--phases",
        action="store_true",
        help="time where the game server's CPU per move goes, inside the process"
        " (bench/phases/sitecustomize.py)",
    )
    parser.add_argument(
        "--trace", help="write every action's server, rate, send time and latency to this CSV"
    )
    parser.add_argument(
        "--find-p99",
        type=float,
        metavar="MS",
        help="then search for the game server's fastest rate (kept up with, p99 within MS)",
    )
    parser.add_argument(
        "--search-steps", type=int, default=3, help="halvings of the last gap in --find-p99"
    )
    args = parser.parse_args()
    args.rates = [float(rate) for rate in args.rates.split(",")]
    if not 1 <= args.rooms <= MAX_ROOMS or not 0 < args.seconds <= MAX_SECONDS:
        raise SystemExit(f"keep to 1-{MAX_ROOMS} rooms and at most {MAX_SECONDS:.0f} s per rate")
    if not 1 <= args.repeats <= MAX_REPEATS:
        raise SystemExit(f"keep to 1-{MAX_REPEATS} repeats")
    if not 1 <= args.processes <= MAX_PROCESSES:
        raise SystemExit(f"keep to 1-{MAX_PROCESSES} processes")
    if args.wait_replicas and not args.cluster:
        raise SystemExit("--wait-replicas needs --cluster (the run's single Redis has no replica)")
    if args.find_p99 is not None and not (args.find_p99 > 0 and 0 <= args.search_steps <= 6):
        raise SystemExit("--find-p99 takes a positive number of ms, --search-steps 0-6")
    pin(0, 1)
    with redis_for_run(args) as backing:
        game, bare, searched = asyncio.run(run(args, backing))
    layout = "seats spread over them" if args.spread else "each room on one, by its code"
    store = "a Redis Cluster" if args.cluster else "one Redis node"
    wait = f", WAIT {args.wait_replicas}" if args.wait_replicas else ""
    print(f"game server: {args.processes} process(es) on {store}{wait}, {layout}")
    report(game)
    report_game(game)
    report(bare)
    if args.trace:
        with Path(args.trace).open("w") as trace:
            trace.write("server,offered,sent_s,latency_ms\n")
            trace.writelines(f"{row}\n" for row in game.trace + bare.trace)
    print("\nCPU per action, game server / bare fan-out (median of each step's ratio to the")
    print(f"bare step played right after it; the bare server padded with {args.bare_padding}):")
    for (rate, ours), floors in zip(by_rate(game).items(), by_rate(bare).values(), strict=True):
        ratios = [
            mine.cpu_per_action_ms / floor.cpu_per_action_ms
            for mine, floor in zip(ours, floors, strict=True)
            if floor.cpu_per_action_ms > 0
        ]
        shown = " ".join(f"{ratio:.2f}" for ratio in ratios)
        print(f"  {rate:6.0f} offered/s: {median(ratios):.2f}x  ({shown})")
    if args.find_p99 is not None:
        report_search(searched, args.find_p99)


if __name__ == "__main__":
    main()
