"""Chaos soak: rooms of people and AI on three server processes behind one Redis Cluster and
one Postgres, all started here, played through a schedule of faults; then nothing may be lost.

The faults, in order, each named in the output with its time: kill -9 of a server process
(started again after 5 s); a rolling restart (SIGTERM, one process at a time); kill -9 of the
Redis primary holding the most rooms (its replica takes over), that node back as a replica
20 s later; a shard with no replica left (its primary killed after its replica, back after
5 s); Postgres stopped for 30 s; one Redis node paused (``CLIENT PAUSE``) 5 s; a burst of
reconnecting clients. Rooms play game after game (the host asks for a rematch) until the
schedule is over, then finish the game they are in.

The checks, from the database and the clients' own logs: every game finished; every finished
game recorded exactly once with a replay that plays to its recorded result; every act a client
saw acknowledged is in its game's record; no seat's view sent to another seat's person, and
the processes holding one connection per person at the end (none kept after its client left);
every error line a process logged matched to a fault by its time and by what it says
(``bench/chaos_errors.py``). It prints per fault the longest waits and the error lines matched
to it (``Outcome.table``, the shape of ``docs/deploy.md``'s table), and exits 1 on any loss.
Loopback only (``python bench/chaos.py --help``)::

    python bench/chaos.py --rooms 200 --gap 60
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import resource
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, the repository's root goes first, for ``bench``, and so that ``engine`` is
# the rules engine and not ``bench/engine.py`` from the script's own folder.
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
from sqlalchemy import select  # noqa: E402
from sqlalchemy.ext.asyncio import AsyncSession, create_async_engine  # noqa: E402

from app.db.models import Game  # noqa: E402
from app.games.replay import replay  # noqa: E402
from bench.chaos_clients import (  # noqa: E402
    Person,
    Wait,
    close_clients,
    request,
    spectate_once,
)
from bench.chaos_errors import Matched, describe, match_errors  # noqa: E402
from bench.chaos_faults import (  # noqa: E402
    Durations,
    Fault,
    Services,
    kill_app,
    kill_primary,
    pause_redis,
    postgres_down,
    rolling_restart,
    shard_without_replica,
)
from bench.chaos_services import AppProcess, LocalPostgres, LogLine, free_port  # noqa: E402
from bench.soak import SOAK_LIMITS  # noqa: E402
from tests.redis_cluster import RedisCluster  # noqa: E402

APP_PROCESSES = 3
METRICS_TOKEN = "chaos"
PROGRESS_SECONDS = 5.0
ROOMS_MADE_AT_ONCE = 20
"""Rooms being made (created, joined, given their AI), then started, at the same time: a
thousand at once would time requests out on a loaded machine, and a join sent again after a
timeout could take a second seat."""
ACTS_PER_SECOND = 200.0
"""The people's acts a second the default ``--think`` aims at, whatever the room count."""


@dataclass(frozen=True, slots=True)
class Plan:
    rooms: int = 20
    seats: int = 3
    people: int = 2
    """Of a room's seats, how many are people (the rest AI)."""
    level: str = "easy"
    think: float = 0.6
    """The longest a person takes to choose a move (seconds; uniformly up to it)."""
    gap: float = 5.0
    """Seconds of play before each fault and after the last."""
    durations: Durations = field(default_factory=Durations)
    burst: int = 1000
    """Spectators connecting at once in the burst, beside every person reconnecting."""
    finish_seconds: float = 180.0
    """How long the rooms have to finish their last game once the schedule is over."""
    only: tuple[str, ...] = ()
    """The faults to do, by name (all of them when empty)."""
    wait_replicas: int = 1
    """``CASH_STASH_REDIS_WAIT_REPLICAS``: with 0, a failover may lose moves a player saw
    accepted, as ``docs/deploy.md`` says; the soak holds the server to the setting that
    promises it does not."""


@dataclass
class RoomPlay:
    code: str
    host: Person
    people: list[Person]
    last_game: dict[str, Any] | None = None
    """The room's game as its summary (``GET /api/rooms/{code}``) said at the end."""


