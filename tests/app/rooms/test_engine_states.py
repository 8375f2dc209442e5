"""``Room.engine_state``: the decoded state of a room's game, kept for its latest version."""

from __future__ import annotations

import pytest

import engine
from app.rooms import model, play
from app.rooms.model import Room, Seat, dump_engine_state, room_of_text, room_text
from tests.app.tables import started_room


def started(code: str = "ROOM") -> Room:
    return started_room(
        [Seat(name="Ann", token_hash="a" * 64), Seat(name="Bob", level="easy")],
        seed=11,
        code=code,
    )


def moved(room: Room) -> Room:
    action = engine.legal_actions(room.engine_state())[0]
    return play.apply(room, seat=action["seat"], action=action, now=3.0, mover="player")


def test_the_move_that_made_a_state_and_its_views_share_one_decoding() -> None:
    room = moved(started())
    assert room.game is not None
    assert room.engine_state() is room.engine_state()
    assert dump_engine_state(room.engine_state()) == room.game.state


def test_a_room_read_back_from_its_json_decodes_its_own_state() -> None:
    room = moved(started())
    again = room_of_text(room_text(room))
    assert again.engine_state() is not room.engine_state()
    assert dump_engine_state(again.engine_state()) == dump_engine_state(room.engine_state())


def test_a_room_keeps_its_state_decoded_while_many_other_rooms_move() -> None:
    """A thousand rooms each move about every two seconds: each room's next move finds its
    state decoded, not pushed out by the others' moves since (as the last 64 states were)."""
    mine = moved(started("MINE"))
    kept = mine.engine_state()
    others = [started(f"R{number}") for number in range(200)]
    for _ in range(2):
        others = [moved(room) for room in others]
    assert mine.engine_state() is kept


def test_the_round_of_the_state_a_move_replaced_is_known_without_decoding_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A commit compares the room's round with the one it replaces (``moves.snapshot_due``):
    each room's game keeps its own state decoded, so neither is decoded again, however many
    moves were made since."""
    first = moved(started())
    round_before = first.engine_state().round
    later = moved(first)
    latest = moved(later)
    decoded: list[str] = []
    load = model.load_engine_state

    def counted(text: str) -> object:
        decoded.append(text)
        return load(text)

    monkeypatch.setattr(model, "load_engine_state", counted)
    assert first.engine_round() == round_before
    assert latest.engine_round() == latest.engine_state().round
    assert decoded == []


def test_a_copy_of_a_room_shares_its_decoded_state_until_a_move() -> None:
    """A lobby or presence change copies the room (``Room.clone``): the copy's game keeps the
    state decoded; a move on the copy keeps its own new state, and the room it was made from
    still has its own."""
    room = moved(started())
    state = room.engine_state()
    copy = room.clone()
    assert copy.engine_state() is state
    after = moved(copy)
    assert after.engine_state() is not state
    assert room.engine_state() is state
    assert after.game is not None
    assert dump_engine_state(after.engine_state()) == after.game.state
