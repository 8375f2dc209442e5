"""A queue and an event for objects that live as long as a connection, at a fraction of the
memory of asyncio's.

``asyncio.Queue`` holds four ``collections.deque`` (its items, its getters, its putters and an
``Event`` for ``join``) and ``asyncio.Event`` one: a deque takes a block of 64 slots as soon as
it is made, so a queue is about 3 KiB and an event 0.7 KiB before anything is put in them.
Every WebSocket connection had two queues (uvicorn's for what the client sends, ours for what
waits to be sent) and two events, a fifth of the memory of an idle connection
(``docs/performance.md``). These keep a list, and a future only while someone waits.

They do what the connections use of asyncio's, with the same semantics: ``put_nowait`` (and
``QueueFull`` past ``maxsize``), ``get`` in order, ``empty`` and ``qsize``; ``set``, ``clear``,
``is_set`` and ``wait``. Queues here stay short (a connection's is bounded by
``CASH_STASH_WS_QUEUE_SIZE``), so taking from the front of a list costs nothing that counts.
"""

from __future__ import annotations

import asyncio
from typing import Generic, TypeVar

T = TypeVar("T")


def _wake(waiters: list[asyncio.Future[None]] | None, *, every: bool) -> None:
    for waiter in waiters or ():
        if not waiter.done():
            waiter.set_result(None)
            if not every:
                return


class LeanQueue(Generic[T]):
    """A FIFO queue with ``asyncio.Queue``'s ``put_nowait``, ``get``, ``empty`` and ``qsize``."""

    __slots__ = ("_getters", "_items", "_maxsize")

    def __init__(self, maxsize: int = 0) -> None:
        self._items: list[T] = []
        self._maxsize = maxsize
        self._getters: list[asyncio.Future[None]] | None = None
        """Futures of the callers waiting in ``get`` (None while nobody waits)."""

    def qsize(self) -> int:
        return len(self._items)

    def empty(self) -> bool:
        return not self._items

    def put_nowait(self, item: T) -> None:
        if self._maxsize > 0 and len(self._items) >= self._maxsize:
            raise asyncio.QueueFull
        self._items.append(item)
        _wake(self._getters, every=False)

    async def get(self) -> T:
        while not self._items:
            waiter = asyncio.get_running_loop().create_future()
            if self._getters is None:
                self._getters = []
            self._getters.append(waiter)
            try:
                await waiter
            except BaseException:
                # Woken and cancelled at once: the item stays, for the next caller to take.
                if waiter.done() and not waiter.cancelled() and self._items:
                    _wake(self._getters, every=False)
                raise
            finally:
                self._getters.remove(waiter)
                if not self._getters:
                    self._getters = None
        return self._items.pop(0)


class LeanEvent:
    """An event with ``asyncio.Event``'s ``set``, ``clear``, ``is_set`` and ``wait``."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = False
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        if not self._set:
            self._set = True
            _wake(self._waiters, every=True)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> bool:
        if self._set:
            return True
        waiter = asyncio.get_running_loop().create_future()
        if self._waiters is None:
            self._waiters = []
        self._waiters.append(waiter)
        try:
            await waiter
            return True
        finally:
            self._waiters.remove(waiter)
            if not self._waiters:
                self._waiters = None
