"""A real server on a loopback port, and WebSocket clients that wait for messages, never sleep."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from app.main import create_app
from app.rooms.recording import FinishedGame
from app.runtime import Runtime
from app.settings import Settings
from app.store.base import RoomStore
from app.transport import server_options
from app.ws.snapshot import Snapshot
from tests.ports import free_port

WAIT = 10.0
"""The longest any test waits for one message."""


class ListRecorder:
    """Keeps finished games in a list; ``fail`` makes it raise, as a database outage would."""

    def __init__(self) -> None:
        self.games: list[FinishedGame] = []
        self.fail = False
        self.attempts = 0
        self._changed = asyncio.Event()

    async def record(self, game: FinishedGame) -> None:
        self.attempts += 1
        self._changed.set()
        if self.fail:
            raise ConnectionError("the database is down")
        if all(stored.game_id != game.game_id for stored in self.games):
            self.games.append(game)

    async def attempted(self) -> None:
        """Wait for the next call to ``record``."""
        self._changed.clear()
        await asyncio.wait_for(self._changed.wait(), WAIT)

    async def game(self, game_id: str) -> FinishedGame:
        """The recorded game, waiting for the server to hand it over."""
        while True:
            found = [game for game in self.games if game.game_id == game_id]
            if found:
                return found[0]
            await self.attempted()


class Recorded:
    """A hub listener that keeps the versions it is given."""

    seat: int | None = 0
    token_hash: str | None = None

    def __init__(self) -> None:
        self.versions: list[int] = []

    def deliver(self, item: Snapshot | dict[str, Any]) -> None:
        assert isinstance(item, Snapshot)
        self.versions.append(item.version)


@dataclass
class Endpoint:
    """A server listening on a loopback port."""

    port: int

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.base_url, timeout=WAIT)


@dataclass
class Live(Endpoint):
    """A server running in this event loop, with its app and recorder at hand."""

    app: FastAPI
    recorder: ListRecorder

    @property
    def runtime(self) -> Runtime:
        runtime: Runtime = self.app.state.runtime
        return runtime


@contextlib.asynccontextmanager
async def live_server(
    settings: Settings, *, store: RoomStore | None = None, port: int | None = None
) -> AsyncIterator[Live]:
    """Serve ``create_app(settings)`` with uvicorn in this event loop until the block ends."""
    recorder = ListRecorder()
    app = create_app(settings, store=store, recorder=recorder)
    port = port or free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        log_level="warning",
        **server_options(settings),
        timeout_graceful_shutdown=2,
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    deadline = time.monotonic() + WAIT
    while not server.started:
        assert not task.done(), "the server did not start"
        assert time.monotonic() < deadline, "the server did not start in time"
        await asyncio.sleep(0.01)
    try:
        yield Live(port, app, recorder)
    finally:
        server.should_exit = True
        await task


@dataclass
class Client:
    """One WebSocket connection, with everything it received.

    Each ``state`` is kept with its view's whole log, as a client holds it: the server sends
    the log whole once, then only the entries after those it sent before (``log_from``)."""

    ws: ClientConnection
    received: list[dict[str, Any]] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)
    """The size in bytes of each message received, as it came (``received`` holds them)."""
    state: dict[str, Any] | None = None
    """The latest ``state`` message."""
    room: dict[str, Any] | None = None
    """The latest ``room`` message's summary."""
    log: list[dict[str, Any]] | None = None
    """The game's whole log as of the latest ``state``."""

    async def recv(self, within: float = WAIT) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.ws.recv(), within)
        message: dict[str, Any] = json.loads(raw)
        self.received.append(message)
        self.sizes.append(len(raw.encode() if isinstance(raw, str) else raw))
        if message["type"] == "state":
            message["view"]["log"] = self._whole_log(message)
            self.state = message
        elif message["type"] == "room":
            self.room = message["room"]
        return message

    def _whole_log(self, state: dict[str, Any]) -> list[dict[str, Any]]:
        """The whole log as of ``state``: its own entries, after the ones this connection
        holds unless it starts over (``log_from`` 0). A gap or an overlap is a failure."""
        log_from, entries = state["log_from"], state["view"]["log"]
        if log_from != 0:
            held = self.log
            assert held is not None and log_from == len(held), (
                f"log_from {log_from}, but the client holds {None if held is None else len(held)}"
                " entries"
            )
            entries = [*held, *entries]
        self.log = entries
        return entries

    async def wait_for(
        self, kind: str, where: Callable[[dict[str, Any]], bool] = lambda _: True
    ) -> dict[str, Any]:
        """The next message of ``kind`` that satisfies ``where`` (others are kept, skipped)."""
        deadline = time.monotonic() + WAIT
        while True:
            message = await self.recv(max(0.01, deadline - time.monotonic()))
            if message["type"] == kind and where(message):
                return message

    async def game_over(self) -> dict[str, Any]:
        """The ``state`` that ends the game. A whole game takes longer than one message: this
        waits for as long as messages keep coming, each within ``WAIT``."""
        while True:
            message = await self.recv()
            if message["type"] == "state" and message["view"]["over"]:
                return message

    async def answer(self, ref: str, *, after: int) -> dict[str, Any]:
        """The server's answer to an ``act`` sent again with ``ref``: ``applied`` when it was
        applied before, else the ``state`` it made (newer than version ``after``)."""
        deadline = time.monotonic() + WAIT
        while True:
            message = await self.recv(max(0.01, deadline - time.monotonic()))
            if message["type"] == "applied" and message["ref"] == ref:
                return message
            if message["type"] == "state" and message["version"] > after:
                return message

    async def room_until(self, where: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The room summary once ``where`` holds for it (already, or in a later message)."""
        if self.room is not None and where(self.room):
            return self.room
        message = await self.wait_for("room", lambda m: where(m["room"]))
        room: dict[str, Any] = message["room"]
        return room

    async def send(self, message: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(message))

    async def act(self, action: dict[str, Any], *, ref: Any, version: int | None = None) -> None:
        assert self.state is not None
        await self.send(
            {
                "type": "act",
                "ref": ref,
                "version": self.state["version"] if version is None else version,
                "action": action,
            }
        )

    async def close(self) -> None:
        await self.ws.close()


def ws_url(live: Endpoint, code: str) -> str:
    return f"ws://127.0.0.1:{live.port}/ws/{code}"


def hello(token: str | None = None) -> dict[str, Any]:
    """A connection's first message: the seat's token, or none for a spectator."""
    return {"type": "hello"} if token is None else {"type": "hello", "token": token}


async def connect_client(
    live: Endpoint, code: str, token: str | None = None, *, origin: str | None = None
) -> Client:
    """A connection that has said hello (as a seat with ``token``, else as a spectator)."""
    ws = await connect(
        ws_url(live, code),
        origin=origin,  # type: ignore[arg-type]
        max_size=None,
        open_timeout=WAIT,
    )
    client = Client(ws)
    # A refused connection may be closed already: its error and close code are still read.
    with contextlib.suppress(ConnectionClosed):
        await client.send(hello(token))
    return client


async def create_room(
    http: httpx.AsyncClient, *, name: str = "Ann", **options: Any
) -> tuple[str, str]:
    """A new room; returns its code and the host's token."""
    response = await http.post("/api/rooms", json={"name": name, **options})
    assert response.status_code == 201, response.text
    body = response.json()
    return body["code"], body["token"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def play_out(client: Client, seat: int, rng: random.Random) -> dict[str, Any]:
    """Play a seat with random legal actions until the game is over; returns the last state.

    Starts from the latest state the client has, then acts on each newer one in its turn.
    """
    acted_on = -1
    refs = 0
    message = client.state
    while True:
        if message is not None and message["type"] == "state":
            if message["view"]["over"]:
                return message
            my_turn = seat in message["view"]["to_act"]
            if message["legal"] and message["version"] > acted_on and my_turn:
                acted_on = message["version"]
                refs += 1
                await client.act(rng.choice(message["legal"]), ref=f"{seat}-{refs}")
        message = await client.recv()
        if message["type"] == "error":
            # Lost races, not faults: the game moved on before the act arrived, or a state
            # that differed only in who is connected came between an act and its result (the
            # act was applied; the second, chosen from that state, is no longer this seat's).
            assert message["code"] in ("stale_version", "not_your_turn"), message
