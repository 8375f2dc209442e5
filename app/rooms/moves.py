"""A move as the store appends it to a room: what was played, by whom and when.

A room in the store is a snapshot of its JSON and the moves committed since (``RoomStore``).
A move's text holds what ``play.apply`` and ``play.schedule`` were given, so any process
holding the room before it makes the same room after it: the engine is deterministic, and the
clocks are set from the moment the move was made, not from when it is replayed. A move's text
holds nothing hidden that the room's snapshot does not already hold (the seat's own action,
by card ids)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from app.rooms import play
from app.rooms.model import Room

SNAPSHOT_EVERY = 32
"""A move whose version is a multiple of this is stored as a new snapshot instead, so that a
reader replays at most this many moves less one. Fewer means more bytes written per move (a
snapshot is 5-20 KB), more means a longer replay and a longer list kept per room."""


@dataclass(frozen=True, slots=True)
class Move:
    """One seat's action, as ``play.apply`` takes it."""

    seat: int
    action: dict[str, Any]
    mover: play.Mover
    ref: str | int | None
    """The person's ``act`` ref (None for the AI's and the clock's moves)."""
    now: float
    """When it was made: the clocks that follow it and a finished game's end are set from it."""

    def apply(self, room: Room) -> Room:
        return play.apply(
            room,
            seat=self.seat,
            action=self.action,
            now=self.now,
            mover=self.mover,
            ref=self.ref,
        )

    def text(self, *, ai_pause: float) -> str:
        """The move as the store appends it, with the AI's pause its clocks were set with."""
        return orjson.dumps(
            {
                "seat": self.seat,
                "action": self.action,
                "mover": self.mover,
                "ref": self.ref,
                "now": self.now,
                "ai_pause": ai_pause,
            }
        ).decode()


def replay(room: Room, text: str) -> Room:
    """The room after the move ``text`` (``Move.text``), made on ``room``, its version before."""
    data = orjson.loads(text)
    move = Move(data["seat"], data["action"], data["mover"], data["ref"], data["now"])
    new = move.apply(room)
    new.version = new.game_version = room.version + 1
    play.schedule(new, now=move.now, ai_pause=data["ai_pause"])
    return new


def snapshot_due(previous: Room, new: Room) -> bool:
    """Whether ``new``, made by a move, is stored whole rather than as its move: every
    ``SNAPSHOT_EVERY`` versions, and when a round or the game ends (a reader then starts from
    the new round)."""
    if new.version % SNAPSHOT_EVERY == 0 or new.status != "playing":
        return True
    return new.engine_round() != previous.engine_round()