@dataclass
class Outcome:
    """What a soak saw and what it lost."""

    plan: Plan
    faults: list[Fault] = field(default_factory=list)
    losses: list[str] = field(default_factory=list)
    games: int = 0
    acked: int = 0
    errors: Matched = field(default_factory=Matched)
    """Every error line the processes logged: grouped per fault and kind, or unmatched."""
    seat_waits: dict[str, float] = field(default_factory=dict)
    move_waits: dict[str, float] = field(default_factory=dict)
    burst_longest: float = 0.0
    """The longest a burst spectator waited for its first ``state`` (seconds)."""
    elapsed: float = 0.0

    def table(self) -> str:
        """Per fault: how long it lasted, the longest wait for a seat back and for a move's
        answer among those that began during it (until the next fault), and its error lines
        by kind; the shape of ``docs/deploy.md``'s "Recovery per fault, measured" table."""
        rows = [
            "| fault | lasted (s) | longest seat back (s) | longest move answered (s) "
            "| error lines matched to it |",
            "|---|---:|---:|---:|---|",
        ]
        for name in ["(before any fault)", *(f.name for f in self.faults)]:
            fault = next((f for f in self.faults if f.name == name), None)
            lasted = f"{fault.ended - fault.started:.1f}" if fault else "-"
            errors = ", ".join(
                f"{group.count} {group.kind}" for group in self.errors.groups if group.fault == name
            )
            rows.append(
                f"| {name} | {lasted} | {self.seat_waits.get(name, 0.0):.2f} "
                f"| {self.move_waits.get(name, 0.0):.2f} | {errors or 'none'} |"
            )
        return "\n".join(rows)


def say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


def app_env(plan: Plan, cluster_url: str, database_url: str, prefix: str) -> dict[str, str]:
    """The servers' settings: the soak's Redis Cluster and Postgres, a commit answered once a
    replica has it (``plan.wait_replicas``), and the per-address limits lifted (every client
    of the soak comes from loopback)."""
    return {
        **os.environ,
        "CASH_STASH_REDIS_URL": cluster_url,
        "CASH_STASH_REDIS_CLUSTER": "true",
        "CASH_STASH_REDIS_PREFIX": prefix,
        "CASH_STASH_REDIS_WAIT_REPLICAS": str(plan.wait_replicas),
        "CASH_STASH_DATABASE_URL": database_url,
        "CASH_STASH_AI_PAUSE_SECONDS": "0",
        "CASH_STASH_AI_WORKERS": "1",
        "CASH_STASH_METRICS_TOKEN": METRICS_TOKEN,
        "CASH_STASH_TIMEOUT_LEVEL": "easy",
        "CASH_STASH_WS_MESSAGES_PER_SECOND": "1000",
        "CASH_STASH_WS_BURST": "1000",
        "CASH_STASH_RESYNCS_PER_ADDRESS": "100000",
        "CASH_STASH_WS_CONNECTIONS_PER_ROOM": "100000",
        "CASH_STASH_WS_WHOLE_STATES_PER_SECOND": "100000",
        "CASH_STASH_WS_WHOLE_STATES_BURST": "100000",
        "CASH_STASH_HTTP_CONNECTIONS_PER_ADDRESS": "100000",
        **{f"CASH_STASH_{name.upper()}": value for name, value in SOAK_LIMITS.items()},
    }


def run_chaos(plan: Plan, log_to: Path | None = None) -> Outcome:
    """Start the services, play the rooms through the schedule, check, stop everything; every
    line the processes logged is written to ``log_to`` if given (seconds since the start, the
    process, the line)."""
    prefix = f"cash_stash_chaos:{uuid.uuid4().hex[:8]}:"
    # Persistent: a node killed and started again comes back with its rooms, as a real
    # deployment's does (the shard left without a replica has nowhere else to find them).
    cluster = RedisCluster(persistent=True)
    postgres = LocalPostgres()
    log: list[LogLine] = []
    apps: list[AppProcess] = []
    outcome = Outcome(plan)
    _raise_open_files(plan)
    try:
        say("starting a Redis Cluster (six nodes) and a Postgres")
        cluster.start()
        postgres.start()
        env = app_env(plan, cluster.url, postgres.url, prefix)
        subprocess.run(
            [str(Path(sys.executable).parent / "cash-stash"), "migrate"],
            env=env,
            check=True,
            capture_output=True,
        )
        for index in range(APP_PROCESSES):
            apps.append(AppProcess(index, free_port(), env, log))
            apps[-1].start()
        say(f"{APP_PROCESSES} server processes on ports {', '.join(str(a.port) for a in apps)}")
        rooms = asyncio.run(_soak(plan, cluster, postgres, apps, prefix, outcome))
        for app in apps:
            if app.process is not None and app.process.poll() is None:
                code = app.terminate()
                if code != 0:
                    outcome.losses.append(f"process {app.index} exited {code} on SIGTERM")
        time.sleep(0.5)  # the log readers take the last lines
        asyncio.run(_check_records(rooms, postgres.url, outcome))
        _check_clients(rooms, outcome)
        _check_log(log, outcome)
        if log_to is not None:
            began = log[0].at if log else 0.0
            log_to.write_text(
                "".join(f"{line.at - began:9.3f} {line.process} {line.text}\n" for line in log)
            )
        return outcome
    finally:
        for app in apps:
            if app.process is not None and app.process.poll() is None:
                app.process.kill()
        postgres.stop()
        cluster.stop()


