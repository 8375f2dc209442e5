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
