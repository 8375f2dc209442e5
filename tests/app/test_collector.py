"""A tuned server process collects its young generation on a clock, not by allocation counts,
and the older ones only in the clock's rare full collection."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from typing import Any

import pytest

from app import collector


async def test_the_clock_collects_young_and_now_and_then_whole_generations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(collector, "YOUNG_SECONDS", 0.01)
    monkeypatch.setattr(collector, "FULL_EVERY", 4)
    generations: list[int] = []

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            generations.append(info["generation"])

    thresholds = gc.get_threshold()
    gc.set_threshold(*collector.THRESHOLDS)  # as a tuned process: no full one but the clock's
    gc.callbacks.append(seen)
    clock = asyncio.create_task(collector.collect_on_a_clock())
    try:
        # A full collection of this test process's heap may take a while: counted, not timed.
        for _ in range(1000):
            if generations.count(2) >= 2:
                break
            await asyncio.sleep(0.01)
    finally:
        clock.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await clock
        gc.callbacks.remove(seen)
        gc.set_threshold(*thresholds)
    assert generations.count(2) >= 2, "no full collection came"
    # Before the second full one, at least the clock's three young ones between the two
    # (allocations may add young ones of their own).
    second = [index for index, generation in enumerate(generations) if generation == 2][1]
    assert generations[:second].count(0) >= 3 + 3


def test_no_count_of_collections_or_allocations_walks_the_older_generations() -> None:
    """Past the clock's young collections, allocations bring young collections only: what
    outlived one is walked by the clock's full collection alone (``FULL_EVERY``)."""
    generations: list[int] = []

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            generations.append(info["generation"])

    thresholds = gc.get_threshold()
    gc.set_threshold(*collector.THRESHOLDS)
    gc.callbacks.append(seen)
    try:
        for _ in range(100):  # ten seconds of the clock's young collections
            gc.collect(0)
        # Kept alive until all are made: the threshold counts allocations less deallocations.
        kept = [[] for _ in range(5 * collector.THRESHOLDS[0])]
        del kept
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*thresholds)
    assert set(generations) == {0}, "a count walked an older generation"
    assert generations.count(0) >= 100 + 4, "the allocations brought no young collection"
