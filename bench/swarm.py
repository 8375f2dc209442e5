"""The load bench's clients: every room's seats over WebSockets, driven open loop, and what
they saw (latencies, bytes, missed ticks); and the process figures read from ``/proc``.

Used by ``bench/load.py`` and ``bench/attacks.py``."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import statistics
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

TICKS = os.sysconf("SC_CLK_TCK")


PAGE = os.sysconf("SC_PAGE_SIZE")


LATE_MOVE = 20
"""The move of a game after which ``state`` sizes are collected for their median."""
LATE_SAMPLE = 20
"""One in this many late states is kept to be compressed after the run (``wire_size``)."""


@dataclass
class Stats:
    views: int = 0
    view_bytes: int = 0
    sent: int = 0
    missed: int = 0
    errors: int = 0
    closed: int = 0
    """Seats whose connection the server closed while the generator was using it."""
    rematches: int = 0
    latencies: list[float] = field(default_factory=list)
    sent_at: list[float] = field(default_factory=list)
    """When each action of ``latencies`` was sent (``time.perf_counter``)."""
    late_sizes: list[int] = field(default_factory=list)
    """Bytes of each ``state`` received in a room past move ``LATE_MOVE`` of its game."""
    late_samples: list[str] = field(default_factory=list)
    """Every ``LATE_SAMPLE``-th of those states, to tell their size on the wire."""


HEAD = re.compile(r'\{"type":\s*"(\w+)"(?:,\s*"version":\s*(\d+))?')
"""The start of every message from either server: its type and, for a ``state``, its version
(read without decoding the rest: a view is only decoded when its seat is about to act)."""


@dataclass
class Seat:
    index: int
    token: str | None = None
    process: int = 0
    """The game server process this seat connects to."""
    ws: ClientConnection | None = None
    version: int = 0
    """The version of the last ``state`` this seat received (0: none yet)."""
    raw: str = ""
    """That ``state`` as received."""
    _decoded: dict[str, Any] | None = None

    def state(self) -> dict[str, Any]:
        """The last ``state``, decoded once, by orjson: in half the standard library's time
        (46 against 91 µs for a view of 8.5 KB), on the core the generator shares with Redis."""
        if self._decoded is None or self._decoded["version"] != self.version:
            self._decoded = orjson.loads(self.raw)
        return self._decoded


@dataclass
class Room:
    code: str
    host_token: str | None
    seats: list[Seat]
    pending: tuple[int, float, int] | None = None
    """The version an action was sent on, when, and by which seat."""
    rematching: bool = False
    moves: int = 0
    """Actions whose view came back, over the run."""
    game_moves: int = 0
    """Of those, the ones in the game now being played."""

    @property
    def processes(self) -> set[int]:
        """The processes serving this room's seats."""
        return {seat.process for seat in self.seats}


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def cpu_of(pids: list[int]) -> float:
    return sum(cpu_seconds(pid) for pid in pids)


def rss_bytes(pid: int) -> int:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE


