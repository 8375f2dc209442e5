"""The garbage collector's settings for a server process holding thousands of connections."""

from __future__ import annotations

import asyncio
import gc

THRESHOLDS = (20_000, 1_000_000_000, 1_000_000_000)
"""Allocations before a young collection; the middle and old generations are never collected
by counts, only by the clock (``FULL_EVERY``). CPython's defaults are (700, 10, 10). With
young collections on the clock the allocation count seldom reaches its threshold."""

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
FULL_EVERY = 36_000
"""Young collections on the clock between two full ones (every hour). What outlives a young
collection is not walked again until then: in play it is every room's current copy and each
connection's objects, and no garbage. Middle collections by counts, measured every five
minutes, found next to nothing in play (six of seven freed 0 objects at 1,000 rooms and 500
moves/s) and walked 80,000-170,000 live objects each time, stalling every room for 20-170 ms:
none run. The cyclic garbage that would reach them, every connection that ended (about 50
objects each, with its deflate state and transport), is freed as it ends
(``tests/app/transport/test_connections_freed.py``). The full collection is the backstop for
whatever else (a few dozen objects every two seconds in a soak): 0.3-0.5 s at 1,000 rooms and
4,000 connections (``docs/performance.md``, "Memory per connection, and the collector")."""

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
    """Young collections every ``YOUNG_SECONDS``, a full one every ``FULL_EVERY`` of them; for
    as long as the process serves."""
    young = 0
    while True:
        await asyncio.sleep(YOUNG_SECONDS)
        young += 1
        gc.collect(2 if young % FULL_EVERY == 0 else 0)