def _raise_open_files(plan: Plan) -> None:
    """Lift this process's limit of open files (the server processes inherit it) to what the
    run needs: every person's and burst spectator's socket here, and as many on the servers'
    side, with room for Redis and Postgres connections. Refused (exit 1) when the hard limit is
    below it, rather than failing halfway with refused connections."""
    needed = 2 * (plan.rooms * plan.people + plan.burst) + 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= needed:
        return
    if hard != resource.RLIM_INFINITY and hard < needed:
        raise SystemExit(f"{needed} open files needed, and the hard limit is {hard} (ulimit -Hn)")
    resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))


async def _soak(
    plan: Plan,
    cluster: RedisCluster,
    postgres: LocalPostgres,
    apps: list[AppProcess],
    prefix: str,
    outcome: Outcome,
) -> list[RoomPlay]:
    def live() -> list[str]:
        return [app.base_url for app in apps if app.up]

    making = asyncio.Semaphore(ROOMS_MADE_AT_ONCE)
    made = 0

    async def make(number: int) -> RoomPlay:
        nonlocal made
        async with making:
            room = await _make_room(plan, live, number)
        made += 1
        if made % 100 == 0:
            say(f"{made} rooms made")
        return room

    rooms = await asyncio.gather(*(make(n) for n in range(plan.rooms)))
    stop = asyncio.Event()
    people = [person for room in rooms for person in room.people]
    players = [asyncio.create_task(person.play(live, stop)) for person in people]

    async def start(room: RoomPlay) -> None:
        auth = {"Authorization": f"Bearer {room.host.token}"}
        async with making:
            started = await request(live, "POST", f"/api/rooms/{room.code}/start", headers=auth)
        started.raise_for_status()

    await asyncio.gather(*(start(room) for room in rooms))
    say(f"{plan.rooms} rooms playing ({plan.people} people and {plan.seats - plan.people} AI)")
    draining = asyncio.Event()
    hosts = [asyncio.create_task(_rematches(room, live, draining)) for room in rooms]
    began = time.monotonic()
    shown = asyncio.create_task(_progress(rooms, apps, outcome, began))
    services = Services(
        cluster, postgres, apps, lambda: [f"{prefix}{{{r.code}}}:room" for r in rooms], say
    )
    try:
        await _schedule(plan, services, rooms, live, outcome)
        draining.set()
        say("schedule over: every room finishes the game it is in")
        await _finish(rooms, live, time.monotonic() + plan.finish_seconds)
        await _count_connections(apps, len(people), outcome)
    finally:
        outcome.elapsed = time.monotonic() - began
        stop.set()
        shown.cancel()
        for task in hosts:
            task.cancel()
        await asyncio.gather(*players, *hosts, shown, return_exceptions=True)
        await close_clients()
    return rooms


async def _finish(rooms: list[RoomPlay], live: Callable[[], list[str]], deadline: float) -> None:
    """Wait until every room's game is over and recorded, as its host saw and as the room's
    summary says (a game the host never saw start would not be in the host's log)."""
    waiting = rooms
    while waiting and time.monotonic() < deadline:
        await asyncio.sleep(0.5)
        for room in waiting:
            if room.host.over and room.host.recorded:
                answer = await request(live, "GET", f"/api/rooms/{room.code}")
                room.last_game = answer.json().get("game") if answer.status_code == 200 else None
        waiting = [room for room in waiting if not _finished(room)]


