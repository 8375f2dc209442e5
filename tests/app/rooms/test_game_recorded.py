"""The room summary's ``game.recorded`` turns true once the finished game is in the database,
and a ``room`` message says so: the client asks ``GET /api/games/{id}`` only then."""

from __future__ import annotations

import random

import engine
from app.rooms import play
from app.rooms.model import Room
from app.rooms.public import room_public
from app.ws.snapshot import Snapshot
from tests.app.conftest import MakeSettings
from tests.app.live import bearer, connect_client, create_room, live_server, play_out
from tests.app.tables import people, started_room


def finished_room(seed: int) -> Room:
    """A two-seat room played to its end with random legal actions."""
    room, rng = started_room(people(2), seed=seed), random.Random(seed)
    while room.status == "playing":
        action = rng.choice(engine.legal_actions(room.engine_state()))
        room = play.apply(room, seat=action["seat"], action=action, now=2.0, mover="player")
        room.version += 1
    return room


def test_a_finished_game_is_recorded_once_the_room_no_longer_holds_it() -> None:
    playing = started_room(people(2), seed=4)
    assert room_public(playing).game is not None
    assert not room_public(playing).game.recorded

    finished = finished_room(4)
    assert [game.game_id for game in finished.unrecorded] == ["g"]
    summary = room_public(finished).game
    assert summary is not None and summary.over and not summary.recorded

    stored = finished.clone()
    stored.unrecorded = []
    summary = room_public(stored).game
    assert summary is not None and summary.recorded
    assert Snapshot(stored).room_summary != Snapshot(finished).room_summary

    rematch = play.start(stored, seed=5, game_id="h", now=3.0)
    rematch.unrecorded = list(finished.unrecorded)  # the last game's record may still be due
    summary = room_public(rematch).game
    assert summary is not None and summary.id == "h" and not summary.recorded


async def test_a_room_message_says_when_the_game_is_recorded(make_settings: MakeSettings) -> None:
    async with live_server(make_settings()) as live, live.http() as http:
        live.recorder.fail = True
        code, host = await create_room(http, seats=2, rules="simple")
        await http.post(f"/api/rooms/{code}/bots", json={"level": "easy"}, headers=bearer(host))
        ann = await connect_client(live, code, host)
        await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        await ann.wait_for("state")
        await play_out(ann, 0, random.Random(8))

        over = await ann.room_until(lambda room: room["game"]["over"])
        assert not over["game"]["recorded"]
        await live.recorder.attempted()
        assert not (await http.get(f"/api/rooms/{code}")).json()["game"]["recorded"]

        live.recorder.fail = False
        recorded = await ann.room_until(lambda room: room["game"]["recorded"])
        assert recorded["game"]["id"] in [game.game_id for game in live.recorder.games]
        assert (await http.get(f"/api/rooms/{code}")).json()["game"]["recorded"]
        await ann.close()
