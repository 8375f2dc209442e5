"""A Play now client for tests: it asks for a table and waits for messages, never sleeps."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import connect

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

    async def matched(self) -> dict[str, Any]:
        return await self.client.wait_for("matched")

    async def send(self, message: dict[str, Any]) -> None:
        await self.client.send(message)

    async def close(self) -> None:
        await self.client.close()


async def queue_up(server: Endpoint, name: str, **options: Any) -> Queued:
    """Connect to ``/ws/queue``, ask for a table and wait until the server says it is queued."""
    ws = await connect(f"ws://127.0.0.1:{server.port}/ws/queue", max_size=None, open_timeout=WAIT)
    client = Client(ws)
    message = ask(name, **options)
    await client.send(message)
    await client.wait_for("queued")
    return Queued(client, message["player_id"])