async def _count_connections(apps: list[AppProcess], people: int, outcome: Outcome) -> None:
    """The connections the processes hold, once the burst's spectators are gone, must be the
    people's own, one each: a connection the server kept after its client left would hold a
    seat twice when the person came back."""
    auth = {"Authorization": f"Bearer {METRICS_TOKEN}"}
    held = -1
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        held = 0
        for app in apps:
            async with httpx.AsyncClient(base_url=app.base_url, timeout=10) as http:
                metrics = (await http.get("/metrics", headers=auth)).text
            held += sum(
                int(float(line.split()[-1]))
                for line in metrics.splitlines()
                if line.startswith("cash_stash_connections ")
            )
        if held == people:
            return
        await asyncio.sleep(1)
    outcome.losses.append(f"the processes hold {held} connections for {people} people")


def _finished(room: RoomPlay) -> bool:
    game = room.last_game
    return (
        game is not None
        and bool(game["over"] and game["recorded"])
        and room.host.games[-1:] == [game["id"]]
    )


async def _make_room(plan: Plan, live: Callable[[], list[str]], number: int) -> RoomPlay:
    body = {
        "name": f"Host {number}",
        "seats": plan.seats,
        "visibility": "public",
        "spectators": True,
    }
    made = (await request(live, "POST", "/api/rooms", json=body)).json()
    code, token = made["code"], made["token"]
    rng = random.Random(f"{code}")
    host = Person(code, 0, token, random.Random(rng.random()), plan.think)
    people = [host]
    for index in range(1, plan.people):
        joined = await request(live, "POST", f"/api/rooms/{code}/join", json={"name": f"P{index}"})
        joined.raise_for_status()
        seat = joined.json()
        people.append(
            Person(code, seat["seat"], seat["token"], random.Random(rng.random()), plan.think)
        )
    auth = {"Authorization": f"Bearer {token}"}
    for _ in range(plan.seats - plan.people):
        added = await request(
            live, "POST", f"/api/rooms/{code}/bots", json={"level": plan.level}, headers=auth
        )
        added.raise_for_status()
    return RoomPlay(code, host, people)


async def _rematches(
    room: RoomPlay, live: Callable[[], list[str]], draining: asyncio.Event
) -> None:
    """The host asks for a new game each time one ends, until the schedule is over."""
    auth = {"Authorization": f"Bearer {room.host.token}"}
    while not draining.is_set():
        if room.host.over and room.host.games:
            finished = room.host.games[-1]
            answer = await request(live, "POST", f"/api/rooms/{room.code}/rematch", headers=auth)
            if answer.status_code >= 300:
                say(f"room {room.code}: rematch answered {answer.status_code} {answer.text}")
            until = time.monotonic() + 10
            while room.host.games[-1] == finished and time.monotonic() < until:  # noqa: ASYNC110
                await asyncio.sleep(0.2)  # the new game's summary, read by the host's client
        await asyncio.sleep(0.2)


async def _progress(
    rooms: list[RoomPlay], apps: list[AppProcess], outcome: Outcome, began: float
) -> None:
    """Every ``PROGRESS_SECONDS``: rooms in a game, people's acknowledged acts a second since
    the last line, people without their seat (reconnecting), the processes up, the fault."""
    people = [person for room in rooms for person in room.people]
    acked_before = sum(len(person.acked) for person in people)
    at_before = time.monotonic()
    while True:
        await asyncio.sleep(PROGRESS_SECONDS)
        games = sum(len(room.host.games) for room in rooms)
        playing = sum(1 for room in rooms if room.host.games and not room.host.over)
        acked = sum(len(person.acked) for person in people)
        now = time.monotonic()
        rate = (acked - acked_before) / (now - at_before)
        acked_before, at_before = acked, now
        reconnecting = sum(1 for person in people if not person.holding)
        up = "".join("U" if app.up else "-" for app in apps)
        for app in apps:
            if app.up and app.process is not None and app.process.poll() is not None:
                app.up = False
                outcome.losses.append(f"process {app.index} exited on its own")
        current = next((f.name for f in reversed(outcome.faults) if not f.ended), "none")
        say(
            f"+{now - began:.0f} s  rooms playing {playing}/{len(rooms)}  acts/s {rate:.0f}"
            f"  reconnecting {reconnecting}  processes {up}  fault {current}"
            f" ({len(outcome.faults)} begun)  games {games}  acked {acked}"
        )


