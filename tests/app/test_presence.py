"""Presence is not part of the version an ``act`` is checked against (issue 30, point 1), and a
game with nobody connected stops its clocks and its AI seats (point 4)."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from app.rooms.ai import AiRunner
from app.rooms.credentials import hash_token
from app.rooms.errors import RoomError
from app.rooms.model import Room, RoomOptions, Seat
from app.rooms.service import RoomService
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
    room, host = await service.create(
        name="Ann", player_id=None, options=RoomOptions(room_name="Table", seats=2)
    )
    _, guest = await service.join(room.code, name="Bob", player_id=None)
    started = await service.start(room.code, token=host)
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
    assert room.wake_at(30.0) == 2.0
    gone = room.clone()
    host = gone.seats[0]
    assert host is not None
    host.disconnected_at = 1.0
    assert gone.wake_at(30.0) is None
    host.disconnected_at, host.away = None, True
    assert gone.wake_at(30.0) is None, "an away seat is played by the AI: nobody is here"
