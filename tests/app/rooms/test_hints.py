"""Hints during play: the ``hints`` room option and the ``hint`` WebSocket message."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

import engine
from app.db import repository
from app.db.recorder import DatabaseRecorder
from app.db.session import create_engine, create_session_factory
from app.rooms.hints import hint_for
from app.rooms.recording import PlayerRecord
from tests.app.conftest import MakeSettings
from tests.app.db.finished_games import played_game
from tests.app.db.scratch_databases import migrated_database
from tests.app.live import Client, Live, bearer, connect_client, create_room, live_server, play_out
from tests.engine.gameplay import act, card, deal

ROUNDS = 4
"""A small search budget: these tests prove the door, not the search."""


@dataclass
class Table:
    live: Live
    http: httpx.AsyncClient
    code: str
    host_token: str
    seats: list[Client]
    """Ann (seat 0, the host), then Bob (seat 1)."""
    spectator: Client

    def to_act(self) -> tuple[int, Client]:
        state = self.seats[0].state
        assert state is not None
        seat = state["view"]["to_act"][0]
        return seat, self.seats[seat]


@asynccontextmanager
async def table(settings: Any, **options: Any) -> AsyncIterator[Table]:
    """Ann and Bob at a started two-seat table, with a spectator; each has the first state."""
    async with live_server(settings) as live, live.http() as http:
        code, host_token = await create_room(
            http, seats=2, rules="simple", spectators=True, **options
        )
        joined = (await http.post(f"/api/rooms/{code}/join", json={"name": "Bob"})).json()
        clients = [
            await connect_client(live, code, host_token),
            await connect_client(live, code, joined["token"]),
            await connect_client(live, code),
        ]
        for client in clients:
            await client.wait_for("room")
        started = await http.post(f"/api/rooms/{code}/start", headers=bearer(host_token))
        assert started.status_code == 200
        for client in clients:
            await client.wait_for("state")
        yield Table(live, http, code, host_token, clients[:2], clients[2])
        for client in clients:
            await client.close()


async def ask(client: Client) -> dict[str, Any]:
    """The answer to a ``hint`` request: the hint, or the error refusing it."""
    await client.send({"type": "hint"})
    while True:
        message = await client.recv()
        if message["type"] in ("hint", "error"):
            return message


async def no_hint_reached(client: Client) -> None:
    """Everything sent to ``client`` so far has arrived (a ping's pong came after it), and
    none of it was a hint."""
    await client.send({"type": "ping"})
    await client.wait_for("pong")
    assert not [message for message in client.received if message["type"] == "hint"]


async def test_a_hint_goes_to_the_seat_to_act_and_nobody_else(
    make_settings: MakeSettings,
) -> None:
    async with table(make_settings(review_rounds=ROUNDS), hints=True) as room:
        seat, asker = room.to_act()
        other = room.seats[1 - seat]

        hint = await ask(asker)

        assert hint["type"] == "hint", hint
        state = asker.state
        if state is None or state["version"] != hint["version"]:
            state = await asker.wait_for("state", lambda m: m["version"] == hint["version"])
        assert hint["action"] in state["legal"]
        assert hint["action"]["seat"] == seat
        chances = [item["win_chance"] for item in hint["alternatives"]]
        assert chances == sorted(chances, reverse=True) and all(0 <= c <= 1 for c in chances)
        assert hint["alternatives"][0] == {"action": hint["action"], "win_chance": chances[0]}

        refused = await ask(other)
        assert refused["type"] == "error" and refused["code"] == "not_your_turn"
        watcher = await ask(room.spectator)
        assert watcher["type"] == "error" and watcher["code"] == "spectator"
        for client in (other, room.spectator):
            await no_hint_reached(client)

        # The move goes on as usual, at the version the hint came with.
        await asker.act(hint["action"], ref="hinted")
        await asker.wait_for("state", lambda m: m.get("ref") == "hinted")


async def test_hints_are_off_unless_the_host_turns_them_on(make_settings: MakeSettings) -> None:
    async with live_server(make_settings()) as live, live.http() as http:
        code, host_token = await create_room(http, seats=2)
        summary = (await http.get(f"/api/rooms/{code}")).json()
        assert summary["options"]["hints"] is False
        changed = await http.patch(
            f"/api/rooms/{code}", json={"hints": True}, headers=bearer(host_token)
        )
        assert changed.status_code == 200, changed.text
        assert changed.json()["options"]["hints"] is True

    async with table(make_settings()) as room:
        _, asker = room.to_act()
        refused = await ask(asker)
        assert refused["type"] == "error" and refused["code"] == "hints_off"


async def test_each_seat_has_a_bounded_number_of_hints(make_settings: MakeSettings) -> None:
    settings = make_settings(review_rounds=ROUNDS, hints_per_seat=1)
    async with table(settings, hints=True) as room:
        _, asker = room.to_act()
        assert (await ask(asker))["type"] == "hint"
        refused = await ask(asker)
        assert refused["type"] == "error" and refused["code"] == "no_hints_left"


async def test_hints_are_rate_limited(make_settings: MakeSettings) -> None:
    settings = make_settings(review_rounds=ROUNDS, hints_per_seat=5, hints_per_minute=1)
    async with table(settings, hints=True) as room:
        _, asker = room.to_act()
        assert (await ask(asker))["type"] == "hint"
        refused = await ask(asker)
        assert refused["type"] == "error" and refused["code"] == "hints_too_fast"


async def test_the_record_counts_each_seats_hints(make_settings: MakeSettings) -> None:
    async with table(make_settings(review_rounds=ROUNDS), hints=True) as room:
        seat, asker = room.to_act()
        assert (await ask(asker))["type"] == "hint"
        ann, bob = room.seats
        await asyncio.gather(play_out(ann, 0, random.Random(1)), play_out(bob, 1, random.Random(2)))
        summary = (await room.http.get(f"/api/rooms/{room.code}")).json()
        recorded = await room.live.recorder.game(summary["game"]["id"])
        assert [player.hints for player in recorded.players] == [int(s == seat) for s in (0, 1)]


async def test_a_game_with_a_hint_is_not_rated_and_says_who_took_them(tmp_path: Path) -> None:
    async with migrated_database("sqlite", tmp_path) as url:
        database = create_engine(url)
        recorder = DatabaseRecorder(create_session_factory(database))
        honest = [PlayerRecord(0, "Ann", "a" * 32), PlayerRecord(1, "Bea", "b" * 32)]
        helped = [PlayerRecord(0, "Ann", "a" * 32), PlayerRecord(1, "Bea", "b" * 32, hints=2)]
        honest_game, helped_game = played_game(honest, seed=1), played_game(helped, seed=2)
        await recorder.record(honest_game)
        await recorder.record(helped_game)
        async with create_session_factory(database)() as session:
            stored = await repository.get_game(session, game_id=helped_game.game_id)
            assert stored is not None
            assert stored.rated is False
            assert [seat.hints for seat in stored.seats] == [0, 2]
            assert all(seat.rating_after is None for seat in stored.seats)
            control = await repository.get_game(session, game_id=honest_game.game_id)
            assert control is not None and control.rated is True
        await database.dispose()


def test_the_hint_is_the_obvious_move_from_the_seats_own_view() -> None:
    """Bea defends her Yachts holding a Yacht, and Ann has no match left: answering wins (the
    position of the review's own test of conceding here, a blunder)."""
    state = deal(
        [["yacht", "coins", "coins"], ["yacht", "piggy_bank"]],
        stacks=[[["guitar", "guitar"]], [["piggy_bank", "piggy_bank"], ["yacht", "yacht"]]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "yacht")])
    legal = [action for action in engine.legal_actions(state) if action["seat"] == 1]
    concede = next(action for action in legal if action["type"] == "concede")

    hint = hint_for(engine.view_for(state, 1), concede, 32, 1)

    assert hint["action"] == {"type": "answer", "seat": 1, "cards": [card(state, 1, "yacht")]}
    assert hint["action"] in legal
    conceding = next(
        item["win_chance"] for item in hint["alternatives"] if item["action"] == concede
    )
    assert hint["win_chance"] > conceding


def test_a_hint_with_one_distinct_choice_is_that_move_without_a_chance() -> None:
    state = deal(
        [["yacht", "coins"], ["coins", "piggy_bank"]],
        rules="simple",
        stacks=[[["guitar", "guitar"]], [["piggy_bank", "piggy_bank"], ["yacht", "yacht"]]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "yacht")])
    concede = {"type": "concede", "seat": 1}

    hint = hint_for(engine.view_for(state, 1), concede, 32, 1)

    assert hint == {"action": concede, "win_chance": None, "alternatives": []}
