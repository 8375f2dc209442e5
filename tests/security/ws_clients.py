"""WebSocket clients for the probes: the tests' own client, and ways to end a connection."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.app.live import WAIT, Client, Endpoint, bearer, connect_client, create_room


async def raw_client(endpoint: Endpoint, path: str, **options: Any) -> Client:
    """A connection to ``path`` that has sent nothing yet."""
    ws = await connect(
        f"ws://127.0.0.1:{endpoint.port}{path}", max_size=None, open_timeout=WAIT, **options
    )
    return Client(ws)


async def closed_with(client: Client) -> tuple[int, list[dict[str, Any]]]:
    """Read until the server closes; its close code and the errors it sent before."""
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            await client.recv()
    received = closed.value.rcvd
    assert received is not None, "closed without a close frame"
    return received.code, [m for m in client.received if m["type"] == "error"]


async def duel(endpoint: Endpoint, **options: Any) -> tuple[str, list[str]]:
    """A started two-person room (spectators let in): its code and the two seats' tokens."""
    options.setdefault("spectators", True)
    async with endpoint.http() as http:
        code, host = await create_room(http, seats=2, **options)
        guest = await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
        assert guest.status_code == 200, guest.text
        started = await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        assert started.status_code == 200, started.text
    return code, [host, guest.json()["token"]]


async def seated(endpoint: Endpoint, code: str, token: str | None) -> Client:
    """A connection that said hello and has its first state."""
    client = await connect_client(endpoint, code, token)
    await client.wait_for("state")
    return client


async def healthz_seconds(endpoint: Endpoint) -> float:
    async with httpx.AsyncClient(base_url=endpoint.base_url, timeout=WAIT) as http:
        response = await http.get("/healthz")
    assert response.status_code == 200
    return response.elapsed.total_seconds()
