"""The transport: where the server reaches past uvicorn's and websockets' public APIs.

Each module here subclasses a library's internals, for what no public option offers:

- ``websocket``: uvicorn's sans-I/O WebSocket protocol, with ``send_now`` (a frame written
  without a task per message) and bounds on clients that do not read;
- ``deflate``: websockets' per-message deflate, compressing a text once for every connection;
- ``http``: uvicorn's httptools protocol, with deadlines for request heads, bodies and
  answers, and caps on connections and unsent answer bytes per address.

``lean`` is no subclass: a queue and an event for what lives as long as a connection (uvicorn's
protocol's included), at a fraction of asyncio's memory.

``tests/app/transport/test_library_seams.py`` checks every attribute, method and signature of
the libraries they rely on, so that an upgrade that moves one fails there, by name, first; the
pins in ``pyproject.toml`` admit only the releases those tests have passed on.
"""

from __future__ import annotations

from typing import Any

from app.settings import Settings


def server_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's connection options: the protocols of this package with their bounds, the
    WebSocket keepalive, the largest WebSocket message and compression. The tests' live
    servers use them too."""
    from app.transport.http import GuardedHttpProtocol
    from app.transport.websocket import SendNowProtocol

    return {
        "http": GuardedHttpProtocol.configured(
            head_seconds=settings.http_header_seconds,
            body_seconds=settings.http_body_seconds,
            connections_per_address=settings.http_connections_per_address or None,
            forwarded_allow_ips=settings.forwarded_allow_ips,
            write_seconds=settings.http_write_seconds,
            buffered_bytes_per_address=settings.http_buffered_bytes_per_address or None,
            send_buffer_bytes=settings.http_send_buffer_bytes or None,
            requests_per_address=settings.http_requests_per_address or None,
        ),
        "ws": SendNowProtocol.configured(
            send_buffer_bytes=settings.ws_send_buffer_bytes,
            unwritable_seconds=settings.ws_unwritable_seconds,
        ),
        "ws_ping_interval": settings.ws_ping_after_seconds,
        "ws_ping_timeout": settings.ws_pong_seconds,
        "ws_max_size": settings.ws_max_message_bytes,
        "ws_per_message_deflate": settings.ws_compression,
    }
