"""A snapshot's texts are exactly its messages: the shared part of the views is spliced in."""

from __future__ import annotations

import json
import random

import engine
from app.rooms import lobby, play
from app.rooms.model import Room, RoomOptions, Seat
from app.ws.snapshot import Snapshot


def _started(seats: int, seed: int) -> Room:
    host = Seat(name="Ann", token_hash="a" * 64)
    room = lobby.new_room(
        code="ABCDE", options=RoomOptions(room_name="Texts", seats=seats), host=host, now=1.0
    )
    for number in range(1, seats):
        room, _ = lobby.take_seat(room, Seat(name=f"P{number}", token_hash=str(number) * 64))
    return play.start(room, seed=seed, game_id="texts", now=1.0)


def test_every_seats_text_is_its_state_message_and_shows_only_its_own_hand() -> None:
    for seats, seed in ((2, 1), (4, 2), (6, 3)):
        room, rng = _started(seats, seed), random.Random(seed)
        for move in range(120):
            if room.status != "playing":
                break
            if move % 7 == 0:
                snapshot = Snapshot(room)
                state = room.engine_state()
                for seat in [None, *range(seats)]:
                    text = snapshot.state_text(seat)
                    message = snapshot.state_message(seat)
                    assert text is not None and message is not None
                    sent = json.loads(text)
                    assert sent == json.loads(json.dumps(message))
                    assert sent["view"] == json.loads(json.dumps(engine.view_for(state, seat)))
                    assert sent["view"]["seat"] == seat
            legal = engine.legal_actions(room.engine_state())
            action = rng.choice([a for a in legal if a["type"] != "concede"] or legal)
            room = play.apply(room, seat=action["seat"], action=action, now=2.0, mover="player")
            room.version += 1
