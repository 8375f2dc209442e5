"""AI decisions, run in worker processes so a thinking AI never blocks the event loop."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import multiprocessing
import random
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

T = TypeVar("T")


def decide(
    level: str, view: dict[str, Any], legal: list[dict[str, Any]], seed: int
) -> dict[str, Any]:
    """The action the AI of ``level`` takes in a seat, seeing only that seat's view.

    ``legal`` is what that seat's own client is sent too; it is the fallback when no AI
    package is installed, so AI seats still play (a random legal action).
    """
    rng = random.Random(seed)
    try:
        ai = importlib.import_module("engine.ai")
        player = ai.player(level)
    except (ImportError, AttributeError):
        return rng.choice(legal)
    action: dict[str, Any] = player.decide(view, rng)
    return action


class AiRunner:
    """Runs ``decide`` off the event loop: in a process pool, or threads when ``workers`` is 0."""

    def __init__(self, workers: int) -> None:
        self._workers = workers
        self._executor: Executor | None = None

    def _pool(self) -> Executor:
        if self._executor is None:
            if self._workers > 0:
                # forkserver: workers start clean, not as forks of a threaded server process.
                context = multiprocessing.get_context("forkserver")
                self._executor = ProcessPoolExecutor(self._workers, mp_context=context)
            else:
                self._executor = ThreadPoolExecutor(1, thread_name_prefix="ai")
        return self._executor

    async def decide(
        self, level: str, view: dict[str, Any], legal: list[dict[str, Any]], seed: int
    ) -> dict[str, Any]:
        return await self.run(decide, level, view, legal, seed)

    async def run(self, work: Callable[..., T], *args: Any) -> T:
        """``work(*args)`` in a worker (a module-level function with picklable arguments)."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._pool(), work, *args)
        except BrokenProcessPool:
            # A worker died (killed, out of memory): start a fresh pool for the next decision.
            self.close()
            raise

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    async def aclose(self, *, seconds: float) -> None:
        """Stop the workers and wait for them (bounded), so none is left behind at exit."""
        executor, self._executor = self._executor, None
        if executor is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(seconds):
                    await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
