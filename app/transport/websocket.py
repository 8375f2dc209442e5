"""uvicorn's WebSocket protocol with one ASGI extension: send a text frame now, without a task.

Every move sends each connection in the room its own ``state``. Through ASGI that is an
``await`` per message, so each connection needs a task of its own to wait in, and the
message travels queue → task → Starlette → uvicorn before its frame is written: a third
of the cost of sending it. The extension ``cash_stash.send_now`` writes the frame straight
to the transport when nothing stands in the way, and says so; otherwise the caller falls
back to the ASGI ``send`` (which waits while the transport is over its high-water mark).
Under any other server the extension is absent and every message takes the ASGI path.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

from app.transport.deflate import SharedCompression, SharedDeflate, SharedDeflateFactory
from app.transport.lean import LeanEvent, LeanQueue

SEND_NOW = "cash_stash.send_now"
"""The ASGI scope extension: ``{"send": callable(text) -> bool}``."""

SHARED_COMPRESSION = "cash_stash.shared_compression"
"""The key, in the state the application's lifespan hands its server, of the process's
``SharedCompression`` (its runtime's): every connection's frames are compressed by it, the
texts its snapshots joined piece by piece (``app/transport/deflate.py``)."""

Text = str | bytes
"""A text frame's content: a string, or its UTF-8 encoding (what a frame carries, so a text
rendered once for many connections is not encoded again for each)."""

SendNow = Callable[[Text], bool]

CLOSE_TRY_AGAIN = 1013

logger = logging.getLogger(__name__)


class SendNowProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (on the sans-I/O core of ``websockets``), which also
    offers ``send_now`` to the application in the scope's extensions, and bounds what a
    client that does not read can hold: a small kernel send buffer, and a close (1013) once
    the connection has taken nothing for ``unwritable_seconds``."""

    send_buffer_bytes: int | None = None
    """``SO_SNDBUF`` of each connection (None: the kernel's own, which grows to megabytes)."""
    unwritable_seconds: float | None = None
    """How long the transport may stay paused (over its high-water mark) before the
    connection is closed; None: for ever."""

    @classmethod
    def configured(
        cls, *, send_buffer_bytes: int | None, unwritable_seconds: float | None
    ) -> type[SendNowProtocol]:
        """This protocol with these bounds (uvicorn makes each connection's protocol from a
        class, so the bounds are the class's)."""
        bounds = {"send_buffer_bytes": send_buffer_bytes, "unwritable_seconds": unwritable_seconds}
        return type(cls.__name__, (cls,), bounds)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # What the client sends waits here, and the writable flag: a few KiB less for every
        # connection than asyncio's (``app/transport/lean.py``), which uvicorn uses only
        # through ``put_nowait``, ``get`` and ``empty``, and ``set``, ``clear``, ``is_set``
        # and ``wait``.
        self.queue: Any = LeanQueue()
        self.writable: Any = LeanEvent()
        self.writable.set()
        compression = self.app_state.get(SHARED_COMPRESSION)
        if self.config.ws_per_message_deflate and isinstance(compression, SharedCompression):
            # The same offer as uvicorn's but with no context takeover, so that a text sent
            # to many connections is compressed once (``app/transport/deflate.py``). Without
            # the application's compression (no lifespan), uvicorn's own offer stands.
            _stop_parser(self.conn)
            self.conn = ServerProtocol(
                extensions=[SharedDeflateFactory(compression)],
                max_size=self.config.ws_max_size,
                logger=logging.getLogger("uvicorn.error"),
            )
        # websockets traces every frame at the debug level: the messages, with the hands and
        # the tokens in them, would be logged.
        self.conn.debug = False
        self._unwritable: asyncio.TimerHandle | None = None
        self._heard_at = self.loop.time()
        """When the client last sent anything (``send_keepalive_ping``)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        sock = transport.get_extra_info("socket")
        if self.send_buffer_bytes and sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.send_buffer_bytes)

    def connection_lost(self, exc: Exception | None) -> None:
        self._writable_again()
        super().connection_lost(exc)
        # Two cycles would keep the connection, and all it held (its transport, its deflate
        # state), for the collector's rarer passes: the scope holds ``send_now``, bound to
        # this protocol, which holds the scope; and the core's parser.
        scope: Any = getattr(self, "scope", None)
        if scope is not None:
            scope["extensions"].pop(SEND_NOW, None)
        _stop_parser(self.conn)

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.unwritable_seconds is not None and self._unwritable is None:
            self._unwritable = self.loop.call_later(self.unwritable_seconds, self._too_slow)

    def resume_writing(self) -> None:
        super().resume_writing()
        self._writable_again()

    def _writable_again(self) -> None:
        if self._unwritable is not None:
            self._unwritable.cancel()
            self._unwritable = None

    def _too_slow(self) -> None:
        """The client has taken nothing for too long: close with 1013 (it reads that once it
        reads again), and drop the connection if it has not read it by the next deadline."""
        self._unwritable = None
        logger.warning("connection unwritable for %g s; closing", self.unwritable_seconds)
        if self.conn.state is State.OPEN and not self.close_sent:
            self.conn.send_close(CLOSE_TRY_AGAIN, "too slow")
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.close_sent = True
        self.transport.close()
        assert self.unwritable_seconds is not None
        self.loop.call_later(self.unwritable_seconds, self.transport.abort)

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope: Any = getattr(self, "scope", None)
        if scope is not None:  # None: the handshake was refused
            scope["extensions"][SEND_NOW] = {"send": self.send_now}

    def start_keepalive(self) -> None:
        # Called once the handshake's answer is sent: uvicorn never reads its request and
        # response again, and their headers would stay for the connection's life (2-4 KiB).
        self.request: Any = None
        self.response: Any = None
        super().start_keepalive()

    def data_received(self, data: bytes) -> None:
        self._heard_at = self.loop.time()
        super().data_received(data)

    def send_keepalive_ping(self) -> None:
        """Ping a client only once it has sent nothing for the whole interval (uvicorn's
        ``ws_ping_interval``): anything it sent meanwhile showed it is there, as a pong
        would. The browser's client sends ``ping`` more often than that, so a live tab is
        never pinged, and a seat that acts is not; under load, pinging every connection
        every interval and reading its pong was 5% of the CPU of a move
        (``docs/performance.md``). A client gone without a word is still closed within the
        interval and uvicorn's ``ws_ping_timeout``."""
        interval = self.ping_interval
        if interval is not None:
            wait = self._heard_at + interval - self.loop.time()
            if wait > interval / 20:  # not for what is left after a pong's round trip
                self.ping_timer = self.loop.call_later(wait, self.send_keepalive_ping)
                return
        super().send_keepalive_ping()

    def send_now(self, text: Text) -> bool:
        """Frame ``text`` and write it now if the connection is open and its transport is
        not paused (over its high-water mark); False if not, and nothing was sent."""
        if (
            not self.handshake_complete
            or self.conn.state is not State.OPEN  # closing: sending would raise
            or self.close_sent
            or self.disconnected
            or self.initial_response is not None
            or not self.writable.is_set()
            or self.transport.is_closing()
        ):
            return False
        data = text.encode() if isinstance(text, str) else text
        extensions = self.conn.extensions
        if not extensions:
            self.transport.write(text_frame(data, compressed=False))
        elif len(extensions) == 1 and type(extension := extensions[0]) is SharedDeflate:
            compressed = extension.compression.deflated(data)
            self.transport.write(text_frame(compressed, compressed=True))
        else:  # another extension: websockets frames it
            self.conn.send_text(data)
            self.transport.write(b"".join(self.conn.data_to_send()))
        return True


