"""A bare WebSocket fan-out server: the floor that ``bench/load.py`` compares the game server to.

Speaks just enough of the game's protocol for the load generator: each room keeps a version
and whose turn it is; an ``act`` from that seat bumps the version and sends every connection
in the room one ``state`` message padded to the size the act names in ``pad`` (the load
generator passes on the size of the game server's views). No rules, no store, no
per-seat views: what is left is the cost of WebSockets, JSON and fan-out in Python.

The padding is game text (``--padding game``, the default): the views of a few games the engine
plays at random when the server starts, the room's ``version``-th view for each message, so that
deflate has the work a real state gives it. ``--padding x`` pads with one letter repeated,
which deflate makes nearly free and so flatters the floor: with this server's deflate
settings (websockets' own: context takeover, 12-bit window) that took 13.5 µs a message
against 18 µs for game text, and the whole floor 0.30-0.32 ms an action against 0.35-0.36 at
500 actions/s (``docs/performance.md``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import ServerConnection, broadcast, serve

# The project, not this folder's engine.py, is what ``import engine`` must find.
sys.path[0] = str(Path(__file__).resolve().parent.parent)

import engine  # noqa: E402
from app import collector  # noqa: E402

GAMES = 4
"""Games played at start-up for the padding: each room takes one, by its code."""


@dataclass
class Room:
    seats: int
    version: int = 1
    to_act: int = 0
    game: int = 0
    """Which of the start-up games' views pad its states."""
    pad: int = 2000
    """Bytes of padding per state: what the last ``act`` asked for (the game server's size)."""
    connections: set[ServerConnection] = field(default_factory=set)


def game_views(players: int, seed: int) -> list[str]:
    """The views of one game played at random by the engine, each as the seat to act sees it,
    as JSON text (its quotes turned to apostrophes, so that the padding needs no escaping)."""
    choose = random.Random(seed)
    state = engine.new_game({"players": players, "seed": seed})
    views = []
    while not engine.is_over(state):
        view = engine.view_for(state, engine.to_act(state)[0])
        views.append(json.dumps(view, separators=(",", ":")).replace('"', "'"))
        state = engine.apply_action(state, choose.choice(engine.legal_actions(state)))
    return views


class FanOut:
    def __init__(self, *, padding: str) -> None:
        self._rooms: dict[str, Room] = {}
        self._padding = padding
        self._views: dict[int, list[list[str]]] = {}

    def _pad(self, room: Room) -> str:
        """``room.pad`` characters: the room's game's view at its version, and the views after
        it if that one is shorter; or one letter repeated (``--padding x``)."""
        if self._padding == "x":
            return "x" * room.pad
        games = self._views.get(room.seats)
        if games is None:
            games = self._views[room.seats] = [game_views(room.seats, s) for s in range(GAMES)]
        views = games[room.game]
        text = views[room.version % len(views)]
        following = room.version + 1
        while len(text) < room.pad:
            text += views[following % len(views)]
            following += 1
        return text[: room.pad]

    def _state(self, room: Room) -> str:
        view = {"to_act": [room.to_act], "over": False, "pad": self._pad(room)}
        legal = [{"type": "end_turn"}]
        return json.dumps({"type": "state", "version": room.version, "view": view, "legal": legal})

    async def handle(self, connection: ServerConnection) -> None:
        assert connection.request is not None
        url = urlsplit(connection.request.path)
        code = url.path.rsplit("/", 1)[-1]
        query = parse_qs(url.query)
        seat = int(query["seat"][0])
        room = self._rooms.get(code)
        if room is None:
            seats = int(query["seats"][0])
            room = self._rooms[code] = Room(seats=seats, game=zlib.crc32(code.encode()) % GAMES)
        room.connections.add(connection)
        try:
            await connection.send(self._state(room))
            async for raw in connection:
                message = json.loads(raw)
                if message.get("type") == "act" and seat == room.to_act:
                    room.pad = max(0, int(message.get("pad", room.pad)) - 100)
                    room.version += 1
                    room.to_act = (room.to_act + 1) % room.seats
                    broadcast(room.connections, self._state(room))
        finally:
            room.connections.discard(connection)


async def run(port: int, *, compression: bool, padding: str) -> None:
    fan_out = FanOut(padding=padding)
    clock = asyncio.create_task(collector.collect_on_a_clock())  # as the game server's
    async with serve(
        fan_out.handle,
        "127.0.0.1",
        port,
        max_size=2**16,
        compression="deflate" if compression else None,
    ) as server:
        print("serving", flush=True)
        try:
            await server.serve_forever()
        finally:
            clock.cancel()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument(
        "--compression", action="store_true", help="per-message deflate, as the game server can"
    )
    parser.add_argument(
        "--padding",
        choices=("game", "x"),
        default="game",
        help="pad states with game text (default) or with one letter repeated",
    )
    args = parser.parse_args()
    # The game server's collector settings (and its clock, in ``run``): with the defaults,
    # full collections over 4,000 connections stalled this server for up to half a second.
    collector.tune()
    asyncio.run(run(args.port, compression=args.compression, padding=args.padding))


if __name__ == "__main__":
    main()
