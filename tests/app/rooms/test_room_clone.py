"""``Room.clone``: a copy that any change may be made to without touching the original."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

import engine
from app.rooms import lobby, play
from app.rooms.model import Room, RoomOptions, Seat

SHARED_LEAVES = {"state", "actions[]", "unrecorded[]"}
"""What a clone shares by design: text, and the items of lists that are only ever appended to."""


def finished_then_replayed() -> Room:
    """A room with every container filled: seats, a finished game waiting to be recorded,
    and a new game with actions and refs."""
    host = Seat(name="Ann", token_hash="a" * 64)
    room = lobby.new_room(
        code="ABCDE", options=RoomOptions(room_name="Clone", seats=2), host=host, now=1.0
    )
    room, _ = lobby.take_seat(room, Seat(name="Bob", level="easy"))
    room = play.start(room, seed=7, game_id="g1", now=2.0)
    for number in range(400):
        assert room.game is not None
        if room.status == "finished":
            break
        state = engine.loads(room.game.state)
        action = engine.legal_actions(state)[0]
        room = play.apply(
            room, seat=action["seat"], action=action, now=3.0, mover="player", ref=number
        )
    assert room.status == "finished" and room.unrecorded
    return play.start(room, seed=8, game_id="g2", now=4.0)


def containers(value: Any, path: str = "") -> list[tuple[str, Any]]:
    """Every mutable object reachable in a room (models, lists, dicts), by path."""
    found: list[tuple[str, Any]] = []
    if isinstance(value, BaseModel):
        found.append((path, value))
        for name in type(value).model_fields:
            found += containers(getattr(value, name), f"{path}.{name}".lstrip("."))
    elif isinstance(value, list):
        found.append((path, value))
        for item in value:
            found += containers(item, f"{path}[]")
    elif isinstance(value, dict):
        found.append((path, value))
    return found


def test_a_clone_equals_the_room_and_shares_no_container_but_the_documented_leaves() -> None:
    room = finished_then_replayed()
    clone = room.clone()
    assert clone == room
    assert clone.model_dump_json() == room.model_dump_json()
    # What was set stays set (``exclude_unset`` dumps, and pydantic's own copy, rely on it).
    for (path, original), (_, copied) in zip(containers(room), containers(clone), strict=True):
        if isinstance(original, BaseModel):
            assert copied.model_fields_set >= original.model_fields_set, path
            assert type(copied) is type(original), path
    originals = {id(value) for path, value in containers(room) if path not in SHARED_LEAVES}
    shared = [
        path
        for path, value in containers(clone)
        if id(value) in originals and not any(path.startswith(leaf) for leaf in SHARED_LEAVES)
    ]
    assert shared == []


def test_changing_every_part_of_a_clone_leaves_the_original_as_it_was() -> None:
    room = finished_then_replayed()
    before = room.model_dump_json()
    clone = room.clone()
    assert clone.game is not None and clone.seats[0] is not None
    clone.options.seats = 6
    clone.options.room_name = "Changed"
    clone.seats[0].away = True
    clone.seats.append(None)
    clone.game.to_act.append(5)
    clone.game.actions.append({"type": "end_turn", "seat": 0})
    clone.game.refs["0:1"] = 99
    clone.game.winners.append(1)
    clone.game.totals.append(1)
    clone.game.state = "{}"
    clone.unrecorded.clear()
    assert room.model_dump_json() == before


def test_a_move_copies_what_it_changes_and_shares_only_what_no_move_changes() -> None:
    """``play.apply`` copies the room for a move with ``clone_for_move``: the room before
    stays as it was, through a whole game and what a clone of the room after then changes,
    and the room after is the one a whole ``clone`` would have given."""
    room = lobby.new_room(
        code="ABCDE",
        options=RoomOptions(room_name="Moves", seats=3),
        host=Seat(name="Ann", token_hash="a" * 64),
        now=1.0,
    )
    for name in ("Bob", "Cy"):
        room, _ = lobby.take_seat(room, Seat(name=name, token_hash=name[0] * 64))
    room = play.start(room, seed=11, game_id="g1", now=2.0)
    moves = 0
    while room.status == "playing":
        state = room.engine_state()
        action = engine.legal_actions(state)[moves % 3 % len(engine.legal_actions(state))]
        seat, mover = action["seat"], ("player", "clock")[moves % 2]
        before = room.model_dump_json()
        after = play.apply(room, seat=seat, action=action, now=3.0, mover=mover, ref=moves)
        assert room.model_dump_json() == before
        # The same move on a whole clone: what clone_for_move shares makes no difference.
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(Room, "clone_for_move", lambda self, seat: self.clone())
            whole = play.apply(room, seat=seat, action=action, now=3.0, mover=mover, ref=moves)
        assert after.model_dump_json() == whole.model_dump_json()
        changed = after.clone()
        assert changed.game is not None
        changed.options.room_name = "Changed"
        for other in changed.seats:
            assert other is not None
            other.away, other.timeouts, other.name = True, 9, "Changed"
        changed.game.hints.append(1)
        changed.game.winners.append(1)
        changed.unrecorded.clear()
        assert room.model_dump_json() == before
        room, moves = after, moves + 1
    assert moves > 20 and room.unrecorded
