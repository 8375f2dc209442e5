"""Issue 30, point 8: request bodies sent a byte at a time, and many connections from one
address, on real server processes with no proxy in front."""

from __future__ import annotations

import asyncio
import contextlib
import json

from tests.app.live import WAIT
from tests.app.processes import ServerProcess
from tests.security.conftest import Serve
from tests.security.test_ws_slow_peers import logged
from tests.security.ws_clients import duel, raw_client

HEAD = (
    b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Content-Length: 4096\r\n\r\n"
)
NOT_A_PROXY = "192.0.2.1"
"""A proxy address that is not loopback, so that the tests' own connections are counted."""

HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"

Connection = tuple[asyncio.StreamReader, asyncio.StreamWriter]


async def answer(server: ServerProcess, request: bytes) -> tuple[int, bytes]:
    """A request that closes its own connection: the status and all the server sent."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.endpoint.port)
    try:
        writer.write(request)
        whole = await asyncio.wait_for(reader.read(), WAIT)  # to the end: the server closes
        return int(whole.split(b" ", 2)[1]), whole
    finally:
        writer.close()


async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bytes:
    """Send a body byte every 0.1 s until the server hangs up; what it answered."""
    received = b""
    with contextlib.suppress(ConnectionError):
        while True:
            writer.write(b"x")
            await writer.drain()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.1):
                    chunk = await reader.read(4096)
                    if not chunk:
                        return received
                    received += chunk
    return received


async def test_request_bodies_sent_a_byte_at_a_time_are_answered_408_and_closed(
    serve: Serve,
) -> None:
    server = serve(http_body_seconds="1")
    trickles: list[Connection] = []
    for _ in range(20):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.endpoint.port)
        writer.write(HEAD)
        trickles.append((reader, writer))
    # Without a deadline these would trickle for ever: the wait fails the test.
    answers = await asyncio.wait_for(
        asyncio.gather(*(trickle(*pair) for pair in trickles)), timeout=WAIT
    )
    for whole in answers:  # read before the close: not lost to a reset
        assert whole.startswith(b"HTTP/1.1 408 "), whole
        assert json.loads(whole.split(b"\r\n\r\n", 1)[1])["code"] == "body_too_slow"
        assert b"\r\nx-frame-options: DENY\r\n" in whole, "the security headers, as on every answer"
    # The server's log is read in a thread: the line may come a moment after the answer.
    await logged(server, "request body not complete in 1 s")
    status, _ = await answer(server, HEALTHZ)
    assert status == 200
    for _, writer in trickles:
        writer.close()


async def test_a_body_that_arrives_whole_in_time_is_served(serve: Serve) -> None:
    server = serve(http_body_seconds="1")
    body = json.dumps({"name": "Ann", "seats": 2}).encode()
    request = (
        b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Connection: close\r\nContent-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    status, whole = await answer(server, request)
    assert status == 201, whole


async def test_connections_past_the_cap_from_one_address_are_refused_429(serve: Serve) -> None:
    server = serve(
        http_connections_per_address="4",
        http_header_seconds="60",
        forwarded_allow_ips=NOT_A_PROXY,
    )
    held = [await asyncio.open_connection("127.0.0.1", server.endpoint.port) for _ in range(4)]
    status, whole = await answer(server, HEALTHZ)
    assert status == 429, whole
    assert json.loads(whole.split(b"\r\n\r\n", 1)[1])["code"] == "too_many_connections"
    assert b"\r\nx-frame-options: DENY\r\n" in whole, "the security headers, as on every answer"
    # One held connection closes: the next request is served (once the server has seen it go).
    held.pop()[1].close()
    for _ in range(200):
        status, whole = await answer(server, HEALTHZ)
        if status == 200:
            break
        await asyncio.sleep(0.05)
    assert status == 200, whole
    for _, writer in held:
        writer.close()


async def test_upgraded_websockets_and_trusted_proxies_are_not_counted(serve: Serve) -> None:
    server = serve(http_connections_per_address="2", forwarded_allow_ips=NOT_A_PROXY)
    code, _ = await duel(server.endpoint)
    sockets = [await raw_client(server.endpoint, f"/ws/{code}") for _ in range(4)]
    status, whole = await answer(server, HEALTHZ)
    assert status == 200, whole
    for socket in sockets:
        await socket.close()
    proxied = serve(http_connections_per_address="2")  # loopback is the trusted proxy
    held = [await asyncio.open_connection("127.0.0.1", proxied.endpoint.port) for _ in range(4)]
    status, whole = await answer(proxied, HEALTHZ)
    assert status == 200, whole
    for _, writer in held:
        writer.close()
