"""A tuned server process collects its young generation on a clock, not by allocation counts."""

from __future__ import annotations

import asyncio
import contextlib
import gc
from typing import Any

import pytest

from app import collector


async def test_the_clock_collects_young_and_now_and_then_middle_generations(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(collector, "YOUNG_SECONDS", 0.01)
    monkeypatch.setattr(collector, "MIDDLE_EVERY", 4)
    generations: list[int] = []

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            generations.append(info["generation"])

    gc.callbacks.append(seen)
    clock = asyncio.create_task(collector.collect_on_a_clock())
    try:
        await asyncio.sleep(0.3)
    finally:
        clock.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await clock
        gc.callbacks.remove(seen)
    # Most are the clock's own (allocations may add a few of their own, of any generation).
    assert generations.count(0) >= 10
    assert generations.count(1) >= 2


async def test_a_wave_of_connections_brings_a_middle_collection_forward(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A thousand connections opened are walked by a middle collection soon after they
    arrive, not all at once with the next wave's at the clock's next one."""
    monkeypatch.setattr(collector, "YOUNG_SECONDS", 0.01)
    monkeypatch.setattr(collector, "MIDDLE_EVERY", 10**9)
    monkeypatch.setattr(collector, "WAVE", 3)
    monkeypatch.setattr(collector, "_arrivals", 0)
    thresholds = gc.get_threshold()
    gc.set_threshold(10**9)  # no collection of the allocations' own meanwhile
    middles: list[int] = []

    def seen(phase: str, info: dict[str, Any]) -> None:
        if phase == "start" and info["generation"] == 1:
            middles.append(1)

    gc.callbacks.append(seen)
    clock = asyncio.create_task(collector.collect_on_a_clock())
    try:
        await asyncio.sleep(0.1)
        before = len(middles)
        for _ in range(2):
            collector.arrived()
        await asyncio.sleep(0.1)
        assert len(middles) == before, "two connections are not a wave"
        collector.arrived()
        await asyncio.sleep(0.1)
        assert len(middles) == before + 1
    finally:
        clock.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await clock
        gc.callbacks.remove(seen)
        gc.set_threshold(*thresholds)
