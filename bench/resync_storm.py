"""Resync storm: spectators asking for the whole state over and over, against another client's
ping (issue 30, point 3).

Starts one ``cash-stash serve`` process (rooms in memory), plays a two-seat room ``--moves``
moves in (so that a whole state carries a long log), then, for ``--seconds`` each, measures a
separate client's ping round trips (one every 20 ms) and the server's CPU: at rest, and while
``--spectators`` spectators each send ``resync`` ``--rate`` times a second. The storm runs
twice: under the default resync budget, and with it lifted (``CASH_STASH_RESYNCS_PER_MINUTE``
and ``…_PER_ADDRESS`` set very high: the server before the budget). Prints the median and p99
round trip and the server's share of a core for each. Loopback only; stops its server itself::

    python bench/resync_storm.py --spectators 60 --rate 10 --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # run as a script: the repository's root, for ``bench``

from bench.servers import serve  # noqa: E402

PING_SECONDS = 0.02
LIFTED = {"CASH_STASH_RESYNCS_PER_MINUTE": "1000000", "CASH_STASH_RESYNCS_PER_ADDRESS": "1000000"}


def _serve(port: int, scratch: Path, **env: str) -> subprocess.Popen[str]:
    settings = {
        **os.environ,
        "CASH_STASH_DATABASE_URL": f"sqlite+aiosqlite:///{scratch / 'games.db'}",
        "CASH_STASH_WS_MESSAGES_PER_SECOND": "1000",
        "CASH_STASH_WS_MESSAGES_PER_ADDRESS_PER_SECOND": "1000000",
        "CASH_STASH_WS_MESSAGES_PER_ADDRESS_BURST": "1000000",
        "CASH_STASH_WS_BURST": "1000",
        **env,
    }
    settings.pop("CASH_STASH_REDIS_URL", None)
    return serve(settings, port)


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _hello(base: str, code: str, token: str | None = None) -> ClientConnection:
    ws = await connect(f"{base.replace('http', 'ws')}/ws/{code}", max_size=None)
    await ws.send(json.dumps({"type": "hello", **({"token": token} if token else {})}))
    return ws


async def _played_room(base: str, moves: int) -> str:
    """A two-seat room, watchable, ``moves`` random legal moves in."""
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        made = (
            await http.post(
                "/api/rooms", json={"name": "Ann", "seats": 2, "spectators": True, "rounds": 3}
            )
        ).json()
        code: str = made["code"]
        host: str = made["token"]
        guest = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()["token"]
        seats = [await _hello(base, code, token) for token in (host, guest)]
        auth = {"Authorization": f"Bearer {host}"}
        (await http.post(f"/api/rooms/{code}/start", headers=auth)).raise_for_status()
    rng = random.Random(30)
    latest: list[dict[str, Any] | None] = [None, None]
    made_moves = 0

    async def read(index: int) -> None:
        async for raw in seats[index]:
            message = json.loads(raw)
            if message["type"] == "state":
                latest[index] = message

    readers = [asyncio.create_task(read(index)) for index in (0, 1)]
    acted = -1
    while made_moves < moves:
        await asyncio.sleep(0.005)
        for index, state in enumerate(latest):
            if state is None or state["view"]["over"] or state["version"] <= acted:
                continue
            if state["view"]["seat"] in state["view"]["to_act"] and state["legal"]:
                acted = state["version"]
                made_moves += 1
                act = {
                    "type": "act",
                    "ref": made_moves,
                    "version": state["version"],
                    "action": rng.choice(state["legal"]),
                }
                await seats[index].send(json.dumps(act))
        if any(state is not None and state["view"]["over"] for state in latest):
            break
    for task in readers:
        task.cancel()
    for ws in seats:
        await ws.close()
    return code


async def _pings(base: str, code: str, seconds: float) -> list[float]:
    """Round trips of a ping every ``PING_SECONDS`` for ``seconds``, in milliseconds."""
    ws = await _hello(base, code)
    while json.loads(await ws.recv())["type"] != "chat_history":
        pass
    times: list[float] = []
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        sent = time.perf_counter()
        await ws.send('{"type": "ping"}')
        while json.loads(await ws.recv())["type"] != "pong":
            pass
        times.append((time.perf_counter() - sent) * 1000)
        await asyncio.sleep(PING_SECONDS)
    await ws.close()
    return times


async def _storm(base: str, code: str, spectators: int, rate: float, stop: asyncio.Event) -> int:
    """Each spectator sends ``resync`` ``rate`` times a second until ``stop``; how many of
    them the server closed meanwhile (a connection too slow to read what it asked for is
    dropped, 1013)."""

    async def one() -> bool:
        ws = await _hello(base, code)
        drain = asyncio.create_task(_drain(ws))
        try:
            while not stop.is_set():
                await ws.send('{"type": "resync"}')
                await asyncio.sleep(1 / rate)
        except ConnectionClosed:
            return True
        finally:
            drain.cancel()
            await ws.close()
        return False

    return sum(await asyncio.gather(*(one() for _ in range(spectators))))


async def _drain(ws: ClientConnection) -> None:
    async for _ in ws:
        pass


def _figures(label: str, pings: list[float], cpu: float, seconds: float) -> None:
    pings.sort()
    p99 = pings[min(len(pings) - 1, int(len(pings) * 0.99))]
    print(
        f"{label:<28} ping median {statistics.median(pings):6.1f} ms  p99 {p99:6.1f} ms"
        f"  max {pings[-1]:6.1f} ms  server CPU {100 * cpu / seconds:5.1f}% of a core"
    )


def _storm_process(base: str, code: str, spectators: int, rate: float, seconds: float) -> None:
    """The storm, in a process of its own: in the pinger's process its 60 clients' work
    delayed the pongs' reading more than the server did."""

    async def storm_for() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(seconds, stop.set)
        closed = await _storm(base, code, spectators, rate, stop)
        print(f"  ({closed} of {spectators} storm connections closed by the server)")

    asyncio.run(storm_for())


