"""The chaos soak's players: scripted people who reconnect and resend as ``docs/protocol.md``
says, and keep a log of what they were told, for the soak's checks.

A person holds one connection at a time, to any live process. When it closes (whatever the
reason) they reconnect to another, and an act that got no answer is sent again with the same
``ref``: it is answered ``applied`` if it was, applied now if it was not. An act counts as
acknowledged only when the server said so: a ``state`` carrying its ``ref``, or ``applied``.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

RETRY_SECONDS = 0.25
"""Between a failed connection or request and the next try."""
RETRY_MOST_SECONDS = 4.0
"""The longest wait between tries of a person who keeps failing to get their seat back."""
OPEN_SECONDS = 30.0
"""How long a WebSocket handshake may take before it is given up and tried again."""
RESEND_SECONDS = 3.0
"""An act unanswered this long on an open connection is sent again with its ``ref``."""


@dataclass
class Wait:
    """Something a person waited for: their seat back after a drop, or a move's answer."""

    kind: str
    """``"seat"`` or ``"move"``."""
    began: float
    ended: float


@dataclass
class Acked:
    ref: str
    action: dict[str, Any]
    version: int


@dataclass
class Person:
    """One person's seat in one room, and their log."""

    code: str
    seat: int
    token: str
    rng: random.Random
    think: float
    """Seconds a person takes to choose a move."""
    acked: list[Acked] = field(default_factory=list)
    waits: list[Wait] = field(default_factory=list)
    seats_told: set[int] = field(default_factory=set)
    """Every ``view.seat`` the server sent this person (one, their own, if all is well)."""
    games: list[str] = field(default_factory=list)
    """The ids of the games this person's room played, in order, as its summaries said."""
    over: bool = False
    """Whether the latest game the person saw had ended."""
    recorded: bool = False
    """Whether that game was, the latest summary said, in the database."""
    refusals: dict[str, int] = field(default_factory=dict)
    """Refusal codes received, counted."""
    connections: int = 0
    """Connections opened, over the run."""
    holding: bool = False
    """Whether the person holds their seat now: a ``state`` came on the open connection."""
    drop_now: asyncio.Event = field(default_factory=asyncio.Event)
    """Set by the reconnect burst: close the connection and open another."""
    _moves: int = 0
    _states: int = 0
    """``state`` messages received, over the run."""
    _pending: tuple[str, dict[str, Any], int, float] | None = None
    """The act awaiting an answer: its ref, action, version chosen from, when first sent."""
    _latest: dict[str, Any] | None = None
    _sent: float = 0.0
    """When the pending act was last sent."""

    def where(self) -> str:
        """Where this person's game stood when last seen, for a room that did not finish."""
        latest = self._latest
        if latest is None:
            return f"seat {self.seat}: no state on its connection"
        view = latest["view"]
        return (
            f"seat {self.seat}: version {latest['version']}, to act {view['to_act']},"
            f" over {view['over']}, waiting for {self._pending and self._pending[0]},"
            f" refused {self.refusals}, connections {self.connections}"
        )

    async def play(self, base_urls: Callable[[], list[str]], stop: asyncio.Event) -> None:
        """Hold the seat until ``stop``, through every fault. After a try that got no
        ``state``, the next waits longer (up to ``RETRY_MOST_SECONDS``, jittered): when the
        soak's own process is starved of CPU, a thousand people trying again at once keep
        timing their handshakes out and none gets back."""
        dropped: float | None = None
        failed = 0
        while not stop.is_set():
            bases = base_urls()
            if not bases:
                await asyncio.sleep(RETRY_SECONDS)
                continue
            url = self.rng.choice(bases).replace("http://", "ws://") + f"/ws/{self.code}"
            states = self._states
            try:
                # No keepalive pings of its own, as a browser sends none: on a stalled event loop
                # the pong is read late, and the client would drop a connection the server
                # still serves.
                async with connect(
                    url, max_size=None, open_timeout=OPEN_SECONDS, ping_interval=None
                ) as ws:
                    self.connections += 1
                    await ws.send(orjson.dumps({"type": "hello", "token": self.token}).decode())
                    dropped = await self._session(ws, stop, dropped)
            except (OSError, ConnectionClosed, InvalidHandshake, InvalidStatus, TimeoutError):
                pass
            if dropped is None:
                dropped = time.monotonic()
            failed = 0 if self._states > states else failed + 1
            if not stop.is_set():
                longest = min(RETRY_SECONDS * 2**failed, RETRY_MOST_SECONDS)
                await asyncio.sleep(longest * self.rng.random())

    async def _session(
        self, ws: ClientConnection, stop: asyncio.Event, dropped: float | None
    ) -> float | None:
        """Read and play on one connection; returns when it dropped (None if it never got
        the seat back: still waiting since ``dropped``)."""
        self.drop_now.clear()
        self._latest = None  # versions only grow within one connection
        resent = False
        reader = asyncio.ensure_future(ws.recv())
        stopping = asyncio.ensure_future(stop.wait())
        burst = asyncio.ensure_future(self.drop_now.wait())
        try:
            while True:
                done, _ = await asyncio.wait(
                    {reader, stopping, burst}, timeout=1.0, return_when=asyncio.FIRST_COMPLETED
                )
                if not done:
                    if self._pending is not None and time.monotonic() > self._sent + RESEND_SECONDS:
                        await self._send(ws)  # no answer yet: sent again, to be sure
                    continue
                if stopping in done or burst in done:
                    await ws.close()
                    return time.monotonic() if burst in done else dropped
                try:
                    raw = reader.result()
                except ConnectionClosed:
                    return time.monotonic() if dropped is None else dropped
                reader = asyncio.ensure_future(ws.recv())
                message = orjson.loads(raw)
                kind = message.get("type")
                if kind == "room":
                    self._on_room(message["room"])
                elif kind == "state":
                    self.holding = True
                    self._states += 1
                    if dropped is not None:
                        self.waits.append(Wait("seat", dropped, time.monotonic()))
                        dropped = None
                    await self._on_state(ws, message)
                    if not resent and self._pending is not None:
                        resent = True
                        await self._send(ws)
                elif kind == "applied":
                    self._answered(message.get("ref"), message.get("version"))
                    await self._maybe_act(ws)
                elif kind == "error":
                    await self._on_error(ws, message)
        finally:
            self.holding = False
            for task in (reader, stopping, burst):
                task.cancel()
            with contextlib.suppress(BaseException):
                await reader

    def _on_room(self, room: dict[str, Any]) -> None:
        game = room.get("game")
        if game is None:
            return
        if not self.games or self.games[-1] != game["id"]:
            self.games.append(game["id"])
        self.over = bool(game["over"])
        self.recorded = bool(game["recorded"])

    async def _on_state(self, ws: ClientConnection, state: dict[str, Any]) -> None:
        if self._latest is not None and state["version"] <= self._latest["version"]:
            return
        self._latest = state
        self.seats_told.add(state["view"]["seat"])
        if self._pending is not None and state.get("ref") == self._pending[0]:
            self._answered(state["ref"], state["version"])
        await self._maybe_act(ws)

    async def _maybe_act(self, ws: ClientConnection) -> None:
        """Choose and send a move from the latest state if it is this seat's turn and no act
        awaits its answer (called again once one is answered: the turn may have come back
        meanwhile, and a person who never moved would hold the game up for ever)."""
        state = self._latest
        if (
            state is not None
            and self._pending is None
            and not state["view"]["over"]
            and self.seat in state["view"]["to_act"]
            and state["legal"]
        ):
            await asyncio.sleep(self.think * self.rng.random())
            self._moves += 1
            choices = [a for a in state["legal"] if a["type"] != "concede"] or state["legal"]
            ref = f"{self.seat}-{self._moves}"
            self._pending = (ref, self.rng.choice(choices), state["version"], time.monotonic())
            await self._send(ws)

    async def _send(self, ws: ClientConnection) -> None:
        assert self._pending is not None
        ref, action, version, _ = self._pending
        act = {"type": "act", "ref": ref, "version": version, "action": action}
        self._sent = time.monotonic()
        with contextlib.suppress(ConnectionClosed):
            await ws.send(orjson.dumps(act).decode())

    def _answered(self, ref: object, version: object) -> None:
        if self._pending is None or ref != self._pending[0]:
            return
        sent_ref, action, _, began = self._pending
        self.acked.append(Acked(sent_ref, action, int(str(version))))
        self.waits.append(Wait("move", began, time.monotonic()))
        self._pending = None

    async def _on_error(self, ws: ClientConnection, error: dict[str, Any]) -> None:
        code = str(error.get("code"))
        self.refusals[code] = self.refusals.get(code, 0) + 1
        if self._pending is None or error.get("ref") != self._pending[0]:
            return
        if code in ("unavailable", "rate_limited"):
            await asyncio.sleep(RETRY_SECONDS)
            await self._send(ws)  # applied at most once: the same ref
            return
        # Refused, so not applied: choose again from the latest state.
        self.waits.append(Wait("move", self._pending[3], time.monotonic()))
        self._pending = None
        await self._maybe_act(ws)


