"""The HTTP attacks of issue 44, for the attacks bench (``bench/attacks.py``): replays, each
megabytes of JSON, asked for over and over, or asked for and never read.

- ``cached_replay``: 8 connections from one address fetching one finished six-seat game's
  replay (about 2.8 MB of JSON), kept by the server after the first, as fast as it answers.
- ``replay_cycle``: 8 connections from one address fetching the replays of 24 finished games
  in turn, more than the 16 the server keeps.
- ``unread_answers``: 64 connections from one address (the per-address connection cap) that
  each ask for the large replay three times at once (pipelined) and never read a byte; a
  connection the server closes is replaced. ``unread_answers@100``: 4 such connections from
  each of 100 addresses.

Each attack is ``(base_url, addresses, seconds) -> counters``: it plays its own games through
the public API from its first address (rooms of person seats, each acting at random, played to
the end, then rematched: no AI pause), kept for the next attack on the same server, then sends
only from the given addresses for at most ``seconds``. The attackers ask for the plain JSON
(``Accept-Encoding: identity``): what costs the server most. Counted: answers by status and
code, the body bytes received, per second too; for ``unread_answers``, what the server's own
sockets to the attackers hold unsent in the kernel and how many it has closed (read from
``/proc/net/tcp``, loopback only). Run alone against a server started by hand::

    python bench/attacks_http.py --url http://127.0.0.1:8000 --seconds 20 [--pid PID]

``--pid`` adds the server's CPU over each attack (its setup left out) and its memory after.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import socket
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

# Run as a script, this folder's engine.py would shadow the packages the server imports.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import httpx  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

from bench.swarm import cpu_seconds, rss_bytes  # noqa: E402

Attack = Callable[[str, list[str], float], Awaitable[dict[str, float]]]

CONNECTIONS = 8
"""Connections fetching replays (the issue's figure)."""
CYCLED_GAMES = 24
"""Finished games whose replays ``replay_cycle`` cycles through (more than the 16 kept)."""
CYCLE_ROOMS = 4
"""Rooms playing the cycled games at once (the games one address may have in play)."""
UNREAD_PER_ADDRESS = 64
"""Connections per address that never read (the default per-address connection cap)."""
UNREAD_PER_ADDRESS_AT_100 = 4
PIPELINED = 3
"""Requests each unread connection sends at once: the kernel takes the first answer (up to
``tcp_wmem``'s 4 MB), the server's process holds the next."""
PLAIN = {"Accept-Encoding": "identity"}
SETUP_SECONDS = 180.0
"""The longest the setup may take to play its games."""

_games: dict[tuple[str, str], list[str]] = {}
"""Finished games already played on a server, by (server, kind): set up once per run."""


def _client(base_url: str, address: str, connections: int = 1) -> httpx.AsyncClient:
    transport = httpx.AsyncHTTPTransport(
        local_address=address, limits=httpx.Limits(max_connections=connections)
    )
    return httpx.AsyncClient(base_url=base_url, timeout=30, transport=transport)


def _ws_base(base_url: str) -> str:
    return base_url.replace("http://", "ws://", 1).replace("https://", "wss://", 1)


async def _seat(
    ws: ClientConnection, rng: random.Random, over: asyncio.Queue[None], version: list[int]
) -> None:
    """Play one seat: a random legal move (never a concession) whenever it is to act; each
    game's end put on ``over`` once (by whichever seat sees it first)."""
    acted_on = -1
    last: dict[str, Any] = {}
    with contextlib.suppress(ConnectionClosed):
        async for raw in ws:
            message = json.loads(raw)
            if message["type"] == "error" and message["code"] == "rate_limited":
                await asyncio.sleep(0.3)  # past the messages a connection may send a second
                await ws.send(json.dumps(last))
                continue
            if message["type"] != "state":
                continue
            view = message["view"]
            if view["over"]:
                if message["version"] > version[0]:
                    version[0] = message["version"]
                    over.put_nowait(None)
                continue
            mine = view["seat"] in view["to_act"] and message["legal"]
            if mine and message["version"] > acted_on:
                acted_on = message["version"]
                legal = [a for a in message["legal"] if a["type"] != "concede"]
                last = {
                    "type": "act",
                    "ref": f"v{acted_on}",
                    "version": acted_on,
                    "action": rng.choice(legal or message["legal"]),
                }
                await ws.send(json.dumps(last))


async def _play_room(
    base_url: str, address: str, *, seats: int, rounds: int | str, games: int
) -> list[str]:
    """A room of ``seats`` person seats playing ``games`` games to the end (a rematch after
    each): their ids, once each is recorded."""
    async with _client(base_url, address) as http:
        made = await http.post("/api/rooms", json={"name": "P0", "seats": seats, "rounds": rounds})
        made.raise_for_status()
        code, host = made.json()["code"], made.json()["token"]
        tokens = [host]
        for index in range(1, seats):
            joined = await http.post(f"/api/rooms/{code}/join", json={"name": f"P{index}"})
            joined.raise_for_status()
            tokens.append(joined.json()["token"])
        auth = {"Authorization": f"Bearer {host}"}
        sockets = [
            await connect(f"{_ws_base(base_url)}/ws/{code}", max_size=None, local_addr=(address, 0))
            for _ in tokens
        ]
        for ws, token in zip(sockets, tokens, strict=True):
            await ws.send(json.dumps({"type": "hello", "token": token}))
        over: asyncio.Queue[None] = asyncio.Queue()
        version = [0]
        rng = random.Random(code)
        players = [asyncio.create_task(_seat(ws, rng, over, version)) for ws in sockets]
        ids: list[str] = []
        try:
            for number in range(games):
                path = "start" if number == 0 else "rematch"
                await _until_taken(http, f"/api/rooms/{code}/{path}", auth)
                await over.get()
                ids.append(await _recorded(http, code))
        finally:
            for ws in sockets:
                await ws.close()
            for player in players:
                player.cancel()
        return ids


async def _until_taken(http: httpx.AsyncClient, path: str, auth: dict[str, str]) -> None:
    """POST until it is not ``429`` (a game of this address's may still count as in play)."""
    for _ in range(60):
        answer = await http.post(path, headers=auth)
        if answer.status_code != 429:
            answer.raise_for_status()
            return
        await asyncio.sleep(1)
    raise SystemExit(f"{path} still refused after a minute")


async def _recorded(http: httpx.AsyncClient, code: str) -> str:
    """The room's last game's id, once the server has recorded it (polled: no message says)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        answer = await http.get(f"/api/rooms/{code}")
        if answer.status_code == 429:  # the address's request rate: wait as the server says
            await asyncio.sleep(float(answer.headers.get("Retry-After", "1")))
            continue
        game = answer.json()["game"]
        if game["recorded"]:
            return str(game["id"])
        await asyncio.sleep(0.5)
    raise SystemExit(f"room {code}'s game was not recorded within a minute")


async def _finished(base_url: str, address: str, kind: str) -> list[str]:
    """The finished games of ``kind`` on this server: played now if not yet."""
    key = (base_url, kind)
    if key not in _games:
        if kind == "large":
            plays = [_play_room(base_url, address, seats=6, rounds="million", games=1)]
        else:
            each = CYCLED_GAMES // CYCLE_ROOMS
            plays = [
                _play_room(base_url, address, seats=2, rounds=1, games=each)
                for _ in range(CYCLE_ROOMS)
            ]
        rooms = await asyncio.wait_for(asyncio.gather(*plays), SETUP_SECONDS)
        _games[key] = [game for room in rooms for game in room]
    return _games[key]


async def _kept(base_url: str, address: str, game: str) -> None:
    """Fetch the game's replay once, so that the server keeps it (waiting, if this address
    has had its replays computed for the minute, as long as the server says)."""
    async with _client(base_url, address) as http:
        for _ in range(5):
            answer = await http.get(f"/api/games/{game}", headers=PLAIN)
            if answer.status_code != 429:
                answer.raise_for_status()
                return
            await asyncio.sleep(float(answer.headers.get("retry-after", "1")))
    raise SystemExit(f"the replay of {game} was refused five times")


class Answers:
    """What the attackers' requests got back."""

    def __init__(self) -> None:
        self.codes: Counter[str] = Counter()
        self.bytes = 0
        self.replays = 0
        self.failed = 0

    def took(self, answer: httpx.Response) -> None:
        if answer.status_code == 200:
            self.replays += 1
            self.bytes += len(answer.content)
        elif answer.headers.get("content-type") == "application/json":
            self.codes[f"{answer.status_code}_{answer.json()['code']}"] += 1
        else:
            self.codes[str(answer.status_code)] += 1

    def figures(self, seconds: float) -> dict[str, float]:
        return {
            "replays": self.replays,
            "replays_per_s": self.replays / seconds,
            "bytes": self.bytes,
            "bytes_per_s": self.bytes / seconds,
            "failed": self.failed,
            **{f"refused_{code}": count for code, count in sorted(self.codes.items())},
        }


