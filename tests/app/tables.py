"""Rooms with a game started, built through the lobby as the service builds them."""

from __future__ import annotations

from typing import Any

from app.rooms import lobby, play
from app.rooms.model import Room, RoomOptions, Seat


def started_room(
    seats: list[Seat], *, seed: int, now: float = 1.0, code: str = "ABCDE", **options: Any
) -> Room:
    """A room the first seat made (as its host, with ``options``) and the others joined, its
    game dealt."""
    host, *others = seats
    room = lobby.new_room(
        code=code,
        options=RoomOptions(room_name="Table", seats=len(seats), **options),
        host=host,
        now=now,
    )
    for seat in others:
        room, _ = lobby.take_seat(room, seat)
    return play.start(room, seed=seed, game_id="g", now=now)


def people(count: int) -> list[Seat]:
    """``count`` people: Ann (token hash ``a…``), then P1, P2… (``1…``, ``2…``)."""
    return [
        Seat(name="Ann", token_hash="a" * 64),
        *(Seat(name=f"P{n}", token_hash=str(n) * 64) for n in range(1, count)),
    ]
