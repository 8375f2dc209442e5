"""Presence is not part of the version an ``act`` is checked against (issue 30, point 1), and a
game with nobody connected stops its clocks and its AI seats (point 4)."""

from __future__ import annotations

from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from app.rooms.ai import AiRunner
from app.rooms.credentials import hash_token
from app.rooms.errors import RoomError
from app.rooms.model import Room, RoomOptions, Seat
from app.rooms.recording import FinishedGame
from app.rooms.service import RoomService
from app.rooms.tables import Tables
from app.store.memory import MemoryRoomStore
from tests.app.conftest import base_settings
from tests.app.live import ListRecorder
from tests.app.tables import people, started_room


def _move(room: Room) -> tuple[int, dict[str, Any]]:
    """The seat to act and its first legal action (without the seat)."""
    state = room.engine_state()
    seat = engine.to_act(state)[0]
    action = next(a for a in engine.legal_actions(state) if a["seat"] == seat)
    return seat, {key: value for key, value in action.items() if key != "seat"}


async def test_an_act_chosen_before_presence_changes_is_applied_a_stale_one_is_not() -> None:
    service = RoomService(
        store=MemoryRoomStore(), settings=base_settings(), recorder=ListRecorder(), ai=AiRunner(0)
    )
    room, host = await Tables(service).create(
        name="Ann", player_id=None, options=RoomOptions(room_name="Table", seats=2)
    )
    _, _, guest = await Tables(service).join(room.code, name="Bob", player_id=None)
    started = await Tables(service).start(room.code, token=host)
    tokens = [host, guest]
    seat, action = _move(started)
    rival = hash_token(tokens[1 - seat])
    for connected in (True, False, True, False, True):
        await service.set_presence(room.code, rival, connected=connected)
    latest = await service.load(room.code)
    assert latest is not None
    assert latest.version == started.version + 5
    assert latest.game_version == started.version, "presence left the game's version alone"
    acted = await service.act(
        room.code,
        token_hash=hash_token(tokens[seat]),
        ref=1,
        version=started.version,
        action=action,
    )
    assert not acted.repeated and acted.room.game_version == acted.room.version
    seat, action = _move(acted.room)
    with pytest.raises(RoomError) as stale:
        await service.act(
            room.code,
            token_hash=hash_token(tokens[seat]),
            ref=2,
            version=started.version,  # chosen before the move above: truly stale
            action=action,
        )
    assert stale.value.code == "stale_version"


def test_a_version_is_acted_on_from_the_games_last_change_to_now() -> None:
    room = started_room(people(2), seed=3)
    room.version, room.game_version = 10, 7
    assert [room.acts_on(v) for v in (6, 7, 10, 11)] == [False, True, True, False]
    room.game_version = 0  # stored before game versions were kept: only the version itself
    assert [room.acts_on(v) for v in (9, 10)] == [False, True]


def test_a_game_nobody_is_connected_to_waits_for_nobody() -> None:
    """Its AI seat is due, but with every person gone nothing wakes it: a table of only AI is
    never played."""
    seats = [Seat(name="Ann", token_hash="a" * 64), Seat(name="Bot", level="hard")]
    room = started_room(seats, seed=5)
    assert room.game is not None
    room.game.ai_due = 2.0
    assert room.wake_at(30.0, 5.0) == 2.0
    gone = room.clone()
    host = gone.seats[0]
    assert host is not None
    host.disconnected_at = 1.0
    assert gone.wake_at(30.0, 5.0) is None
    host.disconnected_at, host.away = None, True
    assert gone.wake_at(30.0, 5.0) is None, "an away seat is played by the AI: nobody is here"


_MOMENT = st.none() | st.floats(min_value=0.0, max_value=100.0)


@settings(max_examples=300, deadline=None)
@given(
    seats=st.lists(
        st.tuples(st.sampled_from(["person", "unopened", "ai", "away", "open"]), _MOMENT),
        min_size=2,
        max_size=6,
    ),
    deadline=_MOMENT,
    ai_due=_MOMENT,
    unrecorded=st.booleans(),
    next_record_at=_MOMENT,
    status=st.sampled_from(["waiting", "playing", "finished"]),
)
def test_a_room_wakes_at_the_first_of_its_pending_moments(
    seats: list[tuple[str, float | None]],
    deadline: float | None,
    ai_due: float | None,
    unrecorded: bool,
    next_record_at: float | None,
    status: str,
) -> None:
    """``wake_at`` against its rule: an unrecorded game's next try (or the room's creation);
    while a person is connected, the game's deadline, its AI's move and the end of the grace
    of every person who left (``seat_open_seconds`` for one who never opened the table); the
    first of these, or None."""
    room = started_room(people(len(seats)), seed=5)
    assert room.game is not None
    for index, (kind, left) in enumerate(seats):
        seat = room.seats[index]
        assert seat is not None
        seat.level = "easy" if kind == "ai" else None
        seat.away = kind == "away"
        seat.unopened = kind == "unopened"
        seat.disconnected_at = left
        if kind == "open":
            room.seats[index] = None
    room.game.deadline, room.game.ai_due = deadline, ai_due
    room.status = status  # type: ignore[assignment]
    room.next_record_at = next_record_at
    room.unrecorded = [cast(FinishedGame, object())] if unrecorded else []  # only counted
    people_seats = [s for s in room.seats if s is not None and not s.played_by_ai]
    moments = [room.next_record_at or room.created_at] if unrecorded else []
    if status == "playing" and any(s.disconnected_at is None for s in people_seats):
        moments += [when for when in (deadline, ai_due) if when is not None]
        moments += [
            s.disconnected_at + (5.0 if s.unopened else 30.0)
            for s in people_seats
            if s.disconnected_at is not None
        ]
    assert room.wake_at(30.0, 5.0) == min(moments, default=None)
