"""What ``app/transport/`` relies on inside uvicorn and websockets, checked by name.

Each protocol there subclasses a library's internals: it overrides some methods and reads or
writes attributes the library sets. An upgrade that renames one, changes a signature or stops
setting an attribute would not fail at import; it would fail (or worse, quietly do nothing) on
the first connection. These tests say which seam moved, in the library's own terms, so that the
pins in ``pyproject.toml`` are widened only to releases that pass them.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import random
import re
from collections.abc import Callable
from typing import Any

import httptools
import pytest
import uvicorn
from uvicorn.config import Config
from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.extensions.permessage_deflate import (
    PerMessageDeflate,
    ServerPerMessageDeflateFactory,
)
from websockets.frames import CTRL_OPCODES, Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

from app.transport.deflate import SharedCompression, SharedDeflate, SharedDeflateFactory
from app.transport.http import GuardedHttpProtocol
from app.transport.lean import LeanEvent, LeanQueue
from app.transport.websocket import SendNowProtocol, text_frame


def parameters(function: Callable[..., Any]) -> list[str]:
    return [name for name in inspect.signature(function).parameters if name != "self"]


def assert_overrides(
    subclass: type, base: type, expected: dict[str, list[str]], where: str
) -> None:
    """Every method ``subclass`` overrides is still ``base``'s, with the same parameters (a
    method the library renamed would leave the override never called)."""
    for name, names in expected.items():
        assert name in vars(subclass), f"{where} no longer overrides {name}: update this test"
        inherited = getattr(base, name, None)
        assert callable(inherited), f"{base.__qualname__}.{name} is gone; {where} overrides it"
        assert parameters(inherited) == names, (
            f"{base.__qualname__}.{name}{inspect.signature(inherited)} changed; {where} "
            f"overrides it as taking {names}"
        )


def assert_attributes(instance: object, expected: dict[str, type | tuple[type, ...]]) -> None:
    for name, kind in expected.items():
        assert hasattr(instance, name), (
            f"{type(instance).__qualname__} no longer sets {name}, which app/transport/ uses"
        )
        value = getattr(instance, name)
        assert isinstance(value, kind), (
            f"{type(instance).__qualname__}.{name} is now {type(value).__qualname__}, not {kind}"
        )


class FakeTransport(asyncio.Transport):
    """A transport that keeps what is written, for a protocol driven by hand."""

    def __init__(self) -> None:
        super().__init__()
        self.written = bytearray()
        self.closing = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("203.0.113.9", 50000), "sockname": ("127.0.0.1", 8000)}.get(
            name, default
        )

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += data

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        pass


async def _app(scope: Any, receive: Any, send: Any) -> None:
    await receive()


def loaded_config(**options: Any) -> Config:
    config = Config(_app, lifespan="off", **options)
    config.load()
    return config


# uvicorn's WebSocket protocol: ``app/transport/websocket.py``.


def test_the_websocket_protocol_overrides_what_uvicorn_still_calls() -> None:
    assert_overrides(
        SendNowProtocol,
        WebSocketsSansIOProtocol,
        {
            "__init__": ["config", "server_state", "app_state", "_loop"],
            "connection_made": ["transport"],
            "connection_lost": ["exc"],
            "pause_writing": [],
            "resume_writing": [],
            "handle_connect": ["event"],
            "start_keepalive": [],
            "data_received": ["data"],
            "send_keepalive_ping": [],
        },
        "app/transport/websocket.py",
    )


def test_uvicorn_reads_the_handshake_only_before_it_starts_the_keepalive() -> None:
    """``SendNowProtocol.start_keepalive`` drops the handshake's request and response: uvicorn
    must read them only in ``handle_connect`` and in ``send`` before the keepalive starts."""
    readers = {
        name
        for name, method in inspect.getmembers(WebSocketsSansIOProtocol, inspect.isfunction)
        if re.search(r"self\.(request|response)\b", inspect.getsource(method))
    }
    assert readers == {"handle_connect", "send"}, readers
    send = inspect.getsource(WebSocketsSansIOProtocol.send)
    last_use = max(m.end() for m in re.finditer(r"self\.response\b", send))
    keepalive = send.find("self.start_keepalive()")
    assert keepalive > last_use, "uvicorn now reads the response after starting the keepalive"
    assert send.count("self.start_keepalive()") == 1


async def test_the_websocket_protocol_sets_what_send_now_reads() -> None:
    config = loaded_config(ws=WebSocketsSansIOProtocol, ws_per_message_deflate=True)
    assert isinstance(config.ws_per_message_deflate, bool)
    assert isinstance(config.ws_max_size, int)
    # The lifespan's state, where ``SendNowProtocol`` finds the runtime's compression.
    lifespan_state: dict[str, Any] = {}
    protocol = WebSocketsSansIOProtocol(
        config=config, server_state=ServerState(), app_state=lifespan_state
    )
    assert protocol.app_state is lifespan_state, "uvicorn no longer keeps the lifespan's state"
    protocol.connection_made(FakeTransport())
    assert_attributes(
        protocol,
        {
            "config": Config,
            "conn": ServerProtocol,
            "loop": asyncio.AbstractEventLoop,
            "transport": asyncio.Transport,
            "writable": asyncio.Event,
            "close_sent": bool,
            "handshake_complete": bool,
            "disconnected": bool,
            "initial_response": type(None),
            "ping_interval": (float, int, type(None)),
            "ping_timer": (asyncio.TimerHandle, type(None)),
        },
    )
    # The protocol is the transport's until it is handed a handshake; then it has a scope.
    request = (
        b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    protocol.data_received(request)
    assert isinstance(protocol.scope["extensions"], dict), "the scope's extensions changed"
    protocol.connection_lost(None)
    await asyncio.sleep(0)


def test_uvicorn_uses_its_queue_and_writable_flag_only_as_the_lean_ones_allow() -> None:
    """``SendNowProtocol`` swaps uvicorn's ``asyncio.Queue`` and ``asyncio.Event`` for the
    lean ones: every use uvicorn makes of them must be one they have."""
    source = inspect.getsource(WebSocketsSansIOProtocol)
    for attribute, lean in (("queue", LeanQueue), ("writable", LeanEvent)):
        made = re.findall(rf"self\.{attribute}(?:: [^=]+)? = (\w+\.\w+)\(", source)
        assert made in (["asyncio.Queue"], ["asyncio.Event"]), f"uvicorn's {attribute}: {made}"
        used = set(re.findall(rf"self\.{attribute}\.(\w+)", source))
        assert used, f"uvicorn no longer uses self.{attribute}"
        missing = {name for name in used if not callable(getattr(lean, name, None))}
        assert not missing, f"uvicorn uses {attribute}.{missing}, which {lean.__name__} lacks"
        other = re.findall(rf"self\.{attribute}\b(?!\.|:| =)", source)
        assert not other, f"uvicorn hands self.{attribute} on as a whole: {other}"


def test_websockets_sans_io_core_still_takes_what_the_protocol_gives_it() -> None:
    assert {"extensions", "max_size", "logger"} <= set(parameters(ServerProtocol.__init__))
    for name in ("send_text", "send_close", "data_to_send", "accept"):
        assert callable(getattr(ServerProtocol, name, None)), f"ServerProtocol.{name} is gone"
    conn = ServerProtocol()
    assert conn.state is State.CONNECTING, "ServerProtocol.state is not websockets' State"
    assert State.OPEN in State
    assert isinstance(conn.debug, bool)
    # Closed when the connection is lost: it holds the core while it waits (a cycle).
    assert inspect.isgenerator(conn.parser), "ServerProtocol.parser is not a generator"
    assert parameters(ServerProtocol.send_text) == ["data", "fin"]
    assert parameters(ServerProtocol.send_close)[:2] == ["code", "reason"]
    assert dataclasses.is_dataclass(Request)


@pytest.mark.parametrize("compressed", [False, True])
@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536, 70000])
def test_send_now_frames_a_text_as_websockets_send_text_does(compressed: bool, size: int) -> None:
    """``text_frame`` writes what websockets' own ``send_text`` would, with and without the
    shared deflate: the header of every length class, RSV1, the compressed payload."""
    conn = ServerProtocol()
    conn.state = State.OPEN
    compression = SharedCompression()
    if compressed:
        conn.extensions = [SharedDeflateFactory(compression).process_request_params([], [])[1]]
    # Bytes deflate cannot shrink, so that the compressed payload has the same length class.
    data = random.Random(size).randbytes(size)
    conn.send_text(data)
    expected = b"".join(conn.data_to_send())
    payload = compression.deflated(data) if compressed else data
    assert text_frame(payload, compressed=compressed) == expected


# websockets' per-message deflate: ``app/transport/deflate.py``.


def test_the_shared_deflate_builds_websockets_extension_as_it_still_takes_it() -> None:
    assert parameters(PerMessageDeflate.__init__) == [
        "remote_no_context_takeover",
        "local_no_context_takeover",
        "remote_max_window_bits",
        "local_max_window_bits",
        "compress_settings",
    ]
    assert {
        "server_no_context_takeover",
        "client_no_context_takeover",
        "server_max_window_bits",
        "client_max_window_bits",
        "compress_settings",
    } <= set(parameters(ServerPerMessageDeflateFactory.__init__))
    assert_overrides(
        SharedDeflate, PerMessageDeflate, {"encode": ["frame"]}, "app/transport/deflate.py"
    )
    assert_overrides(
        SharedDeflateFactory,
        ServerPerMessageDeflateFactory,
        {"process_request_params": ["params", "accepted_extensions"]},
        "app/transport/deflate.py",
    )


def test_the_shared_deflate_reads_frames_and_negotiated_windows_as_websockets_has_them() -> None:
    fields = [field.name for field in dataclasses.fields(Frame)]
    assert fields[:6] == ["opcode", "data", "fin", "rsv1", "rsv2", "rsv3"], fields
    assert Opcode.PING in CTRL_OPCODES and Opcode.CONT not in CTRL_OPCODES
    response, extension = SharedDeflateFactory(SharedCompression()).process_request_params([], [])
    assert isinstance(extension, SharedDeflate), "a default offer is shared"
    for name in (
        "remote_no_context_takeover",
        "local_no_context_takeover",
        "remote_max_window_bits",
        "local_max_window_bits",
    ):
        assert hasattr(extension, name), f"PerMessageDeflate no longer has {name}"
    assert isinstance(response, list)


# uvicorn's HTTP protocol: ``app/transport/http.py``.


def test_the_http_protocol_overrides_what_uvicorn_still_calls() -> None:
    assert_overrides(
        GuardedHttpProtocol,
        HttpToolsProtocol,
        {
            "__init__": ["config", "server_state", "app_state", "_loop"],
            "connection_made": ["transport"],
            "connection_lost": ["exc"],
            "data_received": ["data"],
            "on_headers_complete": [],
            "on_message_complete": [],
            "on_response_complete": [],
            "handle_websocket_upgrade": [],
        },
        "app/transport/http.py",
    )


@pytest.mark.parametrize("upgrade", [False, True])
async def test_the_http_protocol_sets_what_the_deadlines_and_the_cap_read(upgrade: bool) -> None:
    config = loaded_config(http=HttpToolsProtocol, ws="websockets-sansio")
    protocol = HttpToolsProtocol(config=config, server_state=ServerState(), app_state={})
    assert protocol.cycle is None, "the cycle is None until a request's head arrives"
    assert protocol.app is config.loaded_app, "each connection serves its own app attribute"
    transport = FakeTransport()
    protocol.connection_made(transport)
    assert protocol.client == ("203.0.113.9", 50000)
    assert_attributes(
        protocol,
        {
            "transport": asyncio.Transport,
            "loop": asyncio.AbstractEventLoop,
            # Let go of once a WebSocket takes the connection over: it holds our callbacks.
            "parser": httptools.HttpRequestParser,
        },
    )
    if upgrade:
        # An upgrade makes no new cycle: the body deadline is not started for it.
        protocol.data_received(
            b"GET / HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        assert protocol.cycle is None
        return
    protocol.data_received(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab")
    cycle = protocol.cycle
    assert isinstance(cycle, RequestResponseCycle)
    assert_attributes(
        cycle, {"response_started": bool, "disconnected": bool, "message_event": asyncio.Event}
    )
    assert cycle.more_body, "the body is not whole yet"
    protocol.connection_lost(None)
    assert cycle.disconnected and cycle.message_event.is_set(), (
        "connection_lost no longer tells the app the client left as the body deadline does"
    )
    await asyncio.sleep(0)


async def test_uvicorn_serves_each_request_with_the_app_the_http_protocol_wraps() -> None:
    """``GuardedHttpProtocol`` replaces the connection's ``app`` once it is made, to pace and
    time every answer's writes: uvicorn must read ``app`` per request, take a body in parts
    under a ``content-length``, and wait on its flow control (``write_paused``, ``drain``),
    which the wrapper waits on first, before each write."""
    config = loaded_config(http=HttpToolsProtocol)
    protocol = HttpToolsProtocol(config=config, server_state=ServerState(), app_state={})
    transport = FakeTransport()
    protocol.connection_made(transport)
    assert_attributes(protocol, {"flow": FlowControl})
    assert_attributes(protocol.flow, {"write_paused": bool})
    assert inspect.iscoroutinefunction(FlowControl.drain)
    answered: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        start = {"type": "http.response.start", "status": 200}
        await send({**start, "headers": [(b"content-length", b"2")]})
        await send({"type": "http.response.body", "body": b"o", "more_body": True})
        await send({"type": "http.response.body", "body": b"k"})
        answered.append(scope["path"])

    protocol.app = app
    protocol.data_received(b"GET /x HTTP/1.1\r\nHost: x\r\n\r\n")
    for _ in range(10):
        await asyncio.sleep(0)
    assert answered == ["/x"], "uvicorn no longer serves a request with the protocol's app"
    assert transport.written.endswith(b"\r\n\r\nok"), bytes(transport.written)
    assert_attributes(protocol.cycle, {"response_complete": bool})
    assert protocol.cycle.response_complete
    send = inspect.getsource(RequestResponseCycle.send)
    assert send.find("self.flow.drain()") < send.find("self.transport.write("), (
        "uvicorn's send no longer waits while writing is paused, before it writes"
    )
    protocol.connection_lost(None)


def test_uvicorn_takes_protocol_classes_for_http_and_ws() -> None:
    config = loaded_config(http=GuardedHttpProtocol, ws=SendNowProtocol)
    assert config.http_protocol_class is GuardedHttpProtocol
    assert config.ws_protocol_class is SendNowProtocol
    assert "timeout_graceful_shutdown" in parameters(uvicorn.Config.__init__)