_CLIENTS: dict[tuple[int, str], httpx.AsyncClient] = {}
"""One HTTP client per event loop and process address, kept: a client made per request costs
its TLS context (the CA bundle read: about 20 ms of CPU on a busy machine), which makes the
soak's own process the bottleneck of making a thousand rooms."""


def _client(base_url: str) -> httpx.AsyncClient:
    key = (id(asyncio.get_running_loop()), base_url)
    client = _CLIENTS.get(key)
    if client is None:
        client = _CLIENTS[key] = httpx.AsyncClient(
            base_url=base_url, timeout=10, limits=httpx.Limits(max_connections=200)
        )
    return client


async def close_clients() -> None:
    """Close the clients this event loop's requests kept."""
    loop = id(asyncio.get_running_loop())
    for key in [key for key in _CLIENTS if key[0] == loop]:
        await _CLIENTS.pop(key).aclose()


async def request(
    base_urls: Callable[[], list[str]],
    method: str,
    path: str,
    *,
    seconds: float = 120.0,
    **kwargs: Any,
) -> httpx.Response:
    """A REST request to any live process, tried again (on another) until it is answered
    with something other than a 5xx, or ``seconds`` pass."""
    deadline = time.monotonic() + seconds
    rng = random.Random()
    while True:
        bases = base_urls()
        if bases:
            try:
                http = _client(rng.choice(bases))
                answer = await http.request(method, path, **kwargs)
                if answer.status_code < 500:
                    return answer
            except httpx.HTTPError:
                pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{method} {path} got no answer within {seconds} s")
        await asyncio.sleep(RETRY_SECONDS)


async def spectate_once(
    base_urls: Callable[[], list[str]], code: str, *, seconds: float = 60.0
) -> tuple[float, str | None]:
    """Connect as a spectator until the first ``state`` comes: how long that took (seconds),
    and None; or, past ``seconds``, what the last try was told instead."""
    began = time.monotonic()
    rng = random.Random()
    told: str | None = "no process was up"
    while time.monotonic() - began < seconds:
        bases = base_urls()
        if bases:
            url = rng.choice(bases).replace("http://", "ws://") + f"/ws/{code}"
            try:
                async with connect(url, max_size=None, open_timeout=30) as ws:
                    await ws.send('{"type": "hello"}')
                    async for raw in ws:
                        message = orjson.loads(raw)
                        if message.get("type") == "state":
                            return time.monotonic() - began, None
                        if message.get("type") == "error":
                            told = f"error {message.get('code')}"
                    told = f"closed {ws.close_code} after {told}"
            except (OSError, ConnectionClosed, InvalidHandshake, InvalidStatus, TimeoutError) as e:
                told = repr(e)
        await asyncio.sleep(RETRY_SECONDS)
    return time.monotonic() - began, told
