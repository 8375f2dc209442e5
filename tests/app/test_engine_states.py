"""``Room.engine_state``: the decoded state of a room's game, shared while it is recent."""

from __future__ import annotations

import engine
from app.rooms import play
from app.rooms.model import (
    RECENT_STATES,
    Room,
    Seat,
    dump_engine_state,
    room_of_text,
    room_text,
)
from tests.app.tables import started_room


def started() -> Room:
    return started_room(
        [Seat(name="Ann", token_hash="a" * 64), Seat(name="Bob", level="easy")], seed=11
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


def test_an_old_room_is_decoded_again_once_newer_states_have_pushed_it_out() -> None:
    first = moved(started())
    assert first.game is not None
    kept = first.engine_state()
    later = first
    for _ in range(RECENT_STATES + 1):
        later = moved(later) if not engine.is_over(later.engine_state()) else started()
    assert first.engine_state() is not kept
    assert dump_engine_state(first.engine_state()) == first.game.state
