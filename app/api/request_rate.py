"""A ceiling on the HTTP requests each client address makes: a token bucket per address.

Every route was free to call as often as a client liked: eight connections from one address
read 444 lobby pages a second, most of a core. Each address now has a bucket of ``burst``
requests that refills at ``rate`` a second; a request that finds it empty is answered ``429
too_many_requests`` with ``Retry-After`` before any route runs. The health and metrics routes
are not counted (an orchestrator and a scraper poll them from one address). The buckets are
this process's own: behind a balancer over ``n`` processes an address may make up to ``n``
times as many."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

EXEMPT_PATHS = frozenset({"/healthz", "/metrics"})
"""Not counted: polled by the operator's own tools."""
MAX_ADDRESSES = 100_000
"""Buckets kept at most (a few MB); past it, full buckets are dropped, then the least recently
used."""


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float
    """When ``tokens`` was counted."""


class RequestBuckets:
    """The buckets, by client address."""

    def __init__(
        self,
        *,
        rate: float,
        burst: int,
        clock: Callable[[], float] = time.monotonic,
        max_addresses: int = MAX_ADDRESSES,
    ) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._max_addresses = max_addresses
        self._buckets: dict[str, _Bucket] = {}

    def __len__(self) -> int:
        return len(self._buckets)

    def take(self, address: str) -> float:
        """Take one request from ``address``'s bucket: 0 when it may go ahead, else how many
        seconds until it could."""
        now = self._clock()
        bucket = self._buckets.pop(address, None)
        if bucket is None:
            bucket = _Bucket(float(self.burst), now)
        bucket.tokens = min(float(self.burst), bucket.tokens + (now - bucket.at) * self.rate)
        bucket.at = now
        self._buckets[address] = bucket  # last in the dict: the most recently used
        if bucket.tokens < 1.0:
            return (1.0 - bucket.tokens) / self.rate
        bucket.tokens -= 1.0
        if len(self._buckets) > self._max_addresses:
            self._forget(now)
        return 0.0

    def _forget(self, now: float) -> None:
        """Drop full buckets (the same as none), then the least recently used down to nine
        tenths of the most kept, so that the next look is many new addresses away."""
        self._buckets = {
            address: bucket
            for address, bucket in self._buckets.items()
            if bucket.tokens + (now - bucket.at) * self.rate < self.burst
        }
        keep = self._max_addresses * 9 // 10
        for address in list(self._buckets)[: max(0, len(self._buckets) - keep)]:
            del self._buckets[address]


class RequestRate:
    """ASGI middleware: refuses an address's HTTP request when its bucket is empty."""

    def __init__(self, app: ASGIApp, *, rate: float, burst: int) -> None:
        self.app = app
        self.buckets = RequestBuckets(rate=rate, burst=burst)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in EXEMPT_PATHS:
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        wait = self.buckets.take(client[0] if client else "unknown")
        if wait == 0.0:
            await self.app(scope, receive, send)
            return
        await _refuse(send, retry_after=max(1, math.ceil(wait)))


async def _refuse(send: Send, *, retry_after: int) -> None:
    body = orjson.dumps(
        {
            "code": "too_many_requests",
            "detail": f"Too many requests from your address; try again in {retry_after} s.",
        }
    )
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(retry_after).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
