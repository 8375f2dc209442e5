"""Per-connection flood control, the whole states each address is sent, the WebSocket
handshake's checks and the connection caps."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
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

    def seconds_to_next(self) -> float:
        """How long until ``take`` would succeed (0 now)."""
        tokens = min(self._burst, self._tokens + (time.monotonic() - self._at) * self._rate)
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self._rate


class AddressBudget:
    """A token bucket per client address, over all its connections in this process: ``burst``
    at once, then ``rate`` a second. An address whose bucket has filled again is forgotten (as
    good as never seen), so only the addresses that spent within about the time an empty bucket
    takes to fill are remembered."""

    def __init__(
        self, *, rate: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._rate = rate
        self._burst = float(burst)
        self._clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}
        """Address → its tokens (below zero: spent ahead, see ``WholeStates``) and when they
        were counted. An address not here has its whole burst."""
        self._swept_at = clock()

    def __len__(self) -> int:
        """Addresses remembered (their bucket not yet full again)."""
        return len(self._buckets)

    def allow(self, address: str) -> bool:
        """Spend one for ``address`` if it has one; False (nothing spent) if not."""
        now = self._clock()
        self._sweep(now)
        tokens = self._tokens(address, now)
        if tokens < 1.0:
            return False
        self._buckets[address] = (tokens - 1.0, now)
        return True

    def _tokens(self, address: str, now: float) -> float:
        tokens, at = self._buckets.get(address, (self._burst, now))
        return min(self._burst, tokens + (now - at) * self._rate)

    def _sweep(self, now: float) -> None:
        """Forget the addresses whose bucket is full again, at most once in the time an empty
        bucket takes to fill."""
        if now - self._swept_at < self._burst / self._rate:
            return
        self._swept_at = now
        self._buckets = {
            address: (tokens, at)
            for address, (tokens, at) in self._buckets.items()
            if tokens + (now - at) * self._rate < self._burst
        }


class WholeStates(AddressBudget):
    """The whole states (view and log, many times any request) this process sends each client
    address, over all its connections. A connection's first state and a resync's each cost
    one; a delta that follows a move costs nothing (the room's moves, not the address, set how
    many there are).

    Spending past the budget queues: the next is due ``1 / rate`` seconds after the one before,
    so an address reconnecting in a loop is sent ``rate`` states a second however many
    connections it holds, while a page reload or a network blip within ``burst`` is served at
    once."""

    def wait(self, address: str) -> float:
        """Seconds until one more whole state to ``address`` would be due (0: now)."""
        tokens = self._tokens(address, self._clock())
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) / self._rate

    def take(self, address: str) -> float:
        """Spend one whole state for ``address``: seconds from now until it is due (0: now)."""
        now = self._clock()
        self._sweep(now)
        tokens = self._tokens(address, now) - 1.0
        self._buckets[address] = (tokens, now)
        return 0.0 if tokens >= 0.0 else -tokens / self._rate


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
    """Open WebSockets per client address (connections still to say hello counted) and
    spectators per room, in this process. A seat's own connection is never refused for a
    crowded room: the room cap counts only those watching. Counted per process, not across
    them: a count held in the store would outlive a process that dies holding connections, and
    the proxy in front (``deploy/nginx.conf``) caps connections per address over all
    processes."""

    def __init__(self, *, per_address: int, per_room: int) -> None:
        self._per_address = per_address
        self._per_room = per_room
        self._addresses: Counter[str] = Counter()
        self._watching: Counter[str] = Counter()

    def refusal(self, address: str) -> tuple[str, str] | None:
        """Why one more connection from ``address`` is refused (its code and a sentence), or
        None: it may open (and must be ``released`` when it closes)."""
        if self._addresses[address] >= self._per_address:
            return "too_many_connections", "Too many connections from your address; close some."
        self._addresses[address] += 1
        return None

    def release(self, address: str) -> None:
        _drop(self._addresses, address)

    def watch(self, room: str) -> tuple[str, str] | None:
        """Why one more spectator of ``room`` is refused, or None: it may watch (and must be
        ``unwatched`` when it closes)."""
        if self._watching[room] >= self._per_room:
            return "room_crowded", "This room has too many spectators; try again later."
        self._watching[room] += 1
        return None

    def unwatch(self, room: str) -> None:
        _drop(self._watching, room)


def _drop(counts: Counter[str], key: str) -> None:
    counts[key] -= 1
    if counts[key] <= 0:
        del counts[key]
