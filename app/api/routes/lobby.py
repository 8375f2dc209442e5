"""``GET /api/lobby``: players online, games in play and the public ones to watch."""

from __future__ import annotations

import logging
from typing import Annotated

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from app.api.public_lists import PublicLists
from app.db.models import Player
from app.db.session import SessionDep
from app.games.ratings import ai_rating
from app.matchmaking.live import LiveGame

router = APIRouter(prefix="/api/lobby", tags=["lobby"])
logger = logging.getLogger(__name__)

LIVE_PAGE = 20
"""The most live games one page holds."""
MAX_LIVE_OFFSET = 10_000


class LobbyPublic(BaseModel):
    online: int
    """Players connected now (at a table, watching, or waiting for Play now), over every
    server process."""
    playing: int
    """Games in play now, public or not."""
    live: list[LiveGame]
    """A page of the public games in play, the most recently active first."""
    live_total: int
    """How many public games are in play."""


@router.get("")
async def read_lobby(
    request: Request,
    session: SessionDep,
    limit: Annotated[int, Query(ge=1, le=LIVE_PAGE)] = 10,
    offset: Annotated[int, Query(ge=0, le=MAX_LIVE_OFFSET)] = 0,
) -> LobbyPublic:
    lists: PublicLists = request.app.state.lists
    live = await lists.live.get()
    games = [LiveGame.model_validate_json(text) for text in live.listings[offset : offset + limit]]
    ids = {p.player for game in games for p in game.players if p.player is not None}
    ratings: dict[str, float] | None = {}
    if ids:
        try:
            rows = await session.execute(select(Player.id, Player.rating).where(Player.id.in_(ids)))
            ratings = {player: rating for player, rating in rows.tuples()}
        except SQLAlchemyError:
            # The database is out of reach: the list is still shown, people's ratings unknown.
            logger.warning("live games listed without ratings: the database failed")
            ratings = None
    for game in games:
        for player in game.players:
            if player.kind == "ai":
                player.rating = ai_rating(player.level or "medium").display
            elif ratings is not None:
                player.rating = ratings.get(player.player or "", 0.0)
    return LobbyPublic(
        online=live.online, playing=live.playing, live=games, live_total=live.live_total
    )
