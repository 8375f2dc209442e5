"""uvicorn's HTTP protocol with deadlines for each request and its answer, and caps per address.

uvicorn closes a kept-alive connection that sends nothing between requests, but waits for ever
for a request head that arrives a byte at a time (slowloris: 500 such connections stayed open
for over a minute), and for a body that does (300 connections trickling a 4 KB body were still
open after 40 s); and it takes any number of connections from one address. This protocol

- closes a connection whose request line and headers are not complete ``head_seconds`` after
  it opened, or after its previous request ended;
- answers ``408 body_too_slow`` and closes a connection whose request body is not complete
  ``body_seconds`` after its head;
- answers ``429 too_many_connections`` (and closes) a connection from an address that already
  holds ``connections_per_address`` HTTP connections to this process. A WebSocket stops counting
  once upgraded (``ws_connections_per_address`` caps those); the trusted proxies'
  addresses are not counted, as they carry every client's connections (the proxy caps them);
- writes each answer 64 KiB at a time, the next once the transport has taken the last
  (uvicorn hands a body to the transport whole: a 4 MB replay to a client that never read was
  4 MB held for as long as the connection lasted; 320 such connections took 1.2 GB);
- gives each connection a small kernel send buffer (``send_buffer_bytes``), so that what a
  client does not read waits in the process, where the cap below counts it, not in the
  kernel (which took up to 4 MB a connection);
- drops a connection whose answer is not written whole (every byte handed to the kernel)
  ``write_seconds`` after it began;
- drops a connection whose address's connections hold more than ``buffered_bytes_per_address``
  bytes of answers unsent, once its write has been made (the trusted proxies' again excepted);
- lets one address have at most ``requests_per_address`` requests in the app at once (from
  the request's start until its answer's body is handed over); the others wait their turn, in
  the order they came (the trusted proxies' again excepted). A client that opens many
  connections at once and sends on all of them (64, each with 3 requests pipelined, every
  time the server closed the last batch) otherwise had every one of them in the app at once:
  each turn of the event loop then ran a step of each, 2-5 ms of work a turn for 50-100 ms,
  and a move on another connection waited a turn at each of its steps;
- stops writing an answer whose connection the transport has already closed (the client reset
  it): the write would raise, and the error's report, a traceback, cost more than the answer.

A dropped connection is reset, not closed: the kernel lets go of what it held of the answer.

It stands in for the request-header and -body timeouts, the write timeout and the per-address
connection and buffer limits uvicorn does not offer. What it relies on in ``HttpToolsProtocol``
is checked by ``tests/app/transport/test_library_seams.py``; what it does, on a real server
process, by ``tests/security/test_http_slow_peers.py``, and on one in the tests' own process
(counting what its connections hold) by ``tests/app/transport/test_unread_answers.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
import struct
from collections import Counter, deque
from functools import partial
from typing import Any

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.api.headers import SECURITY_HEADERS

logger = logging.getLogger(__name__)

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

LINGER_SECONDS = 2.0
"""How long a connection refused for a slow body is still read (and what it sends dropped)
after its 408, so that the client gets the answer rather than a reset."""

RESET = struct.pack("ii", 1, 0)
"""``SO_LINGER`` on, for no time: closing the socket resets the connection."""

CHUNK_BYTES = 65536
"""The most of an answer's body handed to the transport at once: as much again as the
transport's high-water mark, above which the next part waits."""


def trusted_networks(forwarded_allow_ips: str) -> list[Network] | None:
    """The proxies' networks in uvicorn's ``forwarded_allow_ips`` (addresses or networks,
    comma-separated); None for ``*`` (every address is a proxy). Names that are not addresses
    (a Unix socket's path) are left out: their clients have no address to count."""
    networks: list[Network] = []
    for item in (part.strip() for part in forwarded_allow_ips.split(",")):
        if item == "*":
            return None
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            continue
    return networks


_SECURITY = SECURITY_HEADERS.headers


def _refusal(code: str, detail: str) -> tuple[list[tuple[bytes, bytes]], bytes]:
    """The headers and body of an answer that ends the connection: the app's ``{code,
    detail}`` with the security headers every answer carries (``app/api/headers.py``)."""
    body = orjson.dumps({"code": code, "detail": detail})
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        *((name.lower().encode(), value.encode()) for name, value in _SECURITY.items()),
    ]
    return headers, body


