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
    that round is kept, not the whole state (twice the objects the collector walks); an older
    state is decoded again, and a state decoded for its round does not push the latest out."""
    first = moved(started())
    assert first.game is not None
    round_before = first.engine_state().round
    later = moved(first)
    latest_state = later.engine_state()
    decoded: list[str] = []
    load = model.load_engine_state

    def counted(text: str) -> object:
        decoded.append(text)
        return load(text)

    monkeypatch.setattr(model, "load_engine_state", counted)
    assert first.engine_round() == round_before
    assert later.engine_round() == latest_state.round
    assert decoded == []
    latest = moved(later)
    assert first.engine_round() == round_before
    assert decoded == [first.game.state]
    assert latest.engine_state() is latest.engine_state()
    again = first.engine_state()
    assert dump_engine_state(again) == first.game.state


def test_past_the_limit_the_room_that_moved_longest_ago_is_decoded_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(model, "DECODED_ROOMS", 3)
    rooms = [moved(started(f"R{number}")) for number in range(3)]
    kept = [room.engine_state() for room in rooms]
    newest = moved(started("NEW"))
    assert newest.engine_state() is newest.engine_state()
    assert rooms[1].engine_state() is kept[1]
    assert rooms[2].engine_state() is kept[2]
    assert rooms[0].engine_state() is not kept[0]  # moved longest ago: pushed out