async def _schedule(
    plan: Plan,
    services: Services,
    rooms: list[RoomPlay],
    live: Callable[[], list[str]],
    outcome: Outcome,
) -> None:
    durations = plan.durations

    async def burst(fault: Fault) -> None:
        for room in rooms:
            for person in room.people:
                person.drop_now.set()
        codes = [rooms[n % len(rooms)].code for n in range(plan.burst)]
        answers = await asyncio.gather(*(spectate_once(live, code) for code in codes))
        outcome.burst_longest = max((waited for waited, _ in answers), default=0.0)
        outcome.losses.extend(
            f"a burst spectator of room {code} got no state: {told}"
            for code, (_, told) in zip(codes, answers, strict=True)
            if told is not None
        )
        fault.detail = (
            f"every person's connection closed at once, and {plan.burst} spectators connected;"
            f" the slowest spectator's first state after {outcome.burst_longest:.2f} s"
        )

    steps: list[tuple[str, Callable[[Fault], Any]]] = [
        ("app kill -9", lambda f: kill_app(services, f, durations)),
        ("rolling restart", lambda f: rolling_restart(services, f, durations)),
        ("redis primary kill -9", lambda f: kill_primary(services, f, durations)),
        ("shard with no replica", lambda f: shard_without_replica(services, f, durations)),
        ("postgres down", lambda f: postgres_down(services, f, durations)),
        ("redis client pause", lambda f: pause_redis(services, f, durations)),
        ("reconnect burst", burst),
    ]
    for name, act in steps:
        if plan.only and name not in plan.only:
            continue
        await asyncio.sleep(plan.gap)
        fault = Fault(name, time.monotonic())
        outcome.faults.append(fault)
        say(f"fault: {name}")
        if name == "reconnect burst":
            await act(fault)
        else:
            await asyncio.to_thread(act, fault)
        fault.ended = time.monotonic()
        outcome.losses.extend(f"{name}: {problem}" for problem in fault.problems)
        say(f"fault over after {fault.ended - fault.started:.1f} s: {name}: {fault.detail}")
    await asyncio.sleep(plan.gap)


def _fault_at(faults: list[Fault], moment: float) -> str:
    """The fault whose time ``moment`` falls in: from its start to the next one's."""
    name = "(before any fault)"
    for fault in faults:
        if moment >= fault.started:
            name = fault.name
    return name


def _strip_seat(action: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in action.items() if key != "seat"}


async def _check_records(rooms: list[RoomPlay], database_url: str, outcome: Outcome) -> None:
    engine = create_async_engine(database_url)
    try:
        async with AsyncSession(engine) as session:
            rows = list((await session.execute(select(Game))).scalars())
    finally:
        await engine.dispose()
    by_id = {row.id: row for row in rows}
    per_room: dict[str, int] = {}
    for game in rows:
        per_room[str(game.room_code)] = per_room.get(str(game.room_code), 0) + 1
    outcome.games = len(rows)
    for room in rooms:
        games = room.host.games
        if not _finished(room):
            outcome.losses.append(
                f"room {room.code}: its last game did not finish and record ({room.last_game};"
                f" {'; '.join(person.where() for person in room.people)})"
            )
        if per_room.get(room.code, 0) != len(games):
            outcome.losses.append(
                f"room {room.code}: {len(games)} games played, "
                f"{per_room.get(room.code, 0)} recorded"
            )
        record: dict[int, list[dict[str, Any]]] = {}
        for game_id in games:
            row = by_id.get(game_id)
            if row is None:
                outcome.losses.append(f"room {room.code}: game {game_id} not recorded")
                continue
            replayed = replay(row.config, row.actions)
            if not replayed.complete or replayed.result["totals"] != row.totals:
                outcome.losses.append(f"game {game_id}: the replay is not complete")
            for action in row.actions:
                record.setdefault(action["seat"], []).append(_strip_seat(action))
        for person in room.people:
            played = record.get(person.seat, [])
            at = 0
            for acked in person.acked:
                wanted = _strip_seat(acked.action)
                while at < len(played) and played[at] != wanted:
                    at += 1
                if at == len(played):
                    outcome.losses.append(
                        f"room {room.code} seat {person.seat}: acknowledged act {acked.ref}"
                        f" (version {acked.version}) is not in the record"
                    )
                    break
                at += 1


