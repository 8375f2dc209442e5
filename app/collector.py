"""The garbage collector's settings for a server process holding thousands of connections."""

from __future__ import annotations

import gc

THRESHOLDS = (20_000, 5, 50)
"""Allocations before a young collection, and young (then middle) collections before the
next older one; CPython's defaults are (700, 10, 10). The middle threshold is low so that a
wave of connections (about 190 objects each) reaches the old generation while it arrives, in
middle collections of 70-110 ms, rather than all at once in the first one during play: with
50, that one walked 4,000 connections' objects and stalled every room for 640 ms. The price:
a full collection (about 0.6 s over 4,000 connections) may come after 50 middle ones, at
500 moves/s at most every 2-5 hours instead of every day or two."""


def tune() -> None:
    """Call once, after importing and before serving. What importing built (modules, schemas)
    lives as long as the process: it is kept out of every collection. Thousands of connections
    make a heap of ~200 objects each that a full collection walks in 0.5-1 s, stalling every
    room at once; young collections, rarer and larger, find the cyclic garbage (2,000 objects
    a pass under load) before it reaches the old generation, so full passes are rare too."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
