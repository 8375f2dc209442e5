"""Issue 44's ``unread_answers``: one address's requests take turns in the app.

The attack opens 64 connections from one address and pipelines three requests on each, every
time the server has closed the last batch: without turns, all 64 requests were in the app at
once, each turn of the event loop ran a step of every one of them, and an honest player's move
on another connection waited at each of its own steps. Here a server in this process holds each
request in the app until the test lets it go, and the test counts how many are in at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import Any

import uvicorn

from app.transport.http import GuardedHttpProtocol
from tests.app.transport.test_unread_answers import BODY, NOT_A_PROXY, REQUEST, Served, running

CONNECTIONS = 8
PIPELINED = 3
TURNS = 2


class Held(Served):
    """The server, and the requests its app holds until ``let_go`` is set."""

    def __init__(self, server: uvicorn.Server, port: int) -> None:
        super().__init__(server, port)
        self.inside = 0
        """Requests in the app now (begun, answer not yet begun)."""
        self.most_inside = 0
        self.let_go = asyncio.Event()

    def waiting(self) -> int:
        """Requests waiting for a turn, all addresses together."""
        protocol = next(iter(self.connections()), None)
        if protocol is None:
            return 0
        return sum(len(turns.waiting) for turns in protocol._turns.values())


@contextlib.asynccontextmanager
async def holding(*, requests_per_address: int | None, big: bool = False) -> AsyncIterator[Held]:
    """uvicorn in this event loop with the guarded protocol; its app holds each request until
    ``let_go``, then answers (4 MB if ``big``, else a few bytes)."""
    protocol = GuardedHttpProtocol.configured(
        head_seconds=60,
        body_seconds=60,
        connections_per_address=None,
        forwarded_allow_ips=NOT_A_PROXY,
        write_seconds=60,
        requests_per_address=requests_per_address,
    )

    async def app(scope: Any, receive: Any, send: Any) -> None:
        assert scope["type"] == "http"
        held.begun += 1
        held.inside += 1
        held.most_inside = max(held.most_inside, held.inside)
        await held.let_go.wait()
        body = BODY if big else b"ok"
        held.inside -= 1
        length = str(len(body)).encode()
        await send(
            {"type": "http.response.start", "status": 200, "headers": [(b"content-length", length)]}
        )
        await send({"type": "http.response.body", "body": body})

    async with running(app, protocol) as (server, port):
        held = Held(server, port)
        try:
            yield held
        finally:
            held.let_go.set()  # the app's held requests end, so the server can stop


async def pipelining(port: int, count: int, requests: int) -> list[socket.socket]:
    """``count`` connections that each send ``requests`` requests at once (pipelined)."""
    loop = asyncio.get_running_loop()
    sockets = []
    for _ in range(count):
        sock = socket.socket()
        sock.setblocking(False)
        await loop.sock_connect(sock, ("127.0.0.1", port))
        await loop.sock_sendall(sock, requests * REQUEST)
        sockets.append(sock)
    return sockets


async def test_one_address_has_at_most_its_turns_of_requests_in_the_app() -> None:
    async with holding(requests_per_address=TURNS) as served:
        sockets = await pipelining(served.port, CONNECTIONS, PIPELINED)
        # uvicorn starts a connection's first request at once and its pipelined ones in turn.
        await served.until(
            lambda: served.waiting() == CONNECTIONS - TURNS, "every first request waiting or in"
        )
        # Without turns, all eight first requests were in the app at once.
        assert served.inside == TURNS
        served.let_go.set()
        await served.until(
            lambda: served.begun == CONNECTIONS * PIPELINED, "every request served, none refused"
        )
        assert served.most_inside == TURNS
        await served.until(lambda: not served.connections()[0]._turns, "the address forgotten")
        for sock in sockets:
            sock.close()


async def test_without_a_bound_every_request_is_in_the_app_at_once() -> None:
    # The count above is the bound's doing: unbounded, the same clients have all eight in.
    async with holding(requests_per_address=None) as served:
        sockets = await pipelining(served.port, CONNECTIONS, PIPELINED)
        await served.until(lambda: served.inside == CONNECTIONS, "every first request in")
        assert served.waiting() == 0
        for sock in sockets:
            sock.close()


async def test_an_answer_waiting_for_its_reader_holds_no_turn() -> None:
    # A 4 MB answer its client never reads waits for 60 s here; the next request of the same
    # address is served meanwhile, on its one turn.
    async with holding(requests_per_address=1, big=True) as served:
        served.let_go.set()
        stalled = await pipelining(served.port, 1, 1)
        await served.until(
            lambda: bool(served.connections()) and served.connections()[0].flow.write_paused,
            "the first answer waiting for its reader",
        )
        _reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
        writer.write(REQUEST)
        await served.until(lambda: served.begun == 2, "the second request in the app")
        writer.close()
        for sock in stalled:
            sock.close()
