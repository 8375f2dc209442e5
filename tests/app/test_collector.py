"""A tuned server process freezes what it holds on a clock, so that no collection walks it,
and collects the whole heap only in the clock's rare full collection."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import weakref
from collections.abc import Callable
from typing import Any

import pytest

from app import collector


class _Cycle:
    def __init__(self) -> None:
        self.itself = self


def _cyclic_garbage() -> weakref.ref[_Cycle]:
    """An object only a reference cycle keeps: garbage that reference counts never free."""
    return weakref.ref(_Cycle())


async def _until(holds: Callable[[], bool]) -> None:
    for _ in range(1000):
        if holds():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not within ten seconds")


async def test_the_clock_freezes_what_there_is_and_now_and_then_collects_the_whole_heap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once frozen, cyclic garbage is out of every collection's sight, however full, until
    the clock's own full collection (``FULL_EVERY``) frees it; the clock freezes on after it."""
    monkeypatch.setattr(collector, "FREEZE_SECONDS", 0.01)
    monkeypatch.setattr(collector, "FULL_EVERY", 20)
    freezes = 0
    freeze = gc.freeze

    def counted() -> None:
        nonlocal freezes
        freezes += 1
        freeze()

    monkeypatch.setattr(gc, "freeze", counted)
    fulls: list[int] = []

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and info["generation"] == 2:
            fulls.append(freezes)

    frozen_before = gc.get_freeze_count()
    thresholds = gc.get_threshold()
    gc.set_threshold(*collector.THRESHOLDS)  # as a tuned process: no full one but the clock's
    garbage = _cyclic_garbage()
    clock = asyncio.create_task(collector.collect_on_a_clock())
    try:
        await _until(lambda: freezes >= 1)
        gc.collect()
        assert garbage() is not None, "a collection walked what the clock froze"
        gc.callbacks.append(seen)
        await _until(lambda: garbage() is None)
        await _until(lambda: freezes > collector.FULL_EVERY)
    finally:
        clock.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await clock
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(seen)
        gc.set_threshold(*thresholds)
        if not frozen_before:
            gc.unfreeze()  # the rest of the tests' process as it was
    # The garbage went in the clock's full collection, at its FULL_EVERY-th tick, whose
    # freezing follows it.
    assert fulls[:1] == [collector.FULL_EVERY - 1], fulls


def test_no_count_of_collections_or_allocations_walks_the_older_generations() -> None:
    """Allocations bring young collections only: what outlived one is walked by the clock's
    full collection alone (``FULL_EVERY``)."""
    generations: list[int] = []

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            generations.append(info["generation"])

    thresholds = gc.get_threshold()
    gc.set_threshold(*collector.THRESHOLDS)
    gc.callbacks.append(seen)
    try:
        for _ in range(100):
            gc.collect(0)
        # Kept alive until all are made: the threshold counts allocations less deallocations.
        kept = [[] for _ in range(5 * collector.THRESHOLDS[0])]
        del kept
    finally:
        gc.callbacks.remove(seen)
        gc.set_threshold(*thresholds)
    assert set(generations) == {0}, "a count walked an older generation"
    assert generations.count(0) >= 100 + 4, "the allocations brought no young collection"