async def _fetching(base_url: str, address: str, games: list[str], seconds: float) -> Answers:
    """``CONNECTIONS`` connections, each fetching the games' replays in turn, for ``seconds``;
    after a refusal a connection asks again as soon as the answer says (``Retry-After``)."""
    answers = Answers()
    until = time.monotonic() + seconds
    async with _client(base_url, address, CONNECTIONS) as http:

        async def fetch(start: int) -> None:
            turn = start
            while time.monotonic() < until:
                game = games[turn % len(games)]
                turn += 1
                try:
                    answer = await http.get(f"/api/games/{game}", headers=PLAIN)
                except httpx.HTTPError:
                    answers.failed += 1
                    continue
                answers.took(answer)
                if answer.status_code == 429:
                    wait = float(answer.headers.get("retry-after", "1"))
                    await asyncio.sleep(min(wait, max(0.0, until - time.monotonic())))

        await asyncio.gather(*(fetch(start) for start in range(CONNECTIONS)))
    return answers


async def cached_replay(base_url: str, addresses: list[str], seconds: float) -> dict[str, float]:
    address = addresses[0]
    (game,) = await _finished(base_url, address, "large")
    await _kept(base_url, address, game)
    started = time.monotonic()
    answers = await _fetching(base_url, address, [game], seconds)
    return answers.figures(time.monotonic() - started)


