"""What the database keeps of a turn-based room, and when a room may be parked."""

from __future__ import annotations

from dataclasses import dataclass

from app.db.repository import public_player_id
from app.rooms.model import Room


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """A turn-based room as one committed version of it is kept in the database."""

    code: str
    version: int
    text: str
    """The room's text (``room_text``)."""
    status: str
    wake_at: float | None
    """When the room must be looked at (``Room.wake_at``)."""
    idle_since: float | None
    """Since when nobody has been connected to it (``idle_since``); None while someone is,
    and for a game over (only a game in play is parked)."""
    players: tuple[tuple[int, str], ...]
    """``(seat, public player id)`` of each person who joined with a player id."""


def kept(room: Room) -> bool:
    """Whether the database keeps the room: a turn-based game dealt and not over, or over
    with a game still to record. A table waiting for its first deal lives in the store only,
    as any other (it expires there if nobody starts it)."""
    return room.options.mode == "turn" and (room.status == "playing" or bool(room.unrecorded))


def idle_since(room: Room) -> float | None:
    """When the last person at the table left (None while one is connected): the longest
    ``disconnected_at`` of its people, or when the room was made if it seats none."""
    if room.someone_here():
        return None
    left = [
        seat.disconnected_at
        for seat in room.seats
        if seat is not None and not seat.is_ai and seat.disconnected_at is not None
    ]
    return max(left, default=room.created_at)


def turn_record(room: Room, *, text: str, wake_at: float | None) -> TurnRecord:
    return TurnRecord(
        code=room.code,
        version=room.version,
        text=text,
        status=room.status,
        wake_at=wake_at,
        idle_since=idle_since(room) if room.status == "playing" else None,
        players=tuple(
            (index, public_player_id(seat.player_id))
            for index, seat in enumerate(room.seats)
            if seat is not None and seat.player_id is not None
        ),
    )


def parkable(room: Room, *, now: float, wake_at: float | None, park_after: float) -> bool:
    """Whether the room may leave the store: a turn-based game in play that nobody has been
    connected to for ``park_after`` seconds, and that nothing (its AI, its clock) will move
    within that long either."""
    since = idle_since(room)
    return (
        room.options.mode == "turn"
        and room.status == "playing"
        and since is not None
        and since <= now - park_after
        and (wake_at is None or wake_at > now + park_after)
    )
