"""The garbage collector's settings for a server process holding thousands of connections."""

from __future__ import annotations

import asyncio
import gc

THRESHOLDS = (20_000, 5, 50)
"""Allocations before a young collection, and young (then middle) collections before the
next older one; CPython's defaults are (700, 10, 10). The middle threshold is low so that a
wave of connections (about 190 objects each) reaches the old generation while it arrives, in
middle collections of 70-110 ms, rather than all at once in the first one during play: with
50, that one walked 4,000 connections' objects and stalled every room for 640 ms. The price:
a full collection (about 0.6 s over 4,000 connections) may come after 50 middle ones, at
500 moves/s at most every 2-5 hours instead of every day or two."""

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


async def collect_on_a_clock() -> None:
    """Young collections every ``YOUNG_SECONDS``, a middle one every ``MIDDLE_EVERY`` of them;
    for as long as the process serves."""
    young = 0
    while True:
        await asyncio.sleep(YOUNG_SECONDS)
        young += 1
        gc.collect(1 if young % MIDDLE_EVERY == 0 else 0)
