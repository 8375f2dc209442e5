"""The clock that sweeps a store (``Sweeper``): it sweeps while started, only once
however often it is started, and never after it is closed."""

from __future__ import annotations

import asyncio

from app.store.expiring import Sweeper


async def test_the_sweeper_sweeps_on_its_clock_until_closed() -> None:
    sweeps: list[None] = []
    swept_twice = asyncio.Event()

    def sweep() -> None:
        sweeps.append(None)
        if len(sweeps) == 2:
            swept_twice.set()

    sweeper = Sweeper(sweep, seconds=0.01)
    await sweeper.start()
    async with asyncio.timeout(5):
        await swept_twice.wait()
    await sweeper.close()
    after_close = len(sweeps)
    await asyncio.sleep(0.05)  # several periods: a clock still running would sweep again
    assert len(sweeps) == after_close


async def test_starting_twice_keeps_one_clock() -> None:
    tasks_before = len(asyncio.all_tasks())
    sweeper = Sweeper(lambda: None, seconds=60)
    await sweeper.start()
    await sweeper.start()
    assert len(asyncio.all_tasks()) == tasks_before + 1
    await sweeper.close()
    assert len(asyncio.all_tasks()) == tasks_before


async def test_a_sweeper_never_started_closes_and_never_sweeps() -> None:
    sweeps: list[None] = []
    sweeper = Sweeper(lambda: sweeps.append(None), seconds=0.01)
    await sweeper.close()
    await asyncio.sleep(0.03)
    assert sweeps == []


async def test_an_async_sweep_is_awaited_on_each_tick() -> None:
    """The Redis room store's sweep is a coroutine: each one runs to its end before the next."""
    finished: list[None] = []
    running = 0
    overlapped = False
    swept_twice = asyncio.Event()

    async def sweep() -> None:
        nonlocal running, overlapped
        running += 1
        overlapped = overlapped or running > 1
        await asyncio.sleep(0.02)  # longer than the clock's period
        running -= 1
        finished.append(None)
        if len(finished) == 2:
            swept_twice.set()

    sweeper = Sweeper(sweep, seconds=0.005)
    await sweeper.start()
    async with asyncio.timeout(5):
        await swept_twice.wait()
    await sweeper.close()
    assert not overlapped
