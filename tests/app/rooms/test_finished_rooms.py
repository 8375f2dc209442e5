"""A finished game stays in its room until the database has it, however long that takes."""

from __future__ import annotations

import logging
import random
import time

import pytest

from tests.app.conftest import MakeSettings
from tests.app.live import bearer, connect_client, create_room, live_server, play_out


async def test_a_finished_game_waits_in_the_room_until_it_is_recorded(
    make_settings: MakeSettings, caplog: pytest.LogCaptureFixture
) -> None:
    """While the database is down the room keeps the game and tries again; each failed try is
    one warning line, without a traceback (an outage is expected, not a fault in the code)."""
    caplog.set_level(logging.INFO, logger="app.rooms.due")
    async with live_server(make_settings()) as live, live.http() as http:
        live.recorder.fail = True
        code, host = await create_room(http, seats=2)
        await http.post(f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(host))
        ann = await connect_client(live, code, host)
        await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        await play_out(ann, 0, random.Random(8))
        while live.recorder.attempts == 0:
            await live.recorder.attempted()

        room = await live.runtime.service.load(code)
        assert room is not None and room.game is not None
        assert [game.game_id for game in room.unrecorded] == [room.game.id]
        assert room.next_record_at is not None and room.next_record_at > time.time() - 1
        failures = [r for r in caplog.records if r.getMessage().startswith("recording game")]
        assert failures
        assert all(r.levelno == logging.WARNING and r.exc_info is None for r in failures)
        assert "ConnectionError" in failures[0].getMessage()

        live.recorder.fail = False
        recorded = await live.recorder.game(room.game.id)
        assert recorded.totals == room.game.totals
        settled = await live.runtime.service.load(code)
        assert settled is not None
        await ann.close()
    assert live.recorder.attempts >= 2
