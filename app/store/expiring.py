"""The clock that frees a store's entries whose time ran out.

A memory store cannot lean on a server's own expiry (as Redis does): an entry nobody reads
again would stay for good. Each one has a ``sweep`` that frees what ran out; this calls it
every so often while the store is started. The Redis room store's index entries (a sorted
set's members, which Redis does not expire one by one) are swept the same way."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import Awaitable, Callable


class Sweeper:
    """Calls ``sweep`` every ``seconds`` between ``start`` and ``close`` (awaiting it, if it
    is a coroutine function)."""

    def __init__(self, sweep: Callable[[], Awaitable[object] | object], *, seconds: float) -> None:
        self._sweep = sweep
        self._seconds = seconds
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        """Start the clock (once: starting again keeps the one running)."""
        if self._task is None:
            self._task = asyncio.create_task(self._sweep_on_a_clock())

    async def close(self) -> None:
        """Stop the clock; no sweep runs after this returns."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _sweep_on_a_clock(self) -> None:
        while True:
            await asyncio.sleep(self._seconds)
            swept = self._sweep()
            if inspect.isawaitable(swept):
                await swept
