"""A server process's runtime, given where turn-based games are kept, parks the games nobody
looks at on its own clock and brings them back when asked."""

from __future__ import annotations

import asyncio
import random

import pytest

from app.rooms.scheduler import Committed
from app.runtime import running, store_for
from tests.app.live import ListRecorder
from tests.app.turns.conftest import World, move, turn_table

WAIT_SECONDS = 10.0


async def test_the_runtime_parks_an_idle_turn_based_game_and_a_move_brings_it_back(
    world: World,
) -> None:
    settings = world.settings.model_copy(
        update={"park_after_seconds": 0.2, "turn_poll_seconds": 0.05}
    )
    store = world.shared_store or store_for(settings)
    async with running(settings, store=store, recorder=ListRecorder(), turns=world.archive) as rt:
        table = await turn_table(rt.service)
        made = await move(rt.service, table, random.Random(1))
        async with asyncio.timeout(WAIT_SECONDS):
            while await rt.service.store.load(table.code) is not None:
                world.clock.advance(0.1)
                await asyncio.sleep(0.05)
        archived = await world.archive.room(table.code)
        assert archived is not None and archived.parked and archived.version == made.version

        moved = await move(rt.service, table, random.Random(1))
        assert moved.version == made.version + 1
        assert await rt.service.store.load(table.code) is not None


async def test_the_keepers_waits_leave_the_shared_random_generator_alone(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keeper jitters its waits with a generator of its own. With the module's shared one,
    a server run in a thread beside Hypothesis (``tests/app/ws/test_ws_fuzz.py``) changed it
    while Hypothesis drew an example, which Hypothesis reports as a strategy's misuse."""
    settings = world.settings.model_copy(update={"turn_poll_seconds": 0.001})
    process = await world.process()
    process.service.settings = settings
    looks = 0
    looked_enough = asyncio.Event()

    async def look(hub: Committed) -> None:
        nonlocal looks
        looks += 1
        if looks == 5:
            looked_enough.set()

    monkeypatch.setattr(process.keeper, "look", look)
    before = random.getstate()
    keeping = asyncio.create_task(process.keeper.run(process.hub))
    try:
        async with asyncio.timeout(WAIT_SECONDS):
            await looked_enough.wait()
    finally:
        keeping.cancel()
    assert random.getstate() == before