async def replay_cycle(base_url: str, addresses: list[str], seconds: float) -> dict[str, float]:
    address = addresses[0]
    games = await _finished(base_url, address, "cycled")
    started = time.monotonic()
    answers = await _fetching(base_url, address, games, seconds)
    return answers.figures(time.monotonic() - started)


async def _unread(
    base_url: str, addresses: list[str], per_address: int, seconds: float
) -> dict[str, float]:
    """``per_address`` connections from each address that ask for the large replay and never
    read; every second, those the server has closed are replaced."""
    (game,) = await _finished(base_url, addresses[0], "large")
    await _kept(base_url, addresses[0], game)
    split = urlsplit(base_url)
    host, port = split.hostname or "127.0.0.1", split.port or 80
    request = (
        PIPELINED
        * (
            f"GET /api/games/{game} HTTP/1.1\r\nHost: {host}\r\nAccept-Encoding: identity\r\n\r\n"
        ).encode()
    )
    loop = asyncio.get_running_loop()
    held: list[socket.socket] = []
    answered: set[socket.socket] = set()
    counts: Counter[str] = Counter()
    most_unsent = most_open = 0

    async def open_one(address: str) -> None:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        try:
            sock.bind((address, 0))
            await loop.sock_connect(sock, (host, port))
            await loop.sock_sendall(sock, request)
        except OSError:
            counts["refused"] += 1
            sock.close()
            return
        counts["requests"] += 1
        held.append(sock)

    started = time.monotonic()
    until = started + seconds
    for address in addresses:
        await asyncio.gather(*(open_one(address) for _ in range(per_address)))
    while time.monotonic() < until:
        await asyncio.sleep(min(1.0, max(0.0, until - time.monotonic())))
        ours = {sock.getsockname()[1]: sock for sock in held}
        server_side = _server_sockets_by_port(port, set(addresses))
        open_now = sum(1 for state, _ in server_side.values() if state == "01")
        most_open = max(most_open, open_now)
        most_unsent = max(most_unsent, sum(unsent for _, unsent in server_side.values()))
        closed = [
            sock
            for client_port, sock in ours.items()
            if server_side.get(client_port, ("07", 0))[0] != "01"
        ]
        for sock in ours.values():
            if sock not in answered:
                with contextlib.suppress(OSError):
                    head = sock.recv(12, socket.MSG_PEEK)  # looked at, not taken
                    if len(head) == 12:
                        answered.add(sock)
                        counts[f"answered_{head[9:12].decode()}"] += 1
        if time.monotonic() >= until:
            break
        for sock in closed:
            counts["closed_by_server"] += 1
            address = sock.getsockname()[0]
            held.remove(sock)
            answered.discard(sock)
            sock.close()
            await open_one(address)
    for sock in held:
        sock.close()
    elapsed = time.monotonic() - started
    return {
        **counts,
        "requests_per_s": counts["requests"] / elapsed,
        "most_open": most_open,
        "most_kernel_unsent_bytes": most_unsent,
    }