def _check_clients(rooms: list[RoomPlay], outcome: Outcome) -> None:
    faults = outcome.faults
    for room in rooms:
        for person in room.people:
            outcome.acked += len(person.acked)
            if person.seats_told - {person.seat}:
                outcome.losses.append(
                    f"room {room.code}: seat {person.seat} was told it holds {person.seats_told}"
                )
            for wait in person.waits:
                _longest(outcome, wait, _fault_at(faults, wait.began))


def _longest(outcome: Outcome, wait: Wait, fault: str) -> None:
    table = outcome.seat_waits if wait.kind == "seat" else outcome.move_waits
    table[fault] = max(table.get(fault, 0.0), wait.ended - wait.began)


def _check_log(log: list[LogLine], outcome: Outcome) -> None:
    """Every error line matched to a fault by its time and what it says
    (``bench/chaos_errors.py``); each one that fits none is a loss, printed whole."""
    outcome.errors = match_errors(log, outcome.faults)
    outcome.losses.extend(
        f"process {error.process} logged an error no fault explains: {error.text}"
        for error in outcome.errors.unmatched
    )


def report(outcome: Outcome) -> str:
    plan = outcome.plan
    lines = [
        f"rooms {plan.rooms} ({plan.people} people and {plan.seats - plan.people} {plan.level} AI"
        f" each) on {APP_PROCESSES} processes, {outcome.elapsed:.0f} s",
        f"games recorded {outcome.games}  acknowledged moves {outcome.acked}",
        "",
        outcome.table(),
        "",
        *describe(outcome.errors),
        "",
    ]
    lines += [f"LOSS: {loss}" for loss in outcome.losses[:50]]
    if len(outcome.losses) > 50:
        lines.append(f"… and {len(outcome.losses) - 50} more")
    lines.append("PASS" if not outcome.losses else f"FAIL ({len(outcome.losses)} losses)")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--seats", type=int, default=3)
    parser.add_argument("--people", type=int, default=2, help="people per room (the rest AI)")
    parser.add_argument("--level", default="easy", choices=["easy", "medium", "hard"])
    parser.add_argument(
        "--think",
        type=float,
        help="a person's longest think (s); default: 2 * rooms / "
        f"{ACTS_PER_SECOND:g}, at least 1: a person thinks half of it on average and one "
        f"seat of a room acts at a time, so the people act about {ACTS_PER_SECOND:g} times "
        "a second whatever the room count",
    )
    parser.add_argument(
        "--gap", type=float, default=60.0, help="play before each fault and after the last (s)"
    )
    parser.add_argument("--burst", type=int, default=1000, help="spectators in the burst")
    parser.add_argument("--postgres-down", type=float, default=30.0)
    parser.add_argument("--wait-replicas", type=int, default=1)
    parser.add_argument("--only", default="", help="these faults alone, comma-separated")
    parser.add_argument(
        "--finish", type=float, help="seconds to finish the last games (default: 60 * think)"
    )
    parser.add_argument("--log", type=Path, help="write every line the processes logged here")
    args = parser.parse_args()
    think = args.think or max(1.0, 2 * args.rooms / ACTS_PER_SECOND)
    plan = Plan(
        rooms=args.rooms,
        seats=args.seats,
        people=args.people,
        level=args.level,
        think=think,
        gap=args.gap,
        finish_seconds=args.finish or max(180.0, 60 * think),
        burst=args.burst,
        wait_replicas=args.wait_replicas,
        only=tuple(name for name in args.only.split(",") if name),
        durations=Durations(postgres_down=args.postgres_down),
    )
    outcome = run_chaos(plan, args.log)
    for fault in outcome.faults:
        print(f"{fault.name}: {fault.detail}")
    print(report(outcome))
    with contextlib.suppress(BrokenPipeError):
        sys.stdout.flush()
    sys.exit(0 if not outcome.losses else 1)


if __name__ == "__main__":
    main()
