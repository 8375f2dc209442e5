"""A finished game stays in its room until the database has it, however long that takes."""

from __future__ import annotations

import random
import time

from tests.app.conftest import MakeSettings
from tests.app.live import bearer, connect_client, create_room, live_server, play_out


async def test_a_finished_game_waits_in_the_room_until_it_is_recorded(
    make_settings: MakeSettings,
) -> None:
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

        live.recorder.fail = False
        recorded = await live.recorder.game(room.game.id)
        assert recorded.totals == room.game.totals
        settled = await live.runtime.service.load(code)
        assert settled is not None
        await ann.close()
    assert live.recorder.attempts >= 2