async def _measure(
    base: str, pid: int, code: str, args: argparse.Namespace, *, storm: bool
) -> tuple[list[float], float]:
    """The ping round trips and the server's CPU seconds over ``args.seconds``."""
    storming = None
    if storm:
        storming = multiprocessing.get_context("spawn").Process(
            target=_storm_process,
            args=(base, code, args.spectators, args.rate, args.seconds + 2.0),
        )
        storming.start()
        await asyncio.sleep(1.5)  # the storm's connections are open
    before = _cpu_seconds(pid)
    pings = await _pings(base, code, args.seconds)
    cpu = _cpu_seconds(pid) - before
    if storming is not None:
        await asyncio.to_thread(storming.join, 30)
        if storming.is_alive():
            storming.kill()
    return pings, cpu


async def _run(port: int, pid: int, args: argparse.Namespace, label: str, rest: bool) -> None:
    base = f"http://127.0.0.1:{port}"
    code = await _played_room(base, args.moves)
    if rest:
        pings, cpu = await _measure(base, pid, code, args, storm=False)
        _figures("at rest", pings, cpu, args.seconds)
    pings, cpu = await _measure(base, pid, code, args, storm=True)
    _figures(label, pings, cpu, args.seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spectators", type=int, default=60)
    parser.add_argument("--rate", type=float, default=10.0, help="resyncs per spectator a second")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--moves", type=int, default=80, help="moves played before the storm")
    parser.add_argument("--port", type=int, default=18351)
    args = parser.parse_args()
    print(
        f"{args.spectators} spectators x {args.rate:g} resyncs/s, {args.seconds:g} s each,"
        f" a room {args.moves} moves in"
    )
    with tempfile.TemporaryDirectory() as scratch:
        for label, env, rest in (
            ("storm, resync budget", {}, True),
            ("storm, budget lifted", LIFTED, False),
        ):
            server = _serve(args.port, Path(scratch), **env)
            try:
                asyncio.run(_run(args.port, server.pid, args, label, rest))
            finally:
                server.terminate()
                try:
                    server.wait(15)
                except subprocess.TimeoutExpired:
                    server.kill()


if __name__ == "__main__":
    main()
