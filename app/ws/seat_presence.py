"""Which processes serve a seat's devices, over all the processes that share the store.

A person may have a device on each of two processes (a phone and a laptop, and nothing that
sends one room's connections to one process). When the device on one process leaves, that
process must not mark the seat gone while another process still serves the other device: it
did, and the other process marked the seat back as soon as it saw that commit, so the table
saw the person leave and come back, and each such departure cost two commits.

Each process marks in the store the seats whose devices it serves, as each device arrives, and
says that it is serving, a mark it renews every ``SERVING_RENEW_SECONDS`` for
``SERVING_SECONDS``. Before it commits a departure, a process takes its own mark off the seat
and looks for the mark of another process that is serving. Of two processes whose devices of
one seat leave at once, at least one finds the other's mark gone (each takes its own off
before it looks), so the seat is marked gone once both have left. A process that stops takes
its serving mark off; one that dies stops renewing it, and within ``SERVING_SECONDS`` its marks
on seats count for nothing. Whatever this misses (the store failing, a device connected for
longer than ``PRESENT_SECONDS``) ends as before: the seat is marked gone, and the process that
still serves a device marks it back (``Hub._fan_out``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid

from app.store.base import STORE_ERRORS, RoomStore

logger = logging.getLogger(__name__)

SERVING = "serving"
"""The store's set of the processes serving now (``RoomStore.hold_place``)."""
SERVING_SECONDS = 30.0
"""How long a process's serving mark lasts unless it is renewed."""
SERVING_RENEW_SECONDS = 10.0
"""How often a process renews its serving mark."""
PRESENT_SECONDS = 86_400.0
"""How long a process's mark on a seat lasts from the arrival of the device it serves."""


def _seat_key(code: str, token_hash: str) -> str:
    return f"present:{code}:{token_hash}"


class SeatPresence:
    """This process's marks, in the store, on the seats whose devices it serves."""

    def __init__(self, store: RoomStore) -> None:
        self._store = store
        self.process = uuid.uuid4().hex
        """This process's name among those sharing the store."""

    async def arrived(self, code: str, token_hash: str) -> None:
        """A device of the seat is connected here."""
        await self._store.hold_place(
            _seat_key(code, token_hash), self.process, seconds=PRESENT_SECONDS
        )

    async def served_elsewhere(self, code: str, token_hash: str) -> bool:
        """Whether another process serving now serves a device of the seat, once this one
        has taken its own mark off (no device of the seat is connected here any more)."""
        key = _seat_key(code, token_hash)
        await self._store.free_place(key, self.process)
        others = await self._store.places(key)
        if not others:
            return False
        return not set(await self._store.places(SERVING)).isdisjoint(others)

    async def serve(self) -> None:
        """Say that this process is serving, for ``SERVING_SECONDS``."""
        await self._store.hold_place(SERVING, self.process, seconds=SERVING_SECONDS)

    async def keep_serving(self) -> None:
        """Renew the serving mark for as long as the process runs."""
        while True:
            try:
                await self.serve()
            except STORE_ERRORS as error:
                logger.warning("serving mark not renewed (%s)", type(error).__name__)
            await asyncio.sleep(SERVING_RENEW_SECONDS)

    async def stop(self, *, seconds: float) -> None:
        """Take the serving mark off, within ``seconds``: this process's marks on seats count
        for nothing now (else once the mark runs out)."""
        with contextlib.suppress(TimeoutError, *STORE_ERRORS):
            async with asyncio.timeout(seconds):
                await self._store.free_place(SERVING, self.process)
