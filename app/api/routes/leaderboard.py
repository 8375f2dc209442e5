"""``GET /api/leaderboard``: rated players, best first, a page at a time."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel

from app.db import repository
from app.db.repository import MAX_OFFSET
from app.db.session import SessionDep

router = APIRouter(prefix="/api/leaderboard", tags=["leaderboard"])


class LeaderboardEntry(BaseModel):
    rank: int
    """1 for the best player; positions continue across pages."""
    player_id: str
    name: str
    rating: float
    """Conservative skill estimate (mu - 3 sigma), the number ranked on."""
    rated_games: int
    wins: int


class Leaderboard(BaseModel):
    entries: list[LeaderboardEntry]
    total: int
    """How many rated players there are in all."""
    limit: int
    offset: int


@router.get("")
async def read_leaderboard(
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> Leaderboard:
    page = await repository.leaderboard(session, limit=limit, offset=offset)
    return Leaderboard(
        entries=[
            LeaderboardEntry(
                rank=offset + index + 1,
                player_id=player.id,
                name=player.name,
                rating=player.rating,
                rated_games=player.rated_games,
                wins=player.wins,
            )
            for index, player in enumerate(page.items)
        ],
        total=page.total,
        limit=limit,
        offset=offset,
    )
