"""uvicorn's HTTP protocol with a deadline for each request head.

uvicorn closes a kept-alive connection that sends nothing between requests, but waits for
ever for a request head that arrives a byte at a time (slowloris): 500 such connections
stayed open for over a minute. This protocol closes a connection whose request line and
headers are not complete ``head_seconds`` after it opened, or after its previous request
ended. It stands in for a request-header timeout uvicorn does not offer; the test of it
(``tests/security/test_ws_slow_peers.py``) fails if uvicorn's protocol changes under it.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

logger = logging.getLogger(__name__)


class HeadTimeoutProtocol(HttpToolsProtocol):
    head_seconds: float = 10.0
    """How long a request head may take to arrive whole."""

    @classmethod
    def configured(cls, *, head_seconds: float) -> type[HeadTimeoutProtocol]:
        return type(cls.__name__, (cls,), {"head_seconds": head_seconds})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_head()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._await_head()

    def on_headers_complete(self) -> None:
        self._head_arrived()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._head_arrived()
        super().connection_lost(exc)

    def _await_head(self) -> None:
        self._head_arrived()
        self._head_deadline = self.loop.call_later(self.head_seconds, self._head_too_slow)

    def _head_arrived(self) -> None:
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _head_too_slow(self) -> None:
        self._head_deadline = None
        if not self.transport.is_closing():
            logger.info("request head not complete in %g s; closing", self.head_seconds)
            self.transport.close()
