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

from collections.abc import Callable
from typing import Any

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.http11 import Request
from websockets.protocol import State

SEND_NOW = "cash_stash.send_now"
"""The ASGI scope extension: ``{"send": callable(text) -> bool}``."""

Text = str | bytes
"""A text frame's content: a string, or its UTF-8 encoding (what a frame carries, so a text
rendered once for many connections is not encoded again for each)."""

SendNow = Callable[[Text], bool]


class SendNowProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol (on the sans-I/O core of ``websockets``), which also
    offers ``send_now`` to the application in the scope's extensions."""

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope: Any = getattr(self, "scope", None)
        if scope is not None:  # None: the handshake was refused
            scope["extensions"][SEND_NOW] = {"send": self.send_now}

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
        self.conn.send_text(text.encode() if isinstance(text, str) else text)
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True


def send_now_of(scope: dict[str, Any] | Any) -> SendNow | None:
    """The extension's ``send`` in a WebSocket's scope, if its server offers it."""
    extension = scope.get("extensions", {}).get(SEND_NOW)
    send: SendNow | None = None if extension is None else extension.get("send")
    return send
