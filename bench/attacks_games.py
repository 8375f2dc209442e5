"""Attacks on games (issue 44, holes 5 to 8), for the attacks bench (``bench/attacks.py``).

Each attack is ``(base_url, addresses, seconds) -> counters``: it sends only from the loopback
``addresses`` it is given, does its own setup through the public API, and stops within about
``seconds``:

- ``practice_tables``: one address plays a quick game to the end (six seats of its own, random
  moves), then opens practice tables from it as fast as it may (five Medium stand-ins each),
  holding each open and playing it; counts the tables opened and refused.
- ``play_now_per_address``: one address asks Play now for a table with AI, again and again,
  and holds each one open, playing it; counts the tables it got and the refusals.
- ``ceiling@100``: 99 addresses make Play now tables with AI that nobody opens, as many as
  they may (counts the tables, the players seated, the refusals by code); then the last
  address, which made none, checks that an honest start and an honest Play now succeed.
- ``ghost_queue``: ghosts wait in the Play now queue (two that never answer the queue, one that
  answers but never opens its table); an honest player of the same address asks for a table of
  four, then for AI; counts the ghosts seated with them, the tables where the AI took every
  other person's seat in time, and the longest wait for it from opening the table (cut at
  ``seconds``).

Run alone against a server started by hand::

    python bench/attacks_games.py --url http://127.0.0.1:8000 --seconds 20 --attack ghost_queue
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

Attack = Callable[[str, list[str], float], Awaitable[dict[str, float]]]


def _http(base_url: str, address: str) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(local_address=address)
    return httpx.AsyncClient(base_url=base_url, transport=transport, timeout=30)


def _ws_url(base_url: str, path: str) -> str:
    return base_url.replace("http://", "ws://", 1) + path


async def _socket(base_url: str, path: str, address: str) -> ClientConnection:
    return await connect(
        _ws_url(base_url, path), local_addr=(address, 0), max_size=None, open_timeout=30
    )


async def _play_seat(ws: ClientConnection, rng: random.Random, until: float) -> int:
    """Play a seat until the game ends or ``until``: a random legal move in each of its
    turns; the states received."""
    latest: dict[str, Any] | None = None
    acted_on, moves, states = -1, 0, 0
    with contextlib.suppress(ConnectionClosed, TimeoutError):
        async with asyncio.timeout(max(0.0, until - time.monotonic())):
            async for raw in ws:
                message = json.loads(raw)
                if message["type"] == "state":
                    latest = message
                    states += 1
                elif message["type"] == "error" and message.get("ref") is not None:
                    acted_on = -1
                else:
                    continue
                if latest is None:
                    continue
                view = latest["view"]
                if view["over"]:
                    break
                mine = view["seat"] in view["to_act"] and latest["legal"]
                if mine and latest["version"] > acted_on:
                    acted_on = latest["version"]
                    moves += 1
                    act = {
                        "type": "act",
                        "ref": moves,
                        "version": latest["version"],
                        "action": rng.choice(latest["legal"]),
                    }
                    await ws.send(json.dumps(act))
    return states


async def _open_table(base_url: str, address: str, code: str, token: str) -> ClientConnection:
    ws = await _socket(base_url, f"/ws/{code}", address)
    await ws.send(json.dumps({"type": "hello", "token": token}))
    return ws


async def _finished_game(base_url: str, address: str, until: float) -> str | None:
    """A game of six seats, all this address's, played to its end with random moves and
    recorded; its id (None if it was not recorded by ``until``)."""
    async with _http(base_url, address) as http:
        made = (
            await http.post("/api/rooms", json={"name": "Setup 0", "seats": 6, "rules": "simple"})
        ).json()
        code, tokens = made["code"], [made["token"]]
        for seat in range(1, 6):
            joined = await http.post(f"/api/rooms/{code}/join", json={"name": f"Setup {seat}"})
            tokens.append(joined.json()["token"])
        sockets = [await _open_table(base_url, address, code, token) for token in tokens]
        started = await http.post(
            f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {tokens[0]}"}
        )
        started.raise_for_status()
        try:
            await asyncio.gather(
                *(_play_seat(ws, random.Random(i), until) for i, ws in enumerate(sockets))
            )
        finally:
            for ws in sockets:
                await ws.close()
        while time.monotonic() < until:
            game = (await http.get(f"/api/rooms/{code}")).json()["game"]
            if game is not None and game["recorded"]:
                return str(game["id"])
            await asyncio.sleep(0.2)
    return None


async def practice_tables(base_url: str, addresses: list[str], seconds: float) -> dict[str, float]:
    address = addresses[0]
    started = time.monotonic()
    until = started + seconds
    game_id = await _finished_game(base_url, address, until)
    if game_id is None:
        return {"setup_failed": 1.0}
    counts = {"opened": 0.0, "refused_games": 0.0, "refused_other": 0.0, "states": 0.0}
    playing: list[asyncio.Task[int]] = []
    sockets: list[ClientConnection] = []
    attacked = time.monotonic()
    async with _http(base_url, address) as http:
        while time.monotonic() < until:
            answer = await http.post(
                f"/api/games/{game_id}/practice", json={"step": 0, "name": "Practice"}
            )
            if answer.status_code == 201:
                counts["opened"] += 1
                table = answer.json()
                ws = await _open_table(base_url, address, table["code"], table["token"])
                sockets.append(ws)
                rng = random.Random(len(sockets))
                playing.append(asyncio.create_task(_play_seat(ws, rng, until)))
            elif answer.status_code == 429 and answer.json().get("code") == "too_many_games":
                counts["refused_games"] += 1
            else:
                counts["refused_other"] += 1
            await asyncio.sleep(0.5)
    counts["states"] = float(sum(await asyncio.gather(*playing)))
    for ws in sockets:
        await ws.close()
    counts["setup_seconds"] = attacked - started
    return counts


async def _queue_for_table(
    base_url: str,
    address: str,
    name: str,
    *,
    seats: int | str = 4,
    ai: bool = True,
    answer: bool = True,
    until: float,
) -> tuple[dict[str, Any] | None, ClientConnection]:
    """Ask Play now for a table (with AI at once when ``ai``), answering the queue's pings
    when ``answer``; the ``matched`` or ``error`` message (None by ``until``), and the
    socket."""
    ws = await _socket(base_url, "/ws/queue", address)
    await ws.send(
        json.dumps({"type": "queue", "name": name, "player_id": str(uuid.uuid4()), "seats": seats})
    )
    pinging: asyncio.Task[None] | None = None
    try:
        async with asyncio.timeout(max(0.0, until - time.monotonic())):
            async for raw in ws:
                message = json.loads(raw)
                if message["type"] == "queued":
                    if answer:
                        every = float(message.get("ping_every", 5.0))
                        pinging = asyncio.create_task(_keep_pinging(ws, every))
                    if ai:
                        await ws.send(json.dumps({"type": "fill_ai"}))
                elif message["type"] in ("matched", "error"):
                    return message, ws
    except (TimeoutError, ConnectionClosed):
        pass
    finally:
        if pinging is not None:
            pinging.cancel()
    return None, ws


async def _keep_pinging(ws: ClientConnection, every: float) -> None:
    with contextlib.suppress(ConnectionClosed):
        while True:
            await ws.send(json.dumps({"type": "ping"}))
            await asyncio.sleep(every)


async def play_now_per_address(
    base_url: str, addresses: list[str], seconds: float
) -> dict[str, float]:
    address = addresses[0]
    until = time.monotonic() + seconds
    counts = {"tables": 0.0, "refused_games": 0.0, "refused_other": 0.0, "states": 0.0}
    playing: list[asyncio.Task[int]] = []
    sockets: list[ClientConnection] = []
    while time.monotonic() < until:
        found, queue = await _queue_for_table(
            base_url, address, f"Many {len(sockets)}", until=until
        )
        await queue.close()
        if found is None:
            break
        if found["type"] == "matched":
            counts["tables"] += 1
            ws = await _open_table(base_url, address, found["code"], found["token"])
            sockets.append(ws)
            playing.append(asyncio.create_task(_play_seat(ws, random.Random(len(sockets)), until)))
        elif found["code"] == "too_many_games":
            counts["refused_games"] += 1
            await asyncio.sleep(1.0)
        else:
            counts["refused_other"] += 1
            await asyncio.sleep(1.0)
    counts["states"] = float(sum(await asyncio.gather(*playing)))
    for ws in sockets:
        await ws.close()
    return counts


async def _unplayed_tables(
    base_url: str, address: str, until: float, tables: set[str]
) -> dict[str, float]:
    """Play now tables with AI, never opened, from one address until ``until``; their codes
    into ``tables`` (players of several addresses may be seated at one table)."""
    counts = {"seated": 0.0, "refused_games": 0.0, "refused_other": 0.0}
    while time.monotonic() < until:
        found, queue = await _queue_for_table(base_url, address, "Nobody", until=until)
        await queue.close()
        if found is None:
            break
        if found["type"] == "matched":
            counts["seated"] += 1
            tables.add(found["code"])
        elif found["code"] == "too_many_games":
            counts["refused_games"] += 1
            await asyncio.sleep(1.0)
        else:
            counts["refused_other"] += 1
            counts[f"refused_{found['code']}"] = counts.get(f"refused_{found['code']}", 0) + 1
            await asyncio.sleep(1.0)
    return counts


async def ceiling(base_url: str, addresses: list[str], seconds: float) -> dict[str, float]:
    """The attacking addresses fill the ceiling for ``seconds`` less the probe's margin; the
    last address then starts a game with an AI seat and asks Play now for a table."""
    attackers, probe = addresses[:-1], addresses[-1]
    margin = min(5.0, seconds / 4)
    until = time.monotonic() + seconds - margin
    tables: set[str] = set()
    results = await asyncio.gather(
        *(_unplayed_tables(base_url, address, until, tables) for address in attackers)
    )
    counts: dict[str, float] = {"tables": float(len(tables))}
    for result in results:
        for key, value in result.items():
            counts[key] = counts.get(key, 0.0) + value
    async with _http(base_url, probe) as http:
        made = (await http.post("/api/rooms", json={"name": "Honest", "seats": 2})).json()
        auth = {"Authorization": f"Bearer {made['token']}"}
        await http.post(f"/api/rooms/{made['code']}/bots", json={"level": "easy"}, headers=auth)
        start = await http.post(f"/api/rooms/{made['code']}/start", headers=auth)
    counts["honest_started"] = float(start.status_code == 200)
    found, queue = await _queue_for_table(
        base_url, probe, "Honest", until=time.monotonic() + margin
    )
    await queue.close()
    counts["honest_matched"] = float(found is not None and found["type"] == "matched")
    return counts


async def _ai_plays_the_rest(ws: ClientConnection, seat: int, until: float) -> tuple[float, bool]:
    """Seconds from now until every other person's seat at the table is played by the AI
    (``room`` messages' ``away``), and whether it was by ``until`` (else the seconds to it)."""
    opened = time.monotonic()
    with contextlib.suppress(ConnectionClosed, TimeoutError):
        async with asyncio.timeout(max(0.0, until - time.monotonic())):
            async for raw in ws:
                message = json.loads(raw)
                if message["type"] != "room":
                    continue
                others = [
                    s
                    for s in message["room"]["seats"]
                    if s is not None and s["seat"] != seat and s["kind"] == "person"
                ]
                if all(s["away"] for s in others):
                    return time.monotonic() - opened, True
    return time.monotonic() - opened, False


async def _ghost(
    base_url: str, address: str, name: str, *, answer: bool
) -> tuple[ClientConnection, asyncio.Task[None] | None]:
    """A player in the queue for a table of four who never opens a table: it answers the
    queue's pings only when ``answer`` (the task that does)."""
    ws = await _socket(base_url, "/ws/queue", address)
    asked = {"type": "queue", "name": name, "player_id": str(uuid.uuid4()), "seats": 4}
    await ws.send(json.dumps(asked))
    if not answer:
        return ws, None
    queued = json.loads(await ws.recv())
    every = float(queued.get("ping_every", 5.0))
    return ws, asyncio.create_task(_keep_pinging(ws, every))


async def _gone(ghosts: list[tuple[ClientConnection, asyncio.Task[None] | None]]) -> None:
    for ws, pinging in ghosts:
        if pinging is not None:
            pinging.cancel()
        await ws.close()


async def ghost_queue(base_url: str, addresses: list[str], seconds: float) -> dict[str, float]:
    address = addresses[0]
    until = time.monotonic() + seconds
    counts = {"tables": 0.0, "ghost_seats": 0.0, "ai_took_over": 0.0, "longest_wait": 0.0}
    while time.monotonic() < until - 1.0:
        ghosts = [await _ghost(base_url, address, f"Ghost {n}", answer=n == 2) for n in range(3)]
        await asyncio.sleep(0.5)  # the ghosts are in the queue first
        found, queue = await _queue_for_table(base_url, address, "Honest", until=until)
        await queue.close()
        if found is None or found["type"] != "matched":
            # Refused (the address's joins or games, spent by an attack before this one).
            code = "timeout" if found is None else found["code"]
            counts[f"refused_{code}"] = 1.0
            await _gone(ghosts)
            break
        counts["tables"] += 1
        ws = await _open_table(base_url, address, found["code"], found["token"])
        waited, taken = await _ai_plays_the_rest(ws, found["seat"], until)
        async with _http(base_url, address) as http:
            room = (await http.get(f"/api/rooms/{found['code']}")).json()
        counts["ghost_seats"] += sum(
            1 for s in room["seats"] if s is not None and s["name"].startswith("Ghost")
        )
        counts["longest_wait"] = max(counts["longest_wait"], waited)
        counts["ai_took_over"] += taken
        await ws.close()
        await _gone(ghosts)
    return counts


ATTACKS: dict[str, Attack] = {
    "practice_tables": practice_tables,
    "play_now_per_address": play_now_per_address,
    "ceiling@100": ceiling,
    "ghost_queue": ghost_queue,
}


async def _run(attack: Attack, url: str, addresses: list[str], seconds: float) -> dict[str, float]:
    return await attack(url, addresses, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--attack", choices=sorted(ATTACKS), action="append")
    args = parser.parse_args()
    for name in args.attack or sorted(ATTACKS):
        many = 100 if name.endswith("@100") else 1
        addresses = [f"127.0.0.{2 + n}" for n in range(many)]
        counters = asyncio.run(_run(ATTACKS[name], args.url, addresses, args.seconds))
        shown = ", ".join(f"{key} {value:g}" for key, value in counters.items())
        print(f"{name}: {shown}")


if __name__ == "__main__":
    main()
