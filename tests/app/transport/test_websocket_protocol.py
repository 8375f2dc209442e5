"""uvicorn with ``SendNowProtocol``: ``send_now`` writes frames at once while the connection is
open and its transport takes more, and refuses (sending nothing) otherwise."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import uvicorn
from websockets.asyncio.client import connect

from app.transport.websocket import SendNowProtocol, send_now_of
from tests.app.live import free_port


@contextlib.asynccontextmanager
async def _serving(app: Any) -> AsyncIterator[int]:
    """uvicorn with ``SendNowProtocol`` serving the ASGI ``app`` on a free port."""
    port = free_port()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, ws=SendNowProtocol, lifespan="off", log_level="warning"
    )
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            assert not serving.done(), "the server did not start"
            await asyncio.sleep(0.01)
        yield port
    finally:
        server.should_exit = True
        await serving


async def test_send_now_writes_frames_while_open_and_refuses_when_paused_or_closed() -> None:
    results: dict[str, Any] = {}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        assert scope["type"] == "websocket"
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        send_now = send_now_of(scope)
        assert send_now is not None, "the protocol offers send_now"
        results["open"] = send_now("one")
        protocol = send_now.__self__  # type: ignore[attr-defined]
        protocol.pause_writing()  # as the transport does over its high-water mark
        results["paused"] = send_now("never sent")
        protocol.resume_writing()
        results["resumed"] = send_now("two")
        await send({"type": "websocket.send", "text": "three"})  # the ASGI way still works
        results["received"] = (await receive())["text"]
        await send({"type": "websocket.close", "code": 1000})
        results["closed"] = send_now("too late")

    async with _serving(app) as port, connect(f"ws://127.0.0.1:{port}/") as client:
        received = [await asyncio.wait_for(client.recv(), 5) for _ in range(3)]
        await client.send("bye")
        await asyncio.wait_for(client.wait_closed(), 5)
    assert received == ["one", "two", "three"]
    assert results == {
        "open": True,
        "paused": False,
        "resumed": True,
        "received": "bye",
        "closed": False,
    }


async def test_send_now_refuses_once_the_client_has_closed() -> None:
    results: dict[str, Any] = {}
    done = asyncio.Event()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        send_now = send_now_of(scope)
        assert send_now is not None
        results["disconnect"] = (await receive())["type"]
        results["after"] = send_now("too late")
        done.set()

    async with _serving(app) as port:
        async with connect(f"ws://127.0.0.1:{port}/") as client:
            await client.close()
        await asyncio.wait_for(done.wait(), 5)
    assert results == {"disconnect": "websocket.disconnect", "after": False}


def test_other_servers_offer_no_send_now() -> None:
    assert send_now_of({"type": "websocket", "extensions": {"websocket.http.response": {}}}) is None
    assert send_now_of({"type": "websocket"}) is None
