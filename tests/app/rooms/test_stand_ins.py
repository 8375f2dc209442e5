"""The log says who made a move when the seat's person did not: "Time ran out: the AI played
for Ann." before the clock's move, "Ann is away: the AI plays for them." when the seat is
handed to the AI, "Ann is back." when it is handed back. On both stores."""

from __future__ import annotations

import random
from typing import Any

from app.rooms.model import Room
from tests.app.conftest import MakeSettings
from tests.app.live import Client, bearer, connect_client, create_room, live_server
from tests.app.rooms.test_clocks import expire_clock, load

STAND_IN_EVENTS = ("timeout", "away", "back")


def stand_in_lines(log: list[dict[str, Any]]) -> list[tuple[str, int, str]]:
    """The log's stand-in lines as (event, seat, text), each checked to name no card."""
    lines = [entry for entry in log if entry["event"] in STAND_IN_EVENTS]
    for entry in lines:
        assert set(entry) == {"round", "event", "seat", "text"}, entry
    return [(entry["event"], entry["seat"], entry["text"]) for entry in lines]


def move_after(log: list[dict[str, Any]], index: int) -> dict[str, Any]:
    """The first entry after ``index`` that is a seat's move (not a turn, draw or stand-in)."""
    return next(
        entry
        for entry in log[index + 1 :]
        if entry["event"] not in ("turn", "draw", "skip", *STAND_IN_EVENTS)
    )


async def seated_pair(live: Any, http: Any, **options: Any) -> tuple[str, str, list[Client]]:
    """A started two-person room (Ann and Bob), both connected; its code, Ann's token and
    both clients, Bob's last."""
    code, host = await create_room(http, seats=2, **options)
    guest = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()
    clients = [await connect_client(live, code, token) for token in (host, guest["token"])]
    await clients[0].room_until(lambda room: all(s["connected"] for s in room["seats"]))
    await http.post(f"/api/rooms/{code}/start", headers=bearer(host))
    await clients[0].wait_for("state")
    return code, guest["token"], clients


async def test_a_timeout_is_logged_before_the_move_the_clock_made(
    make_settings: MakeSettings,
) -> None:
    async with live_server(make_settings()) as live, live.http() as http:
        code, _, clients = await seated_pair(live, http, turn_seconds=30)
        room = await load(live.runtime, code)
        assert room.game is not None
        seat = room.game.to_act[0]
        name = ["Ann", "Bob"][seat]
        expired_at = await expire_clock(live.runtime, code)

        moved = await clients[0].wait_for("state", lambda m: m["version"] > expired_at)
        log = moved["view"]["log"]
        assert stand_in_lines(log) == [
            ("timeout", seat, f"Time ran out: the AI played for {name}.")
        ]
        timeout = next(i for i, entry in enumerate(log) if entry["event"] == "timeout")
        assert log[timeout]["round"] == 0
        assert move_after(log, timeout)["seat"] == seat
        for client in clients:
            await client.close()


async def test_two_timeouts_in_a_row_log_the_seat_away_and_a_chat_logs_it_back(
    make_settings: MakeSettings,
) -> None:
    async with live_server(make_settings()) as live, live.http() as http:
        code, _, clients = await seated_pair(live, http, turn_seconds=30)
        away: int | None = None
        for _ in range(8):
            room = await load(live.runtime, code)
            assert room.game is not None
            seat = room.game.to_act[0]
            expired_at = await expire_clock(live.runtime, code)
            await clients[0].wait_for("state", lambda m, after=expired_at: m["version"] > after)
            player = (await load(live.runtime, code)).seats[seat]
            assert player is not None
            if player.away:
                away = seat
                break
        assert away is not None, "two timeouts in a row never marked a seat away"
        name = ["Ann", "Bob"][away]
        log = (await load(live.runtime, code)).view_for(None)["log"]
        lines = stand_in_lines(log)
        assert lines[-1] == ("away", away, f"{name} is away: the AI plays for them.")
        assert [line for line in lines if line[1] == away][-3:] == [
            ("timeout", away, f"Time ran out: the AI played for {name}."),
            ("timeout", away, f"Time ran out: the AI played for {name}."),
            ("away", away, f"{name} is away: the AI plays for them."),
        ]
        # The away line follows the move of the second timeout: nothing of the seat between.
        second = max(i for i, entry in enumerate(log) if entry["event"] == "timeout")
        handed = next(i for i, entry in enumerate(log) if entry["event"] == "away")
        assert second < handed
        assert all(entry["event"] != "timeout" for entry in log[second + 1 : handed])

        await clients[away].send({"type": "chat", "text": "back!"})
        back = await clients[0].wait_for(
            "state", lambda m: stand_in_lines(m["view"]["log"])[-1][0] == "back"
        )
        assert stand_in_lines(back["view"]["log"])[-1] == ("back", away, f"{name} is back.")
        for client in clients:
            await client.close()


async def test_a_disconnect_past_the_grace_logs_away_and_reconnecting_logs_back(
    make_settings: MakeSettings,
) -> None:
    async with live_server(make_settings(disconnect_grace_seconds=0.0)) as live:
        async with live.http() as http:
            code, bob_token, (ann, bob) = await seated_pair(live, http)
        await bob.close()
        await ann.room_until(lambda room: room["seats"][1]["away"])
        log = (await load(live.runtime, code)).view_for(0)["log"]
        assert ("away", 1, "Bob is away: the AI plays for them.") in stand_in_lines(log)
        assert "timeout" not in [line[0] for line in stand_in_lines(log)]

        bob = await connect_client(live, code, bob_token)
        await ann.room_until(lambda room: not room["seats"][1]["away"])
        log = (await load(live.runtime, code)).view_for(0)["log"]
        assert stand_in_lines(log)[-1] == ("back", 1, "Bob is back.")
        await ann.close()
        await bob.close()


async def test_acting_on_an_away_seat_logs_back_before_the_move(
    make_settings: MakeSettings,
) -> None:
    # A long AI pause: the person acts before the AI would.
    async with live_server(make_settings(ai_pause_seconds=600.0)) as live, live.http() as http:
        code, _, clients = await seated_pair(live, http)
        room = await load(live.runtime, code)
        assert room.game is not None
        seat = room.game.to_act[0]

        def send_away(room: Room) -> Room:
            room = room.clone()
            player = room.seats[seat]
            assert player is not None
            player.away = True
            return room

        marked = (await live.runtime.service.update(code, send_away)).version
        mover = clients[seat]
        state = await mover.wait_for("state", lambda m: m["version"] >= marked)
        await mover.act(random.Random(5).choice(state["legal"]), ref="back")
        acted = await mover.wait_for("state", lambda m: m["ref"] == "back")
        log = acted["view"]["log"]
        name = ["Ann", "Bob"][seat]
        assert stand_in_lines(log) == [("back", seat, f"{name} is back.")]
        back = next(i for i, entry in enumerate(log) if entry["event"] == "back")
        assert move_after(log, back)["seat"] == seat
        assert log[-1]["event"] != "back"
        for client in clients:
            await client.close()
