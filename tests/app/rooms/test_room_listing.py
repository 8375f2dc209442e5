"""A public room's entry in the lobby's list says whether the table is live or turn-based."""

from __future__ import annotations

import json

from app.rooms.lobby import new_room
from app.rooms.model import RoomOptions, Seat
from app.rooms.public import room_listing


def _listing(**options: object) -> dict[str, object]:
    host = Seat(name="Ann", token_hash="0" * 64)  # connected: disconnected_at is None
    room = new_room(
        code="K7M2QX9P",
        options=RoomOptions(room_name="Ann's table", visibility="public", **options),  # type: ignore[arg-type]
        host=host,
        now=0.0,
    )
    listing = room_listing(room)
    assert listing is not None
    entry: dict[str, object] = json.loads(listing)
    return entry


def test_a_turn_based_room_is_listed_with_its_time_to_move() -> None:
    entry = _listing(mode="turn", move_seconds=28_800)
    assert entry["mode"] == "turn" and entry["move_seconds"] == 28_800


def test_a_live_room_is_listed_as_live_with_no_time_to_move() -> None:
    entry = _listing(turn_seconds=60)
    assert entry["mode"] == "live" and entry["move_seconds"] is None
    assert entry["turn_seconds"] == 60
