"""Clocks and take-over: a timeout is played by the AI; two in a row, or a long absence, hand
the seat to the AI until its player is back."""

from __future__ import annotations

import random
import time

from app.rooms.model import Room
from app.runtime import Runtime
from tests.app.conftest import MakeSettings
from tests.app.live import Client, bearer, connect_client, create_room, live_server


async def expire_clock(runtime: Runtime, code: str) -> int:
    """Move the running deadline into the past, as if the seconds had run out; returns the
    version that commit made."""

    def run_out(room: Room) -> Room:
        assert room.game is not None and room.game.deadline is not None
        game = room.game.model_copy(update={"deadline": time.time() - 1})
        return room.model_copy(update={"game": game})

    return (await runtime.service.update(code, run_out)).version


async def load(runtime: Runtime, code: str) -> Room:
    room = await runtime.service.load(code)
    assert room is not None
    return room


async def test_timeouts_are_played_and_two_in_a_row_mark_the_seat_away(
    make_settings: MakeSettings,
) -> None:
    async with live_server(make_settings()) as live, live.http() as http:
        code, host = await create_room(http, seats=2, turn_seconds=30)
        guest = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()
        clients = [await connect_client(live, code, t) for t in (host, guest["token"])]
        await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        first = await clients[0].wait_for("state")
        assert first["deadline"] is not None
        assert 25 < first["deadline"] - time.time() <= 30

        away: int | None = None
        for _ in range(8):
            room = await load(live.runtime, code)
            assert room.game is not None
            seat = room.game.to_act[0]
            expired_at = await expire_clock(live.runtime, code)
            moved = await clients[0].wait_for(
                "state", lambda m, after=expired_at: m["version"] > after
            )
            assert moved["view"]["log"]
            player = (await load(live.runtime, code)).seats[seat]
            assert player is not None and player.timeouts >= 1
            if player.away:
                away = seat
                break
        assert away is not None, "two timeouts in a row never marked a seat away"
        summary = await clients[0].room_until(lambda room: room["seats"][away]["away"])
        assert summary["seats"][away]["connected"]

        await clients[away].send({"type": "chat", "text": "back!"})
        await clients[0].room_until(lambda room: not room["seats"][away]["away"])
        for client in clients:
            await client.close()


async def test_a_disconnected_players_seat_is_played_until_they_return(
    make_settings: MakeSettings,
) -> None:
    async with live_server(make_settings(disconnect_grace_seconds=0.0)) as live:
        async with live.http() as http:
            code, host = await create_room(http, seats=2)
            guest = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()
            ann = await connect_client(live, code, host)
            bob = await connect_client(live, code, guest["token"])
            await bob.room_until(lambda room: room["seats"][1]["connected"])
            await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
        await bob.wait_for("state")
        await bob.close()
        await ann.room_until(lambda room: room["seats"][1]["away"])

        bob_moves = await _play_until_the_other_seat_moved(ann, random.Random(3))
        assert bob_moves > 0

        bob = await connect_client(live, code, guest["token"])
        await bob.wait_for("state")
        back = await ann.room_until(lambda room: not room["seats"][1]["away"])
        assert back["seats"][1]["connected"]
        await ann.close()
        await bob.close()


async def _play_until_the_other_seat_moved(client: Client, rng: random.Random) -> int:
    """Play seat 0 until seat 1 (played by the AI) has made a move; returns its moves seen."""
    acted_on = -1
    while True:
        message = await client.wait_for("state")
        moves = [e for e in message["view"]["log"] if _by_seat_one(e)]
        if moves or message["view"]["over"]:
            return len(moves)
        if 0 in message["view"]["to_act"] and message["version"] > acted_on:
            acted_on = message["version"]
            await client.act(rng.choice(message["legal"]), ref=f"r{acted_on}")


def _by_seat_one(entry: object) -> bool:
    """A log entry for a move seat 1 made (not its turn starting, nor its drawing, nor the
    room's line that it is away)."""
    return (
        isinstance(entry, dict)
        and entry.get("seat") == 1
        and entry.get("event") not in ("turn", "draw", "deal", "timeout", "away", "back")
    )
