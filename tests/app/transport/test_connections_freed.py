"""A connection that ends is freed at once by reference counting, with everything it held (its
protocols, its transport, its deflate state): nothing of it waits in a cycle for the garbage
collector. A server's clock freezes what it holds (``app/collector.py``), so a cycle waits for
the hour's full collection, which walks every live connection and stalls every room
meanwhile; 4,000 players coming and going would leave about 50 objects each behind until
then."""

from __future__ import annotations

import asyncio
import gc
import time
from collections import Counter

from websockets.server import ServerProtocol

from app.transport.http import GuardedHttpProtocol
from app.transport.websocket import SendNowProtocol
from app.ws.connection import Connection
from tests.app.conftest import MakeSettings
from tests.app.live import WAIT, bearer, connect_client, create_room, live_server

SERVER_SIDE = (Connection, SendNowProtocol, GuardedHttpProtocol, ServerProtocol)
"""What the server makes for each connection (the clients here are another library's)."""


def server_side() -> Counter[str]:
    """The server's connection objects in memory, by kind: live, or unreachable but not yet
    collected (nothing is collected while the test runs)."""
    return Counter(type(o).__name__ for o in gc.get_objects() if isinstance(o, SERVER_SIDE))


async def test_closed_and_dropped_connections_leave_nothing_for_the_collector(
    make_settings: MakeSettings,
) -> None:
    async with live_server(make_settings()) as live, live.http() as http:
        code, host = await create_room(http, seats=2, spectators=True)
        added = await http.post(
            f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(host)
        )
        assert added.status_code < 300, added.text
        started = await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        assert started.status_code < 300, started.text
        gc.collect()
        gc.disable()
        try:
            before = server_side()
            clients = [await connect_client(live, code, host)]
            clients += [await connect_client(live, code) for _ in range(3)]
            for client in clients:
                await client.wait_for("state")
            opened = server_side()
            assert opened["Connection"] >= before["Connection"] + len(clients), opened
            for client in clients[:2]:
                await client.close()  # the closing handshake
            for client in clients[2:]:
                client.ws.transport.abort()  # gone without a word
            deadline = time.monotonic() + WAIT
            # The server's tasks end the connections in their own time; polled, not told.
            while server_side() - before and time.monotonic() < deadline:  # noqa: ASYNC110
                await asyncio.sleep(0.05)
            left = server_side() - before
            assert not left, f"still in memory after the connections ended: {dict(left)}"
        finally:
            gc.enable()
