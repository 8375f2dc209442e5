"""When a room is stored whole: a commit of a move appends the move's text (``play.Move.text``)
to the room's last snapshot, and every so often stores a new snapshot instead, so that a reader
replays only a few moves."""

from __future__ import annotations

from app.rooms.model import Room

SNAPSHOT_EVERY = 32
"""A move whose version is a multiple of this is stored as a new snapshot instead, so that a
reader replays at most this many moves less one. Fewer means more bytes written per move (a
snapshot is 5-20 KB), more means a longer replay and a longer list kept per room."""


def snapshot_due(previous: Room, new: Room) -> bool:
    """Whether ``new``, made by a move, is stored whole rather than as its move: every
    ``SNAPSHOT_EVERY`` versions, and when a round or the game ends (a reader then starts from
    the new round)."""
    if new.version % SNAPSHOT_EVERY == 0 or new.status != "playing":
        return True
    return new.engine_round() != previous.engine_round()
