"""uvicorn with ``SendNowProtocol``: ``send_now`` writes frames at once while the connection is
open and its transport takes more, and refuses (sending nothing) otherwise."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import uvicorn
from websockets.asyncio.client import connect

from app.settings import Settings
from app.transport.websocket import SendNowProtocol, send_now_of
from tests.app.live import free_port


@contextlib.asynccontextmanager
async def _serving(app: Any, **options: Any) -> AsyncIterator[int]:
    """uvicorn with ``SendNowProtocol`` serving the ASGI ``app`` on a free port."""
    port = free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        ws=SendNowProtocol,
        lifespan="off",
        log_level="warning",
        **options,
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


async def test_only_a_client_silent_for_the_whole_interval_is_pinged() -> None:
    """A client that sent anything within the keepalive interval is not pinged (what it sent
    showed it is there); one that sent nothing is pinged every interval.

    Each ping is checked against the silence before it, as the server saw it: on a busy
    machine the talking client's sends may come late, and a ping after such a gap is the
    rule kept, not broken. Without the rule (uvicorn's own keepalive), the talking client is
    pinged every interval, a few hundredths of a second after it spoke."""
    interval = 0.2
    silences: dict[str, list[float]] = {"/talks": [], "/silent": []}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        send_now = send_now_of(scope)
        assert send_now is not None
        protocol = send_now.__self__  # type: ignore[attr-defined]
        send_ping = protocol.conn.send_ping

        def counted(data: bytes) -> None:
            silences[scope["path"]].append(protocol.loop.time() - protocol._heard_at)
            send_ping(data)

        protocol.conn.send_ping = counted
        while (await receive())["type"] != "websocket.disconnect":
            pass

    async def talks(port: int) -> None:
        async with connect(f"ws://127.0.0.1:{port}/talks", ping_interval=None) as client:
            for _ in range(30):
                await client.send("here")
                await asyncio.sleep(interval / 4)

    async def silent(port: int) -> None:
        async with connect(f"ws://127.0.0.1:{port}/silent", ping_interval=None):
            await asyncio.sleep(1.5)

    async with _serving(app, ws_ping_interval=interval, ws_ping_timeout=5) as port:
        await asyncio.gather(talks(port), silent(port))
    # A ping is sent once the client has been silent for the interval, less a twentieth.
    assert all(silence >= interval * 0.9 for silence in silences["/talks"]), silences
    assert len(silences["/silent"]) >= 3  # one every 0.2 s of 1.5 s: 7, fewer if the loop is late


async def test_a_silent_client_that_does_not_answer_the_ping_is_closed() -> None:
    """The keepalive still ends a connection whose client has gone: silent for the interval,
    then no pong within the timeout."""

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await receive()  # websocket.connect
        await send({"type": "websocket.accept"})
        while (await receive())["type"] != "websocket.disconnect":
            pass

    async with _serving(app, ws_ping_interval=0.2, ws_ping_timeout=0.2) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 101")
        # Never answered: a ping (opcode 9), then the close (opcode 8, 1011), then the end.
        frames = await asyncio.wait_for(reader.read(), 5)
        writer.close()
    assert frames[0] == 0x89
    assert b"\x88" in frames and b"keepalive ping timeout" in frames


def test_the_browser_is_heard_from_before_the_server_would_ping_it() -> None:
    """The browser's ``ping`` comes more often than the silence after which the server pings:
    a live tab is never pinged."""
    script = (Path(__file__).parents[3] / "static" / "js" / "socket.js").read_text()
    found = re.search(r"const PING_MS = (\d+);", script)
    assert found is not None, "static/js/socket.js no longer names PING_MS"
    assert int(found[1]) / 1000 < Settings().ws_ping_after_seconds
