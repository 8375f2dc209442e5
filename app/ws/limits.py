"""Per-connection flood control, the WebSocket handshake's checks and the connection caps."""

from __future__ import annotations

import time
from collections import Counter
from urllib.parse import parse_qsl, unquote, urlsplit


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


def token_in_url(query_string: bytes) -> bool:
    """Whether a URL's query names a ``token``, however spelt (``%74oken``, ``TOKEN``, ...):
    tokens travel in the ``hello`` message, never in a URL, where logs and history keep them."""
    text = query_string.decode("latin-1")
    for name, _ in parse_qsl(text, keep_blank_values=True):
        if unquote(name).strip().casefold() == "token":
            return True
    return False


class ConnectionCaps:
    """Open WebSockets per client address and per room (spectators and connections still
    to say hello counted), in this process. Counted per process, not across them: a count
    held in the store would outlive a process that dies holding connections, and the proxy
    in front (``deploy/nginx.conf``) caps connections per address over all processes."""

    def __init__(self, *, per_address: int, per_room: int) -> None:
        self._per_address = per_address
        self._per_room = per_room
        self._addresses: Counter[str] = Counter()
        self._rooms: Counter[str] = Counter()

    def refusal(self, address: str, room: str) -> tuple[str, str] | None:
        """Why one more connection from ``address`` to ``room`` is refused (its code and a
        sentence), or None: it may open (and must be ``released`` when it closes)."""
        if self._addresses[address] >= self._per_address:
            return "too_many_connections", "Too many connections from your address; close some."
        if self._rooms[room] >= self._per_room:
            return "room_crowded", "This room has too many connections; try again later."
        self._addresses[address] += 1
        self._rooms[room] += 1
        return None

    def release(self, address: str, room: str) -> None:
        for counts, key in ((self._addresses, address), (self._rooms, room)):
            counts[key] -= 1
            if counts[key] <= 0:
                del counts[key]
