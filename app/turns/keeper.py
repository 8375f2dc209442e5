"""Each process's loop for turn-based games in the database: it brings back the parked games
whose deadline has come (and hands them to the due work, which applies each deadline once over
every process), and parks the games nobody looks at."""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable

from app.rooms.due import DueWork
from app.rooms.scheduler import Committed
from app.rooms.service import RoomService
from app.store.base import STORE_ERRORS
from app.turns.archive import DATABASE_ERRORS, TurnArchive
from app.turns.records import parkable

logger = logging.getLogger(__name__)

BATCH = 100
"""Rooms read per look (due, then idle): each look is one range of an index."""
UNPARKED_LAG_SECONDS = 60.0
"""How long past its wake time a game not parked is left to the store's own index (the clock
loop wakes it there) before it is woken from the database: the store lost it."""
JITTER = 0.2
"""Each wait is the poll's time within this share either way, so processes look apart."""


class TurnKeeper:
    """Parks, and brings back on their deadline, the turn-based games of one room service;
    safe to run in any number of processes at once."""

    def __init__(self, service: RoomService, archive: TurnArchive) -> None:
        self._service = service
        self._archive = archive
        self._due = DueWork(service)
        self._jitter = random.Random()
        """The waits' own generator: the module's shared one is left alone (a test's
        Hypothesis, drawing in another thread, takes any change to it for its own misuse)."""

    async def run(self, hub: Committed) -> None:
        """Look every ``turn_poll_seconds`` until cancelled; what a deadline commits goes to
        ``hub``."""
        seconds = self._service.settings.turn_poll_seconds
        while True:
            await asyncio.sleep(seconds * self._jitter.uniform(1 - JITTER, 1 + JITTER))
            try:
                await self.look(hub)
            except (*STORE_ERRORS, *DATABASE_ERRORS) as error:
                logger.warning("turn-based games not looked at (%s)", type(error).__name__)

    async def look(self, hub: Committed) -> None:
        """Wake the games due, then park the idle ones."""
        now = time.time()
        park_after = self._service.settings.park_after_seconds
        due = await self._archive.due(now, unparked_before=now - UNPARKED_LAG_SECONDS, limit=BATCH)
        for code in due:
            await self._guarded(self.wake(code, hub), code)
        idle = await self._archive.idle(now - park_after, quiet_until=now + park_after, limit=BATCH)
        for code in idle:
            await self._guarded(self.park(code), code)

    async def _guarded(self, work: Awaitable[object], code: str) -> None:
        """Run one room's work; its failure is logged and the look goes on with the next."""
        try:
            await work
        except (*STORE_ERRORS, *DATABASE_ERRORS) as error:
            logger.warning(
                "turn-based game not handled (%s)", type(error).__name__, extra={"room": code}
            )
        except Exception:
            logger.exception("turn-based game not handled", extra={"room": code})

    async def wake(self, code: str, hub: Committed) -> None:
        """Do what is due in the room, brought back into the store if it was parked. When
        nothing was (woken early: the database's wake time was an older version's), the
        database is told the room's own."""
        woken = await self._due.wake(code)
        if woken.room is not None:
            hub.committed(woken.room)
        elif woken.claimed:
            room = await self._service.load(code)
            if room is not None:
                await self._service.keep_turn(room)

    async def park(self, code: str) -> bool:
        """Park the room if nobody looks at it: its database copy made current and marked
        parked with its chat lines, then the room taken out of the store if it is still at
        that version with no line said since. A process that dies between the two (or a line
        said meanwhile) leaves the room in the store and parked in the database: nothing is
        lost, and its next commit marks it unparked again. True when parked."""
        service = self._service
        room = await service.load(code)
        if room is None:
            return False
        now = time.time()
        settings = service.settings
        wake_at = room.wake_at(settings.disconnect_grace_seconds, settings.seat_open_seconds)
        if not parkable(room, now=now, wake_at=wake_at, park_after=settings.park_after_seconds):
            await service.keep_turn(room)  # the database's idle time was an older version's
            return False
        await service.keep_turn(room)
        chat = await service.store.chat_lines(code)
        if not await self._archive.park(code, version=room.version, now=now, chat=chat):
            return False
        if not await service.store.drop(code, version=room.version, chat=chat):
            return False
        logger.info("room parked", extra={"room": code})
        return True
