"""The WebSocket attacks of issue 44, for the attacks bench (``bench/attacks.py``): each costs
one client little and the server a whole state per answer.

- ``reconnect_resync``: 32 spectator connections from one address, each reconnecting in a
  loop as soon as its first state has come: every connection's first state is the whole view
  and log.
- ``repeated_ref``: 64 connections of one seat sending, over and over, an ``act`` whose ``ref``
  was applied already.

Each attack is ``(base_url, addresses, seconds) -> counters``: it sets up its own room through
the public API from its first address, then sends only from there (the server sees that
address as the client), for at most ``seconds``. Counted: ``states`` (whole states received)
and their ``bytes`` (every message's text, as decoded), per second too, and what else came
back (``delayed``, ``acks``, ``refused``). Run alone against a server started by hand::

    python bench/attacks_ws.py --url http://127.0.0.1:8000 --seconds 20 [--pid PID]

``--pid`` adds the server's CPU over the attack (share of one core, from ``/proc``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Run as a script, this folder's engine.py would shadow the packages the server imports.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import httpx  # noqa: E402
from websockets.asyncio.client import ClientConnection, connect  # noqa: E402
from websockets.exceptions import ConnectionClosed, InvalidStatus  # noqa: E402

from bench.swarm import cpu_seconds  # noqa: E402

Attack = Callable[[str, list[str], float], Awaitable[dict[str, float]]]

RECONNECTING = 32
"""Spectator connections reconnecting in a loop (the issue's figure)."""
TABS = 64
"""Connections of one seat repeating an applied act's ref (the issue's figure)."""
SETUP_MOVES = 100
"""Moves played in the attacked room first, so that a whole state carries a long log."""
SETUP_SECONDS = 20.0
"""The longest the setup may play for."""


@dataclass
class Counts:
    """What an attack's connections received."""

    states: int = 0
    bytes: int = 0
    delayed: int = 0
    """``error state_delayed``: a connection's first state waits for the address's budget."""
    acks: int = 0
    """``applied``: the short answer to a repeated ``ref``."""
    refused: int = 0
    """Other errors (``rate_limited``, ``resync_too_often``, ...)."""
    connects: int = 0
    closed: int = 0
    """Connections the server closed or refused."""
    codes: dict[str, int] = field(default_factory=dict)

    def took(self, raw: str | bytes) -> tuple[str, dict[str, Any] | None]:
        """Count a message; its type, and the message unless it is a ``state`` (not decoded:
        the attacker's own cost must stay below the server's)."""
        self.bytes += len(raw)
        head = raw[:32] if isinstance(raw, str) else raw[:32].decode(errors="replace")
        if head.startswith('{"type":"state"'):
            self.states += 1
            return "state", None
        message: dict[str, Any] = json.loads(raw)
        kind: str = message["type"]
        if kind == "applied":
            self.acks += 1
        elif kind == "error":
            code = message["code"]
            self.codes[code] = self.codes.get(code, 0) + 1
            if code == "state_delayed":
                self.delayed += 1
            else:
                self.refused += 1
        return kind, message

    def figures(self, seconds: float) -> dict[str, float]:
        return {
            "states": self.states,
            "states_per_s": self.states / seconds,
            "bytes": self.bytes,
            "bytes_per_s": self.bytes / seconds,
            "delayed": self.delayed,
            "acks": self.acks,
            "refused": self.refused,
            "connects": self.connects,
            "closed": self.closed,
            **{f"error_{code}": count for code, count in sorted(self.codes.items())},
        }


def _ws_base(base_url: str) -> str:
    return base_url.replace("http://", "ws://", 1).replace("https://", "wss://", 1)


async def _connect(base_url: str, code: str, address: str) -> ClientConnection:
    return await connect(
        f"{_ws_base(base_url)}/ws/{code}",
        max_size=None,
        open_timeout=10,
        local_addr=(address, 0),
    )


async def _hello(ws: ClientConnection, token: str | None) -> None:
    await ws.send(json.dumps({"type": "hello", **({"token": token} if token else {})}))


async def _room(base_url: str, address: str) -> tuple[str, list[str]]:
    """A started two-person room open to spectators, ``SETUP_MOVES`` random legal moves in
    (or fewer if the game ends): its code and the two seats' tokens."""
    transport = httpx.AsyncHTTPTransport(local_address=address)
    async with httpx.AsyncClient(base_url=base_url, timeout=30, transport=transport) as http:
        made = await http.post(
            "/api/rooms",
            json={"name": "Ann", "seats": 2, "spectators": True, "rounds": "million"},
        )
        made.raise_for_status()
        code: str = made.json()["code"]
        host: str = made.json()["token"]
        joined = await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
        joined.raise_for_status()
        tokens = [host, joined.json()["token"]]
        started = await http.post(
            f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {host}"}
        )
        started.raise_for_status()
    seats = [await _connect(base_url, code, address) for _ in tokens]
    for ws, token in zip(seats, tokens, strict=True):
        await _hello(ws, token)
    rng = random.Random(44)
    moves = 0
    until = time.monotonic() + SETUP_SECONDS

    async def play(ws: ClientConnection) -> None:
        nonlocal moves
        acted_on = -1
        act: dict[str, Any] = {}
        async for raw in ws:
            message = json.loads(raw)
            if message["type"] == "error" and message["code"] == "rate_limited":
                await asyncio.sleep(0.2)  # past the messages a connection may send a second
                await ws.send(json.dumps(act))
            if message["type"] != "state":
                continue
            if message["view"]["over"] or moves >= SETUP_MOVES:
                return
            mine = message["view"]["seat"] in message["view"]["to_act"] and message["legal"]
            if mine and message["version"] > acted_on:
                acted_on = message["version"]
                moves += 1
                legal = [a for a in message["legal"] if a["type"] != "concede"] or message["legal"]
                act = {
                    "type": "act",
                    "ref": f"setup-{moves}",
                    "version": message["version"],
                    "action": rng.choice(legal),
                }
                await ws.send(json.dumps(act))

    players = [asyncio.create_task(play(ws)) for ws in seats]
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.gather(*players), max(1.0, until - time.monotonic()))
    for ws in seats:
        await ws.close()
    return code, tokens


