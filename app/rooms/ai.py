"""AI decisions, run in worker processes so a thinking AI never blocks the event loop."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import multiprocessing
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.process import BaseProcess
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
        """Stop the workers within ``seconds``, busy or not, so none is left behind at exit.

        A busy worker is not waited for: its decision would be thrown away, and a Hard one
        takes longer than a shutdown's grace. Left running, a worker outlives the server for
        ever (it holds both ends of its own call queue), and with it the forkserver and the
        resource tracker, which stop once the last worker has."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        # ``_processes`` is where every CPython release keeps the workers (3.14 adds a public
        # ``terminate_workers`` on top of it); ``test_library_seams.py`` checks it is there.
        workers = (
            list((executor._processes or {}).values())
            if isinstance(executor, ProcessPoolExecutor)
            else []
        )
        # Idle workers leave on the pool's own stop signal, as ``shutdown`` sends it, within
        # half the time; only those still busy then are terminated (a worker killed while it
        # waits on the call queue dies holding the queue's lock).
        executor.shutdown(wait=False, cancel_futures=True)
        await asyncio.to_thread(_reap, workers, seconds / 2, terminate=True)
        # Processes: with the workers gone, the pool's own thread ends and closes its queues,
        # so their semaphores are released rather than reported as leaked at exit. Threads:
        # the one running is waited for (bounded; it cannot be stopped).
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(seconds):
                await asyncio.to_thread(executor.shutdown, wait=True)


def _reap(workers: Sequence[BaseProcess], seconds: float, *, terminate: bool = False) -> None:
    """Wait for ``workers`` to exit, at most ``seconds``; with ``terminate``, then terminate
    those still running and wait as long again; kill the rest."""
    _join(workers, seconds)
    if terminate:
        for worker in workers:
            if worker.is_alive():
                worker.terminate()
        _join(workers, seconds)
    for worker in workers:
        if worker.is_alive():
            worker.kill()
            worker.join(1.0)


def _join(workers: Sequence[BaseProcess], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    for worker in workers:
        worker.join(max(0.0, deadline - time.monotonic()))
