"""The lean queue and event (``app/transport/lean.py``) behave as asyncio's do where the
connections use them."""

from __future__ import annotations

import asyncio

import pytest

from app.transport.lean import LeanEvent, LeanQueue


async def test_the_queue_gives_items_in_order_and_wakes_a_waiting_getter() -> None:
    queue: LeanQueue[int] = LeanQueue()
    assert queue.empty() and queue.qsize() == 0
    getter = asyncio.create_task(queue.get())
    await asyncio.sleep(0)
    assert not getter.done()
    queue.put_nowait(1)
    queue.put_nowait(2)
    assert await getter == 1
    assert queue.qsize() == 1
    assert await queue.get() == 2
    assert queue.empty()


async def test_the_queue_refuses_past_its_size() -> None:
    queue: LeanQueue[str] = LeanQueue(2)
    queue.put_nowait("a")
    queue.put_nowait("b")
    with pytest.raises(asyncio.QueueFull):
        queue.put_nowait("c")
    assert [await queue.get(), await queue.get()] == ["a", "b"]


async def test_two_getters_each_get_one_item() -> None:
    queue: LeanQueue[int] = LeanQueue()
    first, second = asyncio.create_task(queue.get()), asyncio.create_task(queue.get())
    await asyncio.sleep(0)
    queue.put_nowait(1)
    queue.put_nowait(2)
    assert sorted(await asyncio.gather(first, second)) == [1, 2]


async def test_a_getter_cancelled_as_it_is_woken_leaves_the_item_to_the_next() -> None:
    queue: LeanQueue[int] = LeanQueue()
    first = asyncio.create_task(queue.get())
    second = asyncio.create_task(queue.get())
    await asyncio.sleep(0)
    queue.put_nowait(7)  # wakes the first...
    first.cancel()  # ...which is cancelled before it runs
    assert await second == 7
    with pytest.raises(asyncio.CancelledError):
        await first
    assert queue.empty()


async def test_a_cancelled_getter_leaves_the_queue_as_it_was() -> None:
    queue: LeanQueue[int] = LeanQueue()
    getter = asyncio.create_task(queue.get())
    await asyncio.sleep(0)
    getter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await getter
    queue.put_nowait(3)
    assert await queue.get() == 3


async def test_the_event_wakes_every_waiter_and_stays_set_until_cleared() -> None:
    event = LeanEvent()
    assert not event.is_set()
    waiters = [asyncio.create_task(event.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    assert not any(waiter.done() for waiter in waiters)
    event.set()
    assert await asyncio.gather(*waiters) == [True, True, True]
    assert event.is_set() and await event.wait()
    event.clear()
    late = asyncio.create_task(event.wait())
    await asyncio.sleep(0)
    assert not late.done()
    event.set()
    assert await late