async def reconnect_resync(base_url: str, addresses: list[str], seconds: float) -> dict[str, float]:
    """``RECONNECTING`` spectators from one address: connect, say hello, read until the first
    state (or a refusal), close, again, for ``seconds``."""
    address = addresses[0]
    code, _ = await _room(base_url, address)
    counts = Counts()
    until = time.monotonic() + seconds

    async def loop() -> None:
        while time.monotonic() < until:
            counts.connects += 1
            try:
                ws = await _connect(base_url, code, address)
            except (OSError, InvalidStatus, TimeoutError):
                counts.closed += 1
                continue
            try:
                await _hello(ws, None)
                while True:
                    raw = await asyncio.wait_for(ws.recv(), max(0.01, until - time.monotonic()))
                    if counts.took(raw)[0] == "state":
                        break
            except ConnectionClosed:
                counts.closed += 1
            except TimeoutError:
                pass
            finally:
                await ws.close()

    started = time.monotonic()
    await asyncio.gather(*(loop() for _ in range(RECONNECTING)))
    return counts.figures(time.monotonic() - started)


async def _first_state(ws: ClientConnection) -> dict[str, Any]:
    """The next ``state``: a first one may wait its turn (``state_delayed``) when an attack
    from this address came just before, up to half a minute at the defaults."""
    while True:
        message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 60))
        if message["type"] == "state":
            return message


async def _applied_ref(
    base_url: str, code: str, tokens: list[str], address: str
) -> tuple[str, dict[str, Any]]:
    """Apply one act as the seat that must move: that seat's token and the act as sent."""
    clients = [await _connect(base_url, code, address) for _ in tokens]
    try:
        for ws, token in zip(clients, tokens, strict=True):
            await _hello(ws, token)
            state = await _first_state(ws)
            view = state["view"]
            if view["seat"] in view["to_act"] and state["legal"] and not view["over"]:
                act = {
                    "type": "act",
                    "ref": "applied-once",
                    "version": state["version"],
                    "action": state["legal"][0],
                }
                await ws.send(json.dumps(act))
                while (await _first_state(ws))["version"] <= state["version"]:
                    pass
                return token, act
        raise SystemExit("no seat may move in the attacked room")
    finally:
        for ws in clients:
            await ws.close()


async def repeated_ref(base_url: str, addresses: list[str], seconds: float) -> dict[str, float]:
    """``TABS`` connections of one seat, each sending an applied act again as soon as the last
    was answered (after a refusal, a tenth of a second later), for ``seconds``."""
    address = addresses[0]
    code, tokens = await _room(base_url, address)
    token, act = await _applied_ref(base_url, code, tokens, address)
    text, ref = json.dumps(act), act["ref"]
    counts = Counts()
    until = time.monotonic() + seconds

    async def tab() -> None:
        counts.connects += 1
        try:
            ws = await _connect(base_url, code, address)
        except (OSError, InvalidStatus, TimeoutError):
            counts.closed += 1
            return
        try:
            await _hello(ws, token)
            while time.monotonic() < until:
                await ws.send(text)
                while True:
                    raw = await asyncio.wait_for(ws.recv(), max(0.01, until - time.monotonic()))
                    # Nobody plays meanwhile: a state is the answer (before the fix).
                    kind, message = counts.took(raw)
                    if kind == "state" or (message is not None and message.get("ref") == ref):
                        break
                if kind == "error":
                    await asyncio.sleep(0.1)
        except ConnectionClosed:
            counts.closed += 1
        except TimeoutError:
            pass
        finally:
            await ws.close()

    started = time.monotonic()
    await asyncio.gather(*(tab() for _ in range(TABS)))
    return counts.figures(time.monotonic() - started)


ATTACKS: dict[str, Attack] = {
    "reconnect_resync": reconnect_resync,
    "repeated_ref": repeated_ref,
}


async def _main(args: argparse.Namespace) -> None:
    names = args.attack or list(ATTACKS)
    for name in names:
        before = None if args.pid is None else cpu_seconds(args.pid)
        started = time.monotonic()
        counters = await ATTACKS[name](args.url, [args.address], args.seconds)
        elapsed = time.monotonic() - started
        line = "  ".join(f"{key} {value:,.1f}" for key, value in counters.items())
        print(f"{name}: {line}")
        if before is not None:
            # The setup's moves are in this too: a small share beside the attack's seconds.
            cpu = cpu_seconds(args.pid) - before
            print(f"{name}: server CPU {100 * cpu / elapsed:.1f}% of a core over {elapsed:.1f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", required=True, help="the server, e.g. http://127.0.0.1:8000")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--address", default="127.0.0.2", help="loopback address to send from")
    parser.add_argument("--attack", action="append", choices=sorted(ATTACKS))
    parser.add_argument("--pid", type=int, help="the server's process id, for its CPU")
    asyncio.run(_main(parser.parse_args()))