def _stop_parser(conn: ServerProtocol) -> None:
    """Close the sans-I/O core's parser, a generator that holds the core (``self``) for as
    long as it waits for data: a cycle. Nothing is read once the connection is lost (or the
    core replaced before the first byte)."""
    conn.parser.close()


def text_frame(payload: bytes, *, compressed: bool) -> bytes:
    """A server's unfragmented text frame of ``payload`` (RFC 6455, 5.2; RSV1 marks a
    compressed message, RFC 7692): the bytes websockets' ``send_text`` would write for it.

    At every move each seat's connection sends a frame; through ``send_text`` that is a
    frame object, another one from the extension, a check of both and a header written to a
    buffer, 7% of the Python time of an action under load (``docs/performance.md``, "Rendering
    and sending the seats' states"). ``tests/app/transport/test_library_seams.py`` holds the
    two to the same bytes."""
    first = 0xC1 if compressed else 0x81  # FIN, RSV1 if compressed, the text opcode
    length = len(payload)
    if length < 126:
        return bytes((first, length)) + payload
    if length < 65536:
        return struct.pack("!BBH", first, 126, length) + payload
    return struct.pack("!BBQ", first, 127, length) + payload


def send_now_of(scope: dict[str, Any] | Any) -> SendNow | None:
    """The extension's ``send`` in a WebSocket's scope, if its server offers it."""
    extension = scope.get("extensions", {}).get(SEND_NOW)
    send: SendNow | None = None if extension is None else extension.get("send")
    return send
