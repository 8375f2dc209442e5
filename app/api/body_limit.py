"""A ceiling on every HTTP request body, enforced before anything parses it."""

from __future__ import annotations

import orjson
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyLimit:
    """Answers ``413 body_too_large`` to a request whose body passes ``max_bytes``.

    A declared ``Content-Length`` over the limit is refused without reading a byte; a body sent
    in chunks is counted as it arrives and refused as soon as it passes the limit. A body within
    the limit is read whole (it is small) and handed to the app as it came.
    """

    def __init__(self, app: ASGIApp, *, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self._declared_length(scope) > self.max_bytes:
            await self._refuse(send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                # The client left before its body was whole: let the app see it go.
                await self.app(scope, _replay([message], receive), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._refuse(send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        whole: Message = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, _replay([whole], receive), send)

    @staticmethod
    def _declared_length(scope: Scope) -> int:
        for name, value in scope["headers"]:
            if name == b"content-length":
                # Malformed lengths never get this far: the HTTP server refuses them.
                return int(value) if value.isdigit() else 0
        return 0

    async def _refuse(self, send: Send) -> None:
        body = orjson.dumps(
            {
                "code": "body_too_large",
                "detail": f"A request body may hold at most {self.max_bytes} bytes.",
            }
        )
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """``receive`` that first gives back ``messages``, then listens to the client again."""
    pending = list(messages)

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed
