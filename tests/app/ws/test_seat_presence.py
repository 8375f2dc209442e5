"""A seat's devices on several processes: a departure is committed only once no process that
is serving still serves a device of the seat (``app/ws/seat_presence.py``). Two processes that
share a store are two ``SeatPresence`` on one store here; the end-to-end case, two servers on
Redis, is in ``tests/app/rooms/test_shared_rooms.py``."""

from __future__ import annotations

from app.store.memory import MemoryRoomStore
from app.ws.seat_presence import SERVING_SECONDS, SeatPresence


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


async def _two(store: MemoryRoomStore) -> tuple[SeatPresence, SeatPresence]:
    here, there = SeatPresence(store), SeatPresence(store)
    for presence in (here, there):
        await presence.serve()
        await presence.arrived("ABCDEF", "seat-hash")
    return here, there


async def test_the_first_of_two_processes_to_lose_its_device_leaves_the_seat_to_the_other() -> None:
    here, there = await _two(MemoryRoomStore())
    assert await here.served_elsewhere("ABCDEF", "seat-hash")
    # Here took its own mark off before it looked: there, losing its device next, is the last.
    assert not await there.served_elsewhere("ABCDEF", "seat-hash")


async def test_a_device_of_another_seat_or_room_elsewhere_does_not_count() -> None:
    store = MemoryRoomStore()
    here, there = await _two(store)
    await there.arrived("ABCDEF", "other-seat")
    await there.arrived("GHIJKL", "seat-hash")
    await there.served_elsewhere("ABCDEF", "seat-hash")
    assert not await here.served_elsewhere("ABCDEF", "seat-hash")


async def test_a_process_that_stopped_serves_nothing() -> None:
    here, there = await _two(MemoryRoomStore())
    await there.stop(seconds=1)
    assert not await here.served_elsewhere("ABCDEF", "seat-hash")


async def test_a_process_that_died_serves_nothing_once_its_mark_runs_out() -> None:
    clock = Clock()
    store = MemoryRoomStore(clock=clock)
    here, _there = await _two(store)
    clock.now += SERVING_SECONDS - 1
    await here.arrived("ABCDEF", "seat-hash")
    assert await here.served_elsewhere("ABCDEF", "seat-hash"), "there's mark still lasts"
    clock.now += 2  # there never renewed its mark
    await here.serve()
    await here.arrived("ABCDEF", "seat-hash")
    assert not await here.served_elsewhere("ABCDEF", "seat-hash")


async def test_a_process_that_renews_its_mark_still_serves() -> None:
    clock = Clock()
    store = MemoryRoomStore(clock=clock)
    here, there = await _two(store)
    for _ in range(3):
        clock.now += SERVING_SECONDS - 1
        await there.serve()
    assert await here.served_elsewhere("ABCDEF", "seat-hash")
