"""``GET /api/players/{id}/games``: a player's finished games, newest first."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, ConfigDict
from sqlalchemy import select

from app.api.routes.games import SeatPublic
from app.db import repository
from app.db.models import GameReview
from app.db.repository import MAX_OFFSET
from app.db.session import SessionDep

router = APIRouter(prefix="/api/players", tags=["players"])


class PlayerPublic(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    id: str
    """The public player id (never the guest id the browser keeps)."""
    name: str
    rating: float
    """Conservative skill estimate (mu - 3 sigma), the number ranked on."""
    mu: float
    sigma: float
    games: int
    rated_games: int
    wins: int


class PlayerGame(BaseModel):
    """One finished game from the player's side."""

    id: str
    rules: str
    draft: bool
    rounds: int | str
    ended_at: datetime
    seat: int
    """The seat the player held."""
    total: int
    winner: bool
    rating_before: float | None
    rating_after: float | None
    players: list[SeatPublic]
    accuracy: float | None = None
    """The player's accuracy in the game's review (0 to 100), once a review is done."""


class PlayerHistory(BaseModel):
    player: PlayerPublic | None
    """None until the player has a finished game (a new guest's history is empty, not missing)."""
    games: list[PlayerGame]
    total: int
    """How many finished games the player has in all."""
    limit: int
    offset: int


@router.get("/{player_id}/games")
async def read_player_games(
    player_id: Annotated[str, Path(max_length=64)],
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> PlayerHistory:
    """``player_id`` is the public id, or the guest id the player's own browser keeps. An id
    with no finished game yet (a new guest's) has an empty history."""
    player = await repository.get_player(session, player_id=player_id)
    if player is None:
        return PlayerHistory(player=None, games=[], total=0, limit=limit, offset=offset)
    page = await repository.player_games(session, player_id=player.id, limit=limit, offset=offset)
    reviewed = await session.execute(
        select(GameReview.game_id, GameReview.review).where(
            GameReview.game_id.in_([game.id for _, game in page.items]),
            GameReview.status == "done",
        )
    )
    reviews = {game_id: review for game_id, review in reviewed if review is not None}
    return PlayerHistory(
        player=PlayerPublic.model_validate(player),
        games=[
            PlayerGame(
                id=game.id,
                rules=game.rules,
                draft=game.draft,
                rounds=game.config.get("rounds", 1),
                ended_at=game.ended_at,
                seat=seat.seat,
                total=seat.total,
                winner=seat.winner,
                rating_before=seat.rating_before,
                rating_after=seat.rating_after,
                players=[SeatPublic.model_validate(other) for other in game.seats],
                accuracy=_accuracy(reviews.get(game.id), seat.seat),
            )
            for seat, game in page.items
        ],
        total=page.total,
        limit=limit,
        offset=offset,
    )


def _accuracy(review: dict[str, Any] | None, seat: int) -> float | None:
    """The seat's accuracy in a finished review (reviews made before accuracies have none)."""
    if review is None:
        return None
    seats = review.get("seats", [])
    value = seats[seat].get("accuracy") if seat < len(seats) else None
    return float(value) if isinstance(value, int | float) else None