_TOO_MANY = _refusal(
    "too_many_connections", "Too many connections from your address: close some and try again."
)


async def _too_many_connections(scope: Scope, receive: Receive, send: Send) -> None:
    """The app a connection over its address's cap is served: 429 to its request, then closed
    (``connection: close``)."""
    headers, body = _TOO_MANY
    await send({"type": "http.response.start", "status": 429, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class GuardedHttpProtocol(HttpToolsProtocol):
    head_seconds: float = 10.0
    """How long a request head may take to arrive whole."""
    body_seconds: float = 10.0
    """How long a request body may take to arrive whole, once its head has."""
    connections_per_address: int | None = None
    """HTTP connections one address may hold open to this process; None: any number."""
    trusted: list[Network] | None = []
    """Proxies' networks, whose connections are not counted (None: every address)."""
    _open: Counter[str] = Counter()
    """Connections counted per address, shared by every connection of one configured class."""
    write_seconds: float | None = None
    """How long an answer may take to be written whole once begun; None: for ever."""
    buffered_bytes_per_address: int | None = None
    """Bytes of answers one address's connections may hold unsent; None: any number."""
    send_buffer_bytes: int | None = None
    """``SO_SNDBUF`` of each connection (None: the kernel's own, which grows to megabytes)."""
    _writers: dict[str, set[GuardedHttpProtocol]] = {}
    """Each address's connections whose unsent bytes count, for ``buffered_bytes_per_address``."""
    requests_per_address: int | None = None
    """Requests of one address in the app at once; None: any number."""
    _turns: dict[str, _Turns] = {}
    """Each address's requests in the app and those waiting, for ``requests_per_address``."""

    @classmethod
    def configured(
        cls,
        *,
        head_seconds: float,
        body_seconds: float,
        connections_per_address: int | None,
        forwarded_allow_ips: str,
        write_seconds: float | None = None,
        buffered_bytes_per_address: int | None = None,
        send_buffer_bytes: int | None = None,
        requests_per_address: int | None = None,
    ) -> type[GuardedHttpProtocol]:
        """This protocol with these bounds (uvicorn makes each connection's protocol from a
        class, so the bounds, and the count they keep, are the class's)."""
        bounds: dict[str, object] = {
            "head_seconds": head_seconds,
            "body_seconds": body_seconds,
            "connections_per_address": connections_per_address,
            "trusted": trusted_networks(forwarded_allow_ips),
            "_open": Counter(),
            "write_seconds": write_seconds,
            "buffered_bytes_per_address": buffered_bytes_per_address,
            "send_buffer_bytes": send_buffer_bytes,
            "_writers": {},
            "requests_per_address": requests_per_address,
            "_turns": {},
        }
        return type(cls.__name__, (cls,), bounds)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_deadline: asyncio.TimerHandle | None = None
        self._body_deadline: asyncio.TimerHandle | None = None
        self._counted: str | None = None
        self._lingering = False
        self._write_deadline: asyncio.TimerHandle | None = None
        self._writing: Any = None
        """The request cycle whose answer the write deadline times (uvicorn's)."""
        self._writer_of: str | None = None
        self._app: ASGIApp | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if self.send_buffer_bytes and sock is not None:
            # A WebSocket's protocol sets its own once the connection is upgraded.
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.send_buffer_bytes)
        self._count_address()
        self._count_writer()
        # Every answer goes through ``_send``, which paces and times its writes.
        self._app = self.app
        self.app = self._answer
        self._await_head()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_head()

    def on_headers_complete(self) -> None:
        self._head_arrived()
        cycle = self.cycle
        super().on_headers_complete()
        if self.cycle is not cycle:  # a request, not an upgrade: its body is to come
            self._body_deadline = self.loop.call_later(self.body_seconds, self._body_too_slow)

    def on_message_complete(self) -> None:
        self._body_arrived()
        super().on_message_complete()

    def handle_websocket_upgrade(self) -> None:
        self._uncount_address()  # the WebSocket's own cap counts it from now on
        self._let_go()
        super().handle_websocket_upgrade()
        # The transport speaks to the WebSocket's protocol now, and this one never hears of
        # the connection again: uvicorn lets go of its parser (which holds this protocol's
        # callbacks, a cycle) only in ``connection_lost``.
        self.parser = None  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_arrived()
        self._body_arrived()
        self._uncount_address()
        self._let_go()
        super().connection_lost(exc)

    def _let_go(self) -> None:
        """Forget what ties this protocol to itself (``app`` is its own bound method) and to
        the other connections of its address, and the write deadline."""
        self._answer_written()
        if self._app is not None:
            self.app = self._app
            self._app = None
        if self._writer_of is not None:
            writers = self._writers[self._writer_of]
            writers.discard(self)
            if not writers:
                del self._writers[self._writer_of]
            self._writer_of = None

    def _count_writer(self) -> None:
        if self.buffered_bytes_per_address is None or self.client is None:
            return
        address = self.client[0]
        if not self._is_trusted(address):
            self._writers.setdefault(address, set()).add(self)
            self._writer_of = address

    async def _answer(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self._app is not None
        app = self._app
        address = self._turn_address()
        if address is None:
            await app(scope, receive, partial(self._send, send, None))
            return
        turns = self._turns.get(address)
        if turns is None:
            turns = self._turns[address] = _Turns()
        await turns.take(self.requests_per_address or 1)
        turn = _Turn(self._turns, address, turns)
        try:
            await app(scope, receive, partial(self._send, send, turn))
        finally:
            turn.give_back()

    def _turn_address(self) -> str | None:
        """The address whose turns this connection's requests take; None if not counted."""
        if self.requests_per_address is None or self.client is None:
            return None
        address = self.client[0]
        return None if self._is_trusted(address) else address

    async def _send(self, send: Send, turn: _Turn | None, message: Message) -> None:
        """uvicorn's ``send``, with the answer's write deadline started with its head, and its
        body written a part at a time, each within the address's buffer cap; the request's turn
        (if it took one) given back once its body is handed over."""
        if message["type"] == "http.response.start":
            self._answer_begun()
        if message["type"] != "http.response.body":
            await send(message)
            return
        if turn is not None:
            # Writing the body takes little work a turn of the loop (a part, then a turn for
            # the others) and may wait long for a slow reader: it holds no turn.
            turn.give_back()
        body: bytes = message.get("body", b"")
        more_body: bool = message.get("more_body", False)
        for offset in range(0, max(len(body), 1), CHUNK_BYTES):
            part = body[offset : offset + CHUNK_BYTES]
            last = offset + CHUNK_BYTES >= len(body)
            if self.flow.write_paused:
                # uvicorn's ``send`` waits so too; it is here so that the part below is the
                # only one this connection holds beyond the transport's high-water mark.
                await self.flow.drain()
            if self.transport.is_closing() and not self.cycle.response_complete:
                # The client reset the connection (uvicorn hears of it a turn later): as when it
                # left, the answer is dropped, not written to a closed transport.
                self.cycle.disconnected = True
                return
            await send(
                {"type": "http.response.body", "body": part, "more_body": more_body or not last}
            )
            if self._over_buffer_cap():
                self._drop("its address holds too many unsent answer bytes")
                return
            if not last:
                # A part the kernel took at once does not suspend ``send``: without a turn
                # of the loop here, a 4 MB answer was 64 writes in one step, and every other
                # connection's move waited for them.
                await asyncio.sleep(0)
        if not more_body and self.transport.get_write_buffer_size() == 0:
            self._answer_written()

    def _over_buffer_cap(self) -> bool:
        if self._writer_of is None or self.buffered_bytes_per_address is None:
            return False
        held = sum(
            writer.transport.get_write_buffer_size() for writer in self._writers[self._writer_of]
        )
        return held > self.buffered_bytes_per_address

    def _answer_begun(self) -> None:
        self._answer_written()
        if self.write_seconds is not None:
            self._writing = self.cycle
            self._write_deadline = self.loop.call_later(self.write_seconds, self._write_too_slow)

    def _answer_written(self) -> None:
        if self._write_deadline is not None:
            self._write_deadline.cancel()
            self._write_deadline = None
        self._writing = None

    def _write_too_slow(self) -> None:
        self._write_deadline = None
        cycle, self._writing = self._writing, None
        written = cycle is None or cycle.response_complete
        if written and self.transport.get_write_buffer_size() == 0:
            return
        self._drop(f"its answer was not written whole in {self.write_seconds:g} s")

    def _drop(self, why: str) -> None:
        """Close the connection now, with the bytes it still held: the app, if it is still
        answering, hears that the client left (``http.disconnect``) and its sends are dropped."""
        if self.transport.is_closing() and self.transport.get_write_buffer_size() == 0:
            return
        logger.info("dropping an HTTP connection: %s", why)
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            cycle.disconnected = True
            cycle.message_event.set()
        sock = self.transport.get_extra_info("socket")
        if sock is not None:
            # A reset, not a close: the kernel would otherwise go on holding (and trying to
            # send) what it had taken of the answer, up to megabytes a connection.
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, RESET)
        self.transport.abort()

    def _count_address(self) -> None:
        if self.connections_per_address is None or self.client is None:
            return
        address = self.client[0]
        if self._is_trusted(address):
            return
        if self._open[address] >= self.connections_per_address:
            logger.info("too many HTTP connections from one address; refusing one")
            self.app = _too_many_connections
            return
        self._open[address] += 1
        self._counted = address

    def _uncount_address(self) -> None:
        if self._counted is not None:
            self._open[self._counted] -= 1
            if self._open[self._counted] <= 0:
                del self._open[self._counted]
            self._counted = None

    def _is_trusted(self, address: str) -> bool:
        if self.trusted is None:
            return True
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.trusted)

    def _await_head(self) -> None:
        self._head_arrived()
        self._head_deadline = self.loop.call_later(self.head_seconds, self._head_too_slow)

    def _head_arrived(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _body_arrived(self) -> None:
        if self._body_deadline is not None:
            self._body_deadline.cancel()
            self._body_deadline = None

    def _head_too_slow(self) -> None:
        self._head_deadline = None
        if not self.transport.is_closing():
            logger.info("request head not complete in %g s; closing", self.head_seconds)
            self.transport.close()

    def _body_too_slow(self) -> None:
        """Answer 408 unless the app has begun its own answer, then close. The app, waiting
        for the rest of the body, hears that the client left (``http.disconnect``)."""
        self._body_deadline = None
        if self.transport.is_closing():
            return
        logger.info("request body not complete in %g s; closing", self.body_seconds)
        # As when the client leaves: the app's next ``receive`` says so, its ``send`` is dropped.
        self.cycle.disconnected = True
        self.cycle.message_event.set()
        if self.cycle.response_started or not self.transport.can_write_eof():
            self.transport.close()
            return
        detail = f"A request body must arrive whole within {self.body_seconds:g} s."
        headers, body = _refusal("body_too_slow", detail)
        head = b"".join(name + b": " + value + b"\r\n" for name, value in headers)
        self.transport.write(b"HTTP/1.1 408 Request Timeout\r\n" + head + b"\r\n" + body)
        # A lingering close, as nginx's: closed with the client's bytes still unread, the socket
        # would be reset, and the reset would take the 408 with it. Say no more (FIN), drop what
        # still comes, and close a moment later.
        self.transport.write_eof()
        self._lingering = True
        self.loop.call_later(LINGER_SECONDS, self.transport.close)

    def data_received(self, data: bytes) -> None:
        if not self._lingering:
            super().data_received(data)


class _Turns:
    """One address's requests in the app (``busy``) and those waiting for a turn, in order."""

    __slots__ = ("busy", "waiting")

    def __init__(self) -> None:
        self.busy = 0
        self.waiting: deque[asyncio.Future[None]] = deque()

    async def take(self, most: int) -> None:
        """Wait until fewer than ``most`` of the address's requests are in the app; count this
        one in."""
        if self.busy < most and not self.waiting:
            self.busy += 1
            return
        waiter = asyncio.get_running_loop().create_future()
        self.waiting.append(waiter)
        try:
            await waiter  # given the turn of a request that ended: ``busy`` already counts it
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.give_back()  # handed a turn, then cancelled: pass it on
            else:
                with contextlib.suppress(ValueError):
                    self.waiting.remove(waiter)
            raise

    def give_back(self) -> None:
        """End one request's turn: hand it to the first request still waiting, if any."""
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        self.busy -= 1


class _Turn:
    """One request's turn, given back once (when its body is handed over, or it ends); the
    address is forgotten when no request of it is in the app or waiting."""

    __slots__ = ("_address", "_all", "_turns")

    def __init__(self, all_turns: dict[str, _Turns], address: str, turns: _Turns) -> None:
        self._all: dict[str, _Turns] | None = all_turns
        self._address = address
        self._turns = turns

    def give_back(self) -> None:
        if self._all is None:
            return
        self._turns.give_back()
        if self._turns.busy == 0 and not self._turns.waiting:
            self._all.pop(self._address, None)
        self._all = None
