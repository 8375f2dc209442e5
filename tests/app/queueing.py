"""A Play now client for tests: it asks for a table and waits for messages, never sleeps."""

from __future__ import annotations

import asyncio
import contextlib
import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.app.live import WAIT, Client, Endpoint


def ask(
    name: str, *, seats: int | str = 2, player_id: str | None = None, **choice: Any
) -> dict[str, Any]:
    """A queue's first message; a fresh guest id unless one is given."""
    return {
        "type": "queue",
        "name": name,
        "player_id": player_id or str(uuid.uuid4()),
        "seats": seats,
        **choice,
    }


@dataclass
class Queued:
    """A player in the queue through one server, with everything they were sent."""

    client: Client
    player_id: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    pinging: asyncio.Task[None] | None = None
    """Sends ``ping`` as often as ``queued`` asked, as a player who is there does."""

    async def matched(self) -> dict[str, Any]:
        return await self.client.wait_for("matched")

    async def send(self, message: dict[str, Any]) -> None:
        await self.client.send(message)

    async def close(self) -> None:
        if self.pinging is not None:
            self.pinging.cancel()
        await self.client.close()


async def queue_up(
    server: Endpoint, name: str, *, ping: bool = True, address: str = "127.0.0.1", **options: Any
) -> Queued:
    """Connect to ``/ws/queue`` from ``address`` (a loopback one), ask for a table and wait
    until the server says it is queued; then answer it (``ping``, now and as often as it
    asks), unless ``ping`` is False (a ghost: it never answers, so it is never matched)."""
    ws = await connect(
        f"ws://127.0.0.1:{server.port}/ws/queue",
        max_size=None,
        open_timeout=WAIT,
        local_addr=(address, 0),
    )
    client = Client(ws)
    message = ask(name, **options)
    await client.send(message)
    queued = await client.wait_for("queued")
    pinging = None
    if ping:
        await client.send({"type": "ping"})
        pinging = asyncio.create_task(_keep_pinging(ws, queued["ping_every"]))
    return Queued(client, message["player_id"], pinging=pinging)


async def _keep_pinging(ws: ClientConnection, every: float) -> None:
    with contextlib.suppress(ConnectionClosed):
        while True:
            await asyncio.sleep(every)
            await ws.send(json.dumps({"type": "ping"}))
