"""The garbage collector's settings for a server process holding thousands of connections."""

from __future__ import annotations

import asyncio
import gc

THRESHOLDS = (20_000, 5, 50)
"""Allocations before a young collection, and young (then middle) collections before the
next older one; CPython's defaults are (700, 10, 10). With young collections on the clock the
allocation count rarely reaches its threshold, so these seldom act: middle collections come
from the clock (``MIDDLE_EVERY``, ``WAVE``). A full collection (about 0.6 s over 4,000
connections) may come after 50 middle ones, at 500 moves/s at most every 2-5 hours."""

YOUNG_SECONDS = 0.1
"""How often a tuned process collects its young generation, whatever its allocations say.
The threshold counts allocations less deallocations, and a move mostly replaces objects: a
room's new copy survives while its last copy, older, is freed. So at 500 moves/s the count
crept up, young collections came every 15-70 s and each walked every object that had
survived since the last, for 30-110 ms; every room waited meanwhile, and at 80% of a core the
backlog took half a second to clear. On a clock, each walks a tenth of a second's survivors:
at 500 moves/s, 3.0 ms on average (every half second: 13 ms; every quarter: 6.7), for the
same CPU in all (0.9 s of collection in 30 s), and the p99 of a 30 s step at 500/s 29 ms
(49 ms with a quarter second: after each longer pause the queue took longer to clear)."""
MIDDLE_EVERY = 3000
"""Young collections on the clock between two middle ones (every five minutes). A middle
collection walks everything that survived a young one and still lives (every room's current
copy, the connections made since): rarely, so that its pause is rare too."""
WAVE = 1000
"""Connections opened since the last middle collection that bring the next one forward. A
connection leaves about 190 objects that outlive young collections, and they wait in the
middle generation for the next middle collection: after a wave (every client coming back
after a restart) the clock's one walked all of them at once, 4,000 connections in 530-770 ms
with every room stalled (``docs/performance.md``, round fifteen). Taken a thousand at a time,
as they arrive, each walk is a quarter of that."""

_arrivals = 0

_tuned = False


def tune() -> None:
    """Call once, after importing and before serving. What importing built (modules, schemas)
    lives as long as the process: it is kept out of every collection. Thousands of connections
    make a heap of ~200 objects each that a full collection walks in 0.5-1 s, stalling every
    room at once; young collections, on a clock (``collect_on_a_clock``), find the cyclic
    garbage before it reaches the old generation, so full passes are rare too."""
    global _tuned
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    _tuned = True


def tuned() -> bool:
    return _tuned


def arrived() -> None:
    """A connection was opened (``WAVE``)."""
    global _arrivals
    _arrivals += 1


async def collect_on_a_clock() -> None:
    """Young collections every ``YOUNG_SECONDS``, a middle one every ``MIDDLE_EVERY`` of them
    and after every ``WAVE`` connections opened; for as long as the process serves."""
    global _arrivals
    young = 0
    while True:
        await asyncio.sleep(YOUNG_SECONDS)
        young += 1
        middle = young % MIDDLE_EVERY == 0 or _arrivals >= WAVE
        if middle:
            _arrivals = 0
        gc.collect(1 if middle else 0)
