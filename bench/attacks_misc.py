"""Attacks of issue 44 on names, memory and the lobby, for ``bench/attacks.py``.

Each sends only from the loopback source addresses it is given, for at most ``seconds``,
through the public API, and returns what it counted:

- ``invisible_names``: "Host" makes rooms, and its look-alikes ("Host" + a variation selector,
  a Mongolian free variation selector, a zero-width space) and names of only invisible
  characters ask for a seat beside it. Counts the ones seated (the hole) and refused.
- ``memory_churn`` (and ``@100``): rooms made and left to expire, and Play now players matched
  at once with AI (who never come to their table), as fast as the address's limits allow.
  The runner shows the server's memory growing, or not.
- ``lobby_pages``: eight connections read lobby pages (games to watch, rooms to join) at any
  offset, as fast as they are answered. Counts pages read and refusals.

Run alone against a server started by hand::

    python bench/attacks_misc.py --url http://127.0.0.1:8000 --seconds 10 --only lobby_pages
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import json
import random
import ssl
import sys
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

# Run as a script, this folder's engine.py would shadow the packages the server imports.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import httpx  # noqa: E402
from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import WebSocketException  # noqa: E402

Attack = Callable[[str, list[str], float], Awaitable[dict[str, float]]]

LOOK_ALIKES = ("Host\U000e0100", "Host\u180b", "Host\ufe0f", "Host\U000e01ef", "Host\u200b")
"""Names that read as "Host"."""
BLANKS = ("\U000e0100", "\u180b\u180b", "\U000e0100\U000e0101", "\u180f", "\U000e0020")
"""Names that show nothing."""
LOBBY_CONNECTIONS = 8


_PLAIN = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
"""One TLS context for every client (never used: loopback is plain HTTP). A client makes its
own otherwise, loading the CA bundle: 100 of them took 40 s on a busy machine."""


def http_from(base_url: str, address: str) -> httpx.AsyncClient:
    """A client whose connections leave from ``address`` (a loopback address of its own)."""
    transport = httpx.AsyncHTTPTransport(local_address=address, verify=_PLAIN)
    return httpx.AsyncClient(base_url=base_url, transport=transport, timeout=10, verify=_PLAIN)


async def invisible_names(base_url: str, addresses: list[str], seconds: float) -> dict[str, float]:
    counts: Counter[str] = Counter()
    until = time.monotonic() + seconds
    async with http_from(base_url, addresses[0]) as http:
        while time.monotonic() < until:
            made = await http.post("/api/rooms", json={"name": "Host", "seats": 6})
            if made.status_code != 201:
                counts["rooms_refused"] += 1
                break
            counts["rooms"] += 1
            code = made.json()["code"]
            for kind, names in (("look_alike", LOOK_ALIKES), ("blank", BLANKS)):
                for name in names:
                    joined = await http.post(f"/api/rooms/{code}/join", json={"name": name})
                    if joined.status_code == 200:
                        counts[f"{kind}_seated"] += 1
                    elif joined.status_code == 429:
                        counts["limited"] += 1
                    else:
                        counts["refused"] += 1
            if counts["limited"]:
                break
    return {name: float(count) for name, count in counts.items()}


async def _rooms_left_to_expire(
    http: httpx.AsyncClient, until: float, counts: Counter[str]
) -> None:
    while time.monotonic() < until:
        try:
            made = await http.post("/api/rooms", json={"name": "Churn", "visibility": "public"})
        except httpx.HTTPError:
            counts["http_errors"] += 1
            await asyncio.sleep(0.5)
            continue
        if made.status_code == 201:
            counts["rooms_made"] += 1
        else:
            counts["rooms_refused"] += 1
            await asyncio.sleep(1.0)  # the address's limits: try again later, as a script would


async def _matched_players(base_url: str, address: str, until: float, counts: Counter[str]) -> None:
    ws_url = base_url.replace("http", "ws", 1) + "/ws/queue"
    while time.monotonic() < until:
        join = {"type": "queue", "name": "Ghost", "player_id": str(uuid.uuid4()), "seats": 2}
        try:
            async with asyncio.timeout(max(0.1, until - time.monotonic())):
                async with connect(ws_url, local_addr=(address, 0), open_timeout=10) as ws:
                    await ws.send(json.dumps(join))
                    await ws.send(json.dumps({"type": "fill_ai"}))
                    async for raw in ws:
                        kind = json.loads(raw)["type"]
                        if kind == "matched":
                            counts["players_matched"] += 1
                            break
                        if kind == "error":
                            counts["queue_refused"] += 1
                            await asyncio.sleep(1.0)
                            break
        except (TimeoutError, OSError, WebSocketException):
            counts["queue_closed"] += 1
            await asyncio.sleep(0.5)


async def memory_churn(base_url: str, addresses: list[str], seconds: float) -> dict[str, float]:
    counts: Counter[str] = Counter()
    async with contextlib.AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(http_from(base_url, a)) for a in addresses]
        until = time.monotonic() + seconds
        await asyncio.gather(
            *(_rooms_left_to_expire(http, until, counts) for http in clients),
            *(_matched_players(base_url, address, until, counts) for address in addresses),
        )
    return {name: float(count) for name, count in counts.items()}


async def lobby_pages(base_url: str, addresses: list[str], seconds: float) -> dict[str, float]:
    counts: Counter[str] = Counter()
    pages = itertools.cycle(
        [("/api/lobby", 20, 500), ("/api/rooms", 50, 100), ("/api/lobby", 20, 0)]
    )

    async def reader(http: httpx.AsyncClient) -> None:
        rng = random.Random()
        while time.monotonic() < until:
            path, limit, furthest = next(pages)
            offset = limit * rng.randint(0, furthest)
            try:
                answer = await http.get(path, params={"offset": offset, "limit": limit})
            except httpx.HTTPError:
                counts["http_errors"] += 1
                continue
            counts["bytes"] += len(answer.content)
            if answer.status_code == 200:
                counts["pages"] += 1
            elif answer.status_code == 429:
                counts["refused"] += 1
            else:
                counts[f"status_{answer.status_code}"] += 1

    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(http_from(base_url, addresses[0]))
            for _ in range(LOBBY_CONNECTIONS)
        ]
        until = time.monotonic() + seconds
        await asyncio.gather(*(reader(http) for http in clients))
    return {name: float(count) for name, count in counts.items()}


ATTACKS: dict[str, Attack] = {
    "invisible_names": invisible_names,
    "memory_churn": memory_churn,
    "memory_churn@100": memory_churn,
    "lobby_pages": lobby_pages,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="the server, e.g. http://127.0.0.1:8000")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--only", default="", help="comma-separated attack names")
    args = parser.parse_args()
    if not args.url.startswith(("http://127.", "http://localhost")):
        raise SystemExit("attacks are sent to a loopback server only")
    chosen = [name for name in ATTACKS if not args.only or name in args.only.split(",")]
    for name in chosen:
        count = 100 if name.endswith("@100") else 1
        addresses = [f"127.0.0.{2 + n}" for n in range(count)]
        counters = asyncio.run(ATTACKS[name](args.url, addresses, min(args.seconds, 120.0)))
        print(name, {key: round(value) for key, value in sorted(counters.items())})


if __name__ == "__main__":
    main()
