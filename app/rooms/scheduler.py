"""Each process's clock loop: it wakes rooms as they fall due (AI turns, timeouts, recording)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from typing import Protocol

from app.rooms.due import DueWork
from app.rooms.model import Room
from app.rooms.service import RoomService
from app.store.base import STORE_ERRORS

logger = logging.getLogger(__name__)

_IDLE_SECONDS = 1.0
"""The longest the loop sleeps without a commit to wake it (for clocks of other processes)."""
_BUSY_SECONDS = 0.1
"""How soon to look again at a due room that another task or process is handling."""
_PASS_SECONDS = 0.05
"""The least time between two looks at the store: a commit may poke the loop, and under load
one look per commit would cost two store round trips per move for nothing."""


class Committed(Protocol):
    """Where a room committed by a wake goes: the hub, which sends it to every seat here."""

    def committed(self, room: Room) -> None: ...


class Scheduler:
    """Finds due rooms in the store and wakes each (``DueWork.wake``), one task per room; the
    room a wake commits goes to the hub (``run``)."""

    def __init__(self, service: RoomService) -> None:
        self._service = service
        self._due = DueWork(service)
        self._poked = asyncio.Event()
        self._running: dict[str, asyncio.Task[None]] = {}
        self._resting: dict[str, float] = {}
        """Rooms another process has claimed, and until when to leave them to it."""
        self._stopping = False
        self._next_look = math.inf
        """When the loop, waiting, will look at the store again; infinity while it looks (a
        wake committed meanwhile may be after what the look reads)."""

    def poke(self) -> None:
        """Something was committed whose wake time is not known here: look again."""
        self._poked.set()

    def due(self, wake_at: float | None) -> None:
        """This process committed a room due at ``wake_at``: look again if that is before
        the next look. Most moves only push their room's clock further off, and a look is a
        round trip to every bucket (16 commands and 1.4 KB a look, up to 20 looks a second):
        under load, poked by every commit, the looks were a fifth of the bytes Redis received
        per move and a round trip for every other move (``docs/performance.md``, round
        thirteen)."""
        if wake_at is not None and wake_at < self._next_look:
            self._poked.set()

    async def run(self, hub: Committed) -> None:
        """Wake each room as it falls due until ``stop``; what a wake commits goes to ``hub``."""
        while not self._stopping:
            self._poked.clear()
            self._next_look = math.inf
            passed = time.monotonic()
            timeout = _IDLE_SECONDS
            try:
                now = time.time()
                self._resting = {c: until for c, until in self._resting.items() if until > now}
                due, next_wake = await self._service.store.due(now)
                for code in due:
                    if code not in self._running and code not in self._resting:
                        self._start(code, hub)
                if next_wake is not None:
                    timeout = min(max(next_wake - time.time(), _BUSY_SECONDS), _IDLE_SECONDS)
            except STORE_ERRORS as error:
                logger.warning("scheduler: store unavailable (%s)", error)
            except Exception:
                logger.exception("scheduler: looking for due rooms failed")
            # asyncio.timeout, not wait_for: on 3.11 wait_for may swallow a cancellation.
            self._next_look = time.time() + timeout
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):
                    await self._poked.wait()
            await asyncio.sleep(max(0.0, passed + _PASS_SECONDS - time.monotonic()))

    def _start(self, code: str, hub: Committed) -> None:
        task = asyncio.create_task(self._wake(code, hub))
        self._running[code] = task

    async def _wake(self, code: str, hub: Committed) -> None:
        claimed = True
        try:
            woken = await self._due.wake(code)
            claimed = woken.claimed
            if woken.room is not None:
                hub.committed(woken.room)
        except STORE_ERRORS as error:
            # The room stays due, so the next pass tries it again.
            logger.warning("waking the room: store unavailable (%s)", error, extra={"room": code})
        except Exception:
            logger.exception("waking the room failed", extra={"room": code})
        finally:
            del self._running[code]
        if not claimed:
            self._resting[code] = time.time() + _BUSY_SECONDS

    async def stop(self, *, seconds: float) -> None:
        """End the loop and the wakes in progress (their rooms stay due for another process).

        Waits at most ``seconds``: a wake cancelled inside a database write may take long to
        unwind (its session rolls back), and a stopping process must still exit in time.
        """
        self._stopping = True
        self.poke()
        tasks = list(self._running.values())
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=seconds)
