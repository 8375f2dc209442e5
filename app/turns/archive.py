"""The interface of the turn-based games' database copy (``app.turns.database`` stores it)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy.exc import SQLAlchemyError

from app.turns.records import TurnRecord

DATABASE_ERRORS: tuple[type[Exception], ...] = (SQLAlchemyError, OSError)
"""What a call raises when the database is down, slow or gone."""


@dataclass(frozen=True, slots=True)
class ArchivedRoom:
    """A turn-based room as the database holds it."""

    version: int
    text: str
    """The room's text (``room_text``)."""
    parked: bool
    chat: tuple[str, ...] = ()
    """The room's chat lines as it was last parked, oldest first (the store keeps them
    meanwhile)."""


class TurnArchive(Protocol):
    """Turn-based rooms by code, each at the newest version written; safe to share between
    any number of processes."""

    async def save(self, record: TurnRecord) -> None:
        """Keep the room as ``record`` says, not parked, unless a newer version of it is kept
        already (the same version is written again: its wake and idle times may be newer)."""
        ...

    async def forget(self, code: str, *, version: int) -> None:
        """Let go of the room (its game is over and recorded) unless a newer version is kept."""
        ...

    async def room(self, code: str) -> ArchivedRoom | None: ...

    async def park(self, code: str, *, version: int, now: float, chat: Sequence[str] = ()) -> bool:
        """Mark the room parked (about to leave the store) with its chat lines, oldest
        first, if ``version`` is the one kept and it is not parked yet. False otherwise: it
        moved on, or is parked already."""
        ...

    async def due(self, now: float, *, unparked_before: float, limit: int) -> list[str]:
        """The rooms whose wake time has come, earliest first, ``limit`` at most: parked ones,
        and those not parked whose wake time is before ``unparked_before`` (the store's own
        index wakes them; a room the store lost is woken from here, later)."""
        ...

    async def idle(self, before: float, *, quiet_until: float, limit: int) -> list[str]:
        """Rooms not parked that nobody has been connected to since ``before``, longest idle
        first, ``limit`` at most, leaving out those due before ``quiet_until``."""
        ...

    async def games_of(self, player_id: str) -> int:
        """How many turn-based games in play the player (a public player id) sits in."""
        ...

    async def seats_of(self, player_ids: Collection[str], *, limit: int) -> list[tuple[str, int]]:
        """The turn-based rooms in play where these players (public player ids) sit, as
        (code, seat), ``limit`` at most."""
        ...
