"""The live tables a player sits at, by their public id, for the account they play for: its
other devices list them in "Your games" (``POST /api/your-games``) and open the seat there.

A turn-based table is found in the database by its players; a live table is in no database
while it is played. So each time a player's device connects to a live table, the table's code
is kept in the store under the player's public id, for ``LISTED_SECONDS`` from then. Whoever
lists them reads the rooms and drops the codes of rooms that are gone or whose game is over.
"""

from __future__ import annotations

from app.store.base import RoomStore

LISTED_SECONDS = 24 * 3600.0
"""How long a live table stays listed for a player after their last device connected to it:
a day, longer than friends sit at one table, rematches and all, with a device that never
reconnects. A table gone or over is dropped when it is next listed: holding its code longer
than it plays costs one small key per player."""
MOST_LISTED = 8
"""Live tables read for one player: the last ones the store keeps (a player who left more
than this many live tables unfinished within a day sees the latest)."""


def _key(public_id: str) -> str:
    return f"live-seats:{public_id}"


async def note(store: RoomStore, code: str, public_id: str) -> None:
    """The player (by public id) has a device at this live table."""
    await store.hold_place(_key(public_id), code, seconds=LISTED_SECONDS)


async def codes(store: RoomStore, public_id: str) -> list[str]:
    """The live tables the player's devices connected to lately (at most ``MOST_LISTED``)."""
    return (await store.places(_key(public_id)))[-MOST_LISTED:]


async def forget(store: RoomStore, code: str, public_id: str) -> None:
    """The table is gone or its game is over: it is not listed any more."""
    await store.free_place(_key(public_id), code)
