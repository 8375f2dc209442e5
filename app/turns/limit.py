"""A player sits in at most ``turn_games_per_player`` turn-based games in play."""

from __future__ import annotations

import logging

from app.db.repository import public_player_id
from app.rooms.errors import RoomError
from app.rooms.model import RoomOptions
from app.turns.archive import DATABASE_ERRORS, TurnArchive

logger = logging.getLogger(__name__)


async def check_turn_seat(
    archive: TurnArchive | None, *, options: RoomOptions, player_id: str | None, limit: int
) -> None:
    """Refuse (``429 too_many_turn_games``) a seat at a turn-based table to a player (by the
    player id they joined with) who sits in ``limit`` turn-based games in play already. A
    person without a player id, or a database that does not answer, is not counted: the limit
    bounds what one player keeps, it does not guard the server."""
    if archive is None or options.mode != "turn" or player_id is None:
        return
    try:
        games = await archive.games_of(public_player_id(player_id))
    except DATABASE_ERRORS as error:
        logger.warning("turn-based games not counted (%s)", type(error).__name__)
        return
    if games >= limit:
        raise RoomError(
            "too_many_turn_games",
            f"You already sit in {limit} turn-based games; finish one before taking another seat.",
            status=429,
        )
