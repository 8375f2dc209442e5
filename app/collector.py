"""The garbage collector's settings for a server process holding thousands of connections."""

from __future__ import annotations

import asyncio
import gc

THRESHOLDS = (20_000, 1_000_000_000, 1_000_000_000)
"""Allocations before a young collection; the middle and old generations are never collected
by counts, only by the clock (``FULL_EVERY``). CPython's defaults are (700, 10, 10). Each
freeze on the clock sets the count back to zero, so it seldom reaches its threshold."""

FREEZE_SECONDS = 0.1
"""How often a tuned process moves every object the collector tracks out of its sight
(``gc.freeze``: it links two lists and walks nothing). What a server allocates and keeps
(every room's new copy and engine state, its connections and caches) outlives any young
collection, and collections in play find almost no garbage in it; young collections on this
clock walked each of those objects once, and their pauses, every tenth of a second, were most
of the p99 under load (``docs/performance.md``, "Memory per connection, and the collector").
The rare cyclic garbage waits for the full collection (``FULL_EVERY``)."""
FULL_EVERY = 36_000
"""Freezes on the clock between two full collections (every hour): the whole heap unfrozen,
collected and frozen again, the objects made at import among them, in one pause. It frees
the hour's cyclic garbage, a few dozen objects a second: every connection that ended is freed
as it ends, by its references (about 50 objects each, with its deflate state and transport;
``tests/app/transport/test_connections_freed.py``). No collection of the middle generation
runs: by counts they found next to nothing in play and stalled every room."""

_tuned = False


def tune() -> None:
    """Call once, after importing and before serving. What importing built (modules, schemas)
    lives as long as the process: it is frozen out of every collection but the clock's full
    ones (``collect_on_a_clock``). Thousands of connections make a heap of ~200 objects each
    that a full collection walks in 0.5-1 s, stalling every room at once: no count of
    allocations starts one."""
    global _tuned
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    _tuned = True


def tuned() -> bool:
    return _tuned


async def collect_on_a_clock() -> None:
    """Everything tracked frozen every ``FREEZE_SECONDS``, and every ``FULL_EVERY`` of them
    a full collection of the whole heap first; for as long as the process serves."""
    ticks = 0
    while True:
        await asyncio.sleep(FREEZE_SECONDS)
        ticks += 1
        if ticks % FULL_EVERY == 0:
            gc.unfreeze()
            gc.collect(2)
        gc.freeze()
