"""A bare WebSocket fan-out server: the floor that ``bench/load.py`` compares the game server to.

Speaks just enough of the game's protocol for the load generator: each room keeps a version
and whose turn it is; an ``act`` from that seat bumps the version and sends every connection
in the room one ``state`` message padded to the size the act names in ``pad`` (the load
generator passes on the size of the game server's views). No rules, no store, no
per-seat views: what is left is the cost of WebSockets, JSON and fan-out in Python.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import dataclass, field
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import ServerConnection, broadcast, serve

from app import collector


@dataclass
class Room:
    seats: int
    version: int = 1
    to_act: int = 0
    pad: int = 2000
    """Bytes of padding per state: what the last ``act`` asked for (the game server's size)."""
    connections: set[ServerConnection] = field(default_factory=set)


class FanOut:
    def __init__(self) -> None:
        self._rooms: dict[str, Room] = {}

    def _state(self, room: Room) -> str:
        view = {"to_act": [room.to_act], "over": False, "pad": "x" * room.pad}
        legal = [{"type": "end_turn"}]
        return json.dumps({"type": "state", "version": room.version, "view": view, "legal": legal})

    async def handle(self, connection: ServerConnection) -> None:
        assert connection.request is not None
        url = urlsplit(connection.request.path)
        code = url.path.rsplit("/", 1)[-1]
        query = parse_qs(url.query)
        seat = int(query["seat"][0])
        room = self._rooms.setdefault(code, Room(seats=int(query["seats"][0])))
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


async def run(port: int, *, compression: bool) -> None:
    fan_out = FanOut()
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
    args = parser.parse_args()
    # The game server's collector settings (and its clock, in ``run``): with the defaults,
    # full collections over 4,000 connections stalled this server for up to half a second.
    collector.tune()
    asyncio.run(run(args.port, compression=args.compression))


if __name__ == "__main__":
    main()
