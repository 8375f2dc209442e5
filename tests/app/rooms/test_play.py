"""Whole games over real WebSockets, with the memory store and with Redis."""

from __future__ import annotations

import asyncio
import random

from tests.app.conftest import MakeSettings
from tests.app.live import bearer, connect_client, create_room, live_server, play_out


async def test_two_people_and_an_ai_play_a_whole_game_and_it_is_recorded(
    make_settings: MakeSettings,
) -> None:
    async with live_server(make_settings()) as live, live.http() as http:
        code, host_token = await create_room(http, seats=3, rules="advanced", spectators=True)
        joined = await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
        assert joined.status_code == 200
        bob_seat, bob_token = joined.json()["seat"], joined.json()["token"]
        bot = await http.post(
            f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(host_token)
        )
        assert bot.json() == {"seat": 2}
        ann = await connect_client(live, code, host_token)
        bob = await connect_client(live, code, bob_token)
        spectator = await connect_client(live, code)
        for client in (ann, bob, spectator):
            await client.wait_for("room")

        started = await http.post(f"/api/rooms/{code}/start", headers=bearer(host_token))
        assert started.status_code == 200
        assert started.json()["status"] == "playing"

        # The spectator reads as the game goes: a reader that falls a queue behind is dropped
        # (1013), now that the kernel no longer buffers megabytes for it.
        ann_end, bob_end, watched = await asyncio.gather(
            play_out(ann, 0, random.Random(1)),
            play_out(bob, bob_seat, random.Random(2)),
            spectator.game_over(),
        )
        assert ann_end["version"] == bob_end["version"] == watched["version"]
        assert ann_end["view"]["seat"] == 0 and watched["view"]["seat"] is None
        assert watched["view"]["hand"] == [] and watched["legal"] == []

        summary = (await http.get(f"/api/rooms/{code}")).json()
        assert summary["status"] == "finished"
        game_id = summary["game"]["id"]
        assert summary["game"]["winners"]
        await ann.room_until(lambda room: room["game"]["over"])

        recorded = await live.recorder.game(game_id)
        assert [player.name for player in recorded.players] == ["Ann", "Bob", "Easy Bot"]
        assert [player.ai_level for player in recorded.players] == [None, None, "easy"]
        assert recorded.config["players"] == 3 and "seed" in recorded.config
        assert recorded.winners == summary["game"]["winners"]
        assert all(action["seat"] in (0, 1, 2) for action in recorded.actions)

        rematch = await http.post(f"/api/rooms/{code}/rematch", headers=bearer(host_token))
        assert rematch.status_code == 200
        assert rematch.json()["game"]["id"] != game_id
        fresh = await ann.wait_for("state", lambda m: not m["view"]["over"])
        assert len(fresh["view"]["hand"]) == 6
        for client in (ann, bob, spectator):
            await client.close()
