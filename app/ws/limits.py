"""Per-connection flood control and the WebSocket handshake's Origin check."""

from __future__ import annotations

import time
from urllib.parse import urlsplit


class TokenBucket:
    """Allows ``burst`` messages at once and ``rate`` per second after that."""

    def __init__(self, *, rate: float, burst: int) -> None:
        self._rate = rate
        self._burst = float(burst)
        self._tokens = float(burst)
        self._at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self._tokens = min(self._burst, self._tokens + (now - self._at) * self._rate)
        self._at = now
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True


def origin_allowed(origin: str | None, host: str | None, allowed: list[str]) -> bool:
    """Same origin always; other origins only when listed (``*`` lists every origin).

    A request without ``Origin`` is not from a browser page, so no page can be abusing it.
    """
    if origin is None:
        return True
    origin = origin.rstrip("/")
    if "*" in allowed or origin in allowed:
        return True
    return host is not None and urlsplit(origin).netloc.lower() == host.lower()
