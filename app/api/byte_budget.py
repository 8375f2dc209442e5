"""A budget of bytes per client address: how much of a large answer one address may be sent.

A finished game's replay is megabytes of JSON; kept in memory it costs no replaying, but each
answer still costs its bytes (eight connections fetching one kept 4.1 MB replay took a core, at
140 MB/s). Each address has a bucket that fills at ``per_second`` bytes up to ``burst``; an
answer may start while its address's bucket is not empty and takes all its bytes from it, into
debt if it must, so that an answer larger than the burst is still served, once, and the address
then waits until the debt is paid. Kept per process: each process's own core is what it guards.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

SWEEP_AT = 1024
"""Addresses held before the first sweep of full buckets (then twice what the last one left)."""


@dataclass(slots=True)
class _Bucket:
    left: float
    """Bytes the address may still be sent; below zero, its debt."""
    at: float
    """When ``left`` was last brought up to date."""


class ByteBudget:
    """Bytes per address, refilled at ``per_second`` up to ``burst``."""

    def __init__(
        self,
        *,
        per_second: float,
        burst: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_second = per_second
        self.burst = burst
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}
        self._sweep_at = SWEEP_AT

    def spend(self, address: str, size: int) -> float:
        """Take ``size`` bytes from ``address``'s bucket and return 0, or, if the bucket is
        empty, take nothing and return the seconds until it is not."""
        now = self._clock()
        bucket = self._buckets.get(address)
        if bucket is None:
            if len(self._buckets) >= self._sweep_at:
                self._sweep(now)
            bucket = self._buckets[address] = _Bucket(left=self.burst, at=now)
        else:
            bucket.left = min(self.burst, bucket.left + (now - bucket.at) * self.per_second)
            bucket.at = now
        if bucket.left <= 0:
            return max(-bucket.left / self.per_second, 1 / self.per_second)
        bucket.left -= size
        return 0.0

    def __len__(self) -> int:
        """Addresses with a bucket held (a full one may be forgotten at the next sweep)."""
        return len(self._buckets)

    def _sweep(self, now: float) -> None:
        """Forget the buckets that have filled again: a new one starts full, the same."""
        self._buckets = {
            address: bucket
            for address, bucket in self._buckets.items()
            if bucket.left + (now - bucket.at) * self.per_second < self.burst
        }
        self._sweep_at = max(SWEEP_AT, 2 * len(self._buckets))


def retry_after(seconds: float) -> str:
    """A ``Retry-After`` value: whole seconds, at least one."""
    return str(max(1, math.ceil(seconds)))
