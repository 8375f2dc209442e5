"""Issue 22, probe 7: readers that never read, and request heads sent a byte at a time."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from pathlib import Path

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from tests.app.live import WAIT, Client
from tests.app.processes import ServerProcess
from tests.security.conftest import Serve
from tests.security.ws_clients import duel, seated

SEND_BUFFER = 16384


def send_queue_bytes(server_port: int, client_port: int) -> int | None:
    """The bytes the server's socket to this client holds unsent (``/proc/net/tcp``); None once
    the server has closed it."""
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        local, remote = fields[1].split(":")[1], fields[2].split(":")[1]
        if (int(local, 16), int(remote, 16)) == (server_port, client_port):
            return int(fields[4].split(":")[0], 16)
    return None


async def logged(server: ServerProcess, text: str) -> None:
    """Wait for ``text`` in the server's log (it writes that line when it acts)."""
    deadline = time.monotonic() + WAIT
    while text not in server.logged:
        assert time.monotonic() < deadline, f"the server never logged {text!r}"
        await asyncio.sleep(0.05)


async def test_a_reader_that_never_reads_is_bounded_then_closed(serve: Serve) -> None:
    server = serve(
        ws_send_buffer_bytes=str(SEND_BUFFER),
        ws_unwritable_seconds="2",
        ws_queue_size="100000",
        ws_burst="100000",
        ws_messages_per_address_burst="100000",
        ws_messages_per_address_per_second="100000",
        chat_per_seat_per_minute="100000",
        chat_per_room_per_minute="100000",
    )
    code, tokens = await duel(server.endpoint)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", server.endpoint.port))
    client_port = sock.getsockname()[1]
    # A queue of one message: the client stops reading from its socket at once.
    stalled = Client(
        await connect(f"ws://127.0.0.1:{server.endpoint.port}/ws/{code}", sock=sock, max_queue=1)
    )
    await stalled.send({"type": "hello"})
    talker = await seated(server.endpoint, code, tokens[0])
    line = {"type": "chat", "text": "x" * 300}
    most = 0
    for _ in range(400):
        for _ in range(10):
            await talker.send(line)
        await talker.send({"type": "ping"})
        await talker.wait_for("pong")
        queued = send_queue_bytes(server.endpoint.port, client_port)
        if queued is not None:
            most = max(most, queued)
        # The server may close the socket before its log line about it has been read here.
        if queued is None or "unwritable" in server.logged:
            break
    # Linux doubles SO_SNDBUF for its own bookkeeping; without it this grew past a megabyte.
    assert 0 < most <= 2 * SEND_BUFFER + 4096, most
    await logged(server, "connection unwritable for 2 s; closing")
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(WAIT):
            try:
                while True:
                    await stalled.ws.recv()
            except ConnectionClosed as closed:
                assert closed.rcvd is not None and closed.rcvd.code == 1013
                return
    raise AssertionError("the stalled connection was not closed")


async def test_request_heads_sent_a_byte_at_a_time_are_cut_off(serve: Serve) -> None:
    server = serve(http_header_seconds="1")
    loop = asyncio.get_running_loop()
    trickles = []
    for _ in range(20):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.endpoint.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        trickles.append((reader, writer))
    silent = await asyncio.open_connection("127.0.0.1", server.endpoint.port)
    started = loop.time()

    async def trickle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> float:
        """Send a header byte every 0.1 s until the server hangs up; how long that took."""
        with contextlib.suppress(ConnectionError):
            while True:
                writer.write(b"X")
                await writer.drain()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.1):
                        if not await reader.read(1):
                            break
        return loop.time() - started

    lasted = await asyncio.wait_for(
        asyncio.gather(*(trickle(*pair) for pair in trickles)), timeout=WAIT
    )
    assert max(lasted) < 5.0
    assert await asyncio.wait_for(silent[0].read(1), timeout=WAIT) == b""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.endpoint.port)
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (await asyncio.wait_for(reader.readline(), WAIT)).startswith(b"HTTP/1.1 200")
    for _, opened in [*trickles, silent, (reader, writer)]:
        opened.close()