class Swarm:
    """The clients of every room, and what they saw."""

    def __init__(
        self,
        ws_url: Callable[[Room, Seat], str],
        rooms: list[Room],
        rest: Callable[[Room], httpx.AsyncClient] | None = None,
    ) -> None:
        self.ws_url = ws_url
        self.rest = rest
        """The REST API serving a room (its rematches); None for the bare server."""
        self.rooms = rooms
        self.stats = Stats()
        self._readers: list[asyncio.Task[None]] = []
        self.pad_to: int | None = None
        """For the bare server: the size its views are padded to (the game server's last)."""

    async def connect_all(self) -> None:
        limit = asyncio.Semaphore(50)

        async def one(room: Room, seat: Seat) -> None:
            async with limit:
                seat.ws = await connect(self.ws_url(room, seat), max_size=None, open_timeout=60)
                hello = {"type": "hello", "token": seat.token} if seat.token else {"type": "hello"}
                await seat.ws.send(orjson.dumps(hello).decode())
            self._readers.append(asyncio.create_task(self._read(room, seat)))

        await asyncio.gather(*(one(room, seat) for room in self.rooms for seat in room.seats))

    async def _read(self, room: Room, seat: Seat) -> None:
        assert seat.ws is not None
        with contextlib.suppress(ConnectionClosed):
            await self._read_all(room, seat)

    async def _read_all(self, room: Room, seat: Seat) -> None:
        assert seat.ws is not None
        async for raw in seat.ws:
            assert isinstance(raw, str)
            head = HEAD.match(raw)
            kind = head.group(1) if head else None
            if kind == "error":
                self.stats.errors += 1
            if kind != "state" or head is None or head.group(2) is None:
                continue
            version = int(head.group(2))
            self.stats.views += 1
            self.stats.view_bytes += len(raw)
            if room.game_moves >= LATE_MOVE:
                self.stats.late_sizes.append(len(raw))
                if len(self.stats.late_sizes) % LATE_SAMPLE == 0:
                    self.stats.late_samples.append(raw)
            seat.version, seat.raw = version, raw
            pending = room.pending
            if pending and seat.index == pending[2] and version > pending[0]:
                self.stats.latencies.append(time.perf_counter() - pending[1])
                self.stats.sent_at.append(pending[1])
                room.pending = None
                room.moves += 1
                room.game_moves += 1

    async def ready(self) -> None:
        """Wait (bounded) until every seat has had its first state."""
        until = time.monotonic() + 60
        while any(not seat.version for room in self.rooms for seat in room.seats):
            if time.monotonic() > until:
                raise SystemExit("not every seat got a state within a minute")
            await asyncio.sleep(0.1)

    async def settle(self, within: float = 1.0) -> None:
        """Wait (bounded) until every action sent has come back: the views of a step's last
        actions are read as promptly as the rest, before the generator does anything else."""
        until = time.monotonic() + within
        while any(room.pending for room in self.rooms):
            if time.monotonic() > until:
                return
            await asyncio.sleep(0.002)

    async def drive(self, rate: float, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        until = loop.time() + seconds
        await asyncio.gather(*(self._drive(room, rate, until) for room in self.rooms))

    async def _drive(self, room: Room, rate: float, until: float) -> None:
        loop = asyncio.get_running_loop()
        rng = random.Random(room.code)
        tick = loop.time() + rng.random() / rate
        while tick < until:
            await asyncio.sleep(max(0.0, tick - loop.time()))
            tick += 1 / rate
            if room.pending is not None or room.rematching:
                self.stats.missed += 1
                continue
            latest = max(room.seats, key=lambda seat: seat.version).state()
            if latest["view"]["over"] and self.rest is not None:
                room.rematching = True
                auth = {"Authorization": f"Bearer {room.host_token}"}
                await self.rest(room).post(f"/api/rooms/{room.code}/rematch", headers=auth)
                self.stats.rematches += 1
                room.game_moves = 0
                room.rematching = False
                continue
            actor = room.seats[latest["view"]["to_act"][0]]
            if actor.version < latest["version"] or actor.ws is None:
                self.stats.missed += 1
                continue
            state = actor.state()
            choices = [a for a in state["legal"] if a["type"] != "concede"] or state["legal"]
            action = rng.choice(choices)
            room.pending = (state["version"], time.perf_counter(), actor.index)
            message = {"type": "act", "ref": uuid.uuid4().hex[:12], "version": state["version"]}
            if self.pad_to is not None:
                message["pad"] = self.pad_to
            try:
                await actor.ws.send(orjson.dumps({**message, "action": action}).decode())
            except ConnectionClosed:
                # The server closed this seat (too slow a reader, or the server itself
                # failed): counted, and the room stops playing.
                self.stats.closed += 1
                actor.ws = None
                continue
            self.stats.sent += 1

    async def close(self) -> None:
        for task in self._readers:
            task.cancel()
        for room in self.rooms:
            for seat in room.seats:
                if seat.ws is not None:
                    await seat.ws.close()


async def setup_rooms(base: str, rooms: int, seats: int) -> list[Room]:
    limit = asyncio.Semaphore(16)
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:

        async def one(number: int) -> Room:
            async with limit:
                made = await http.post("/api/rooms", json={"name": f"P{number}", "seats": seats})
                made.raise_for_status()
                code, host = made.json()["code"], made.json()["token"]
                room = Room(code, host, [Seat(0, host)])
                for index in range(1, seats):
                    joined = await http.post(f"/api/rooms/{code}/join", json={"name": f"S{index}"})
                    joined.raise_for_status()
                    room.seats.append(Seat(index, joined.json()["token"]))
                return room

        return list(await asyncio.gather(*(one(n) for n in range(rooms))))


async def start_games(base: str, rooms: list[Room]) -> None:
    limit = asyncio.Semaphore(16)
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:

        async def one(room: Room) -> None:
            async with limit:
                auth = {"Authorization": f"Bearer {room.host_token}"}
                (await http.post(f"/api/rooms/{room.code}/start", headers=auth)).raise_for_status()

        await asyncio.gather(*(one(room) for room in rooms))


def percentile(latencies: list[float], share: float) -> float:
    """Milliseconds; ``latencies`` sorted."""
    if not latencies:
        return float("nan")
    return 1000 * latencies[min(len(latencies) - 1, int(len(latencies) * share))]


def median(values: Iterable[float]) -> float:
    return statistics.median(list(values))