def _server_sockets_by_port(port: int, addresses: set[str]) -> dict[int, tuple[str, int]]:
    """The server's sockets to these addresses by the client's port: TCP state (hex, ``01``
    established) and bytes held unsent in the kernel (``/proc/net/tcp``)."""
    found = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = fields[1].split(":"), fields[2].split(":")
        if int(local[1], 16) != port:
            continue
        remote_ip = socket.inet_ntoa(int(remote[0], 16).to_bytes(4, "little"))
        if remote_ip in addresses:
            found[int(remote[1], 16)] = (fields[3], int(fields[4].split(":")[0], 16))
    return found


async def unread_answers(base_url: str, addresses: list[str], seconds: float) -> dict[str, float]:
    return await _unread(base_url, addresses[:1], UNREAD_PER_ADDRESS, seconds)


async def unread_answers_100(
    base_url: str, addresses: list[str], seconds: float
) -> dict[str, float]:
    return await _unread(base_url, addresses, UNREAD_PER_ADDRESS_AT_100, seconds)


ATTACKS: dict[str, Attack] = {
    "cached_replay": cached_replay,
    "replay_cycle": replay_cycle,
    "unread_answers": unread_answers,
    "unread_answers@100": unread_answers_100,
}


def _rss_mb_of(pid: int) -> float:
    return rss_bytes(pid) / 2**20


async def _sample(pid: int, most: list[float]) -> None:
    while True:
        most[0] = max(most[0], _rss_mb_of(pid))
        await asyncio.sleep(0.25)


async def _main(args: argparse.Namespace) -> None:
    names = args.attack or [name for name in ATTACKS if not name.endswith("@100")]
    for name in names:
        addresses = (
            [f"127.0.0.{n}" for n in range(2, 102)] if name.endswith("@100") else [args.address]
        )
        # Set up first, so that the CPU below is the attack's own.
        await _finished(args.url, addresses[0], "cycled" if name == "replay_cycle" else "large")
        before = None if args.pid is None else cpu_seconds(args.pid)
        most_rss = [0.0]
        sampling = None if args.pid is None else asyncio.create_task(_sample(args.pid, most_rss))
        started = time.monotonic()
        counters = await ATTACKS[name](args.url, addresses, args.seconds)
        elapsed = time.monotonic() - started
        if sampling is not None:
            sampling.cancel()
        line = "  ".join(f"{key} {value:,.1f}" for key, value in counters.items())
        print(f"{name}: {line}", flush=True)
        if before is not None:
            cpu = cpu_seconds(args.pid) - before
            print(
                f"{name}: server CPU {100 * cpu / elapsed:.1f}% of a core over {elapsed:.1f} s,"
                f" RSS at most {most_rss[0]:.0f} MB, {_rss_mb_of(args.pid):.0f} MB after",
                flush=True,
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the server, e.g. http://127.0.0.1:8000")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--address", default="127.0.0.2", help="loopback address to send from")
    parser.add_argument("--attack", action="append", choices=sorted(ATTACKS))
    parser.add_argument("--pid", type=int, help="the server's process id, for its CPU and memory")
    asyncio.run(_main(parser.parse_args()))
