"""``GET /api/games/{id}``: a finished game and its replay, every card face up.

What the public sees of a finished game, private or public: who sat where, the scores, and the
replay. Never the room's code: a private room's code still opens that room (its rematches are
played in it), so no record carries one; the game's ``visibility`` says what kind it was.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Path, Request
from pydantic import BaseModel, ConfigDict

from app.api.deps import RuntimeDep, client_address
from app.api.errors import Refusal
from app.db import repository
from app.db.models import Game
from app.db.session import SessionDep
from app.games.replay import Replay, replay
from app.rooms.errors import RoomError
from app.runtime import Runtime

router = APIRouter(
    prefix="/api/games",
    tags=["games"],
    responses={404: {"model": Refusal, "description": "No finished game has this id."}},
)

GameId = Annotated[str, Path(max_length=36)]
"""A game id is a uuid's text; nothing longer is looked up."""


class SeatPublic(BaseModel):
    """Who sat in one seat and how they did."""

    model_config = ConfigDict(from_attributes=True)

    seat: int
    name: str
    player_id: str | None
    """The player's public id (link to ``/api/players/{id}/games``); None for AI and anonymous."""
    ai_level: str | None
    total: int
    winner: bool
    rating_before: float | None
    """Displayed rating before this game; None when the game did not move it."""
    rating_after: float | None
    hints: int
    """Hints the seat asked for during the game (a game with any is not rated)."""


class GameSummary(BaseModel):
    """A finished game at a glance."""

    id: str
    visibility: Literal["public", "private"]
    rules: str
    draft: bool
    rounds: int | str
    """The win condition: 1, 3, ``"million"`` or ``"two_round_wins"``."""
    players: list[SeatPublic]
    round_scores: list[list[int]]
    """Per round, each seat's stash value."""
    totals: list[int]
    winners: list[int]
    rated: bool
    """Whether the game moved ratings (at least two people played, and no seat took a hint)."""
    started_at: datetime
    ended_at: datetime

    @classmethod
    def of(cls, game: Game) -> GameSummary:
        return cls(
            id=game.id,
            visibility="public" if game.visibility == "public" else "private",
            rules=game.rules,
            draft=game.draft,
            rounds=game.config.get("rounds", 1),
            players=[SeatPublic.model_validate(seat) for seat in game.seats],
            round_scores=game.round_scores,
            totals=game.totals,
            winners=game.winners,
            rated=game.rated,
            started_at=game.started_at,
            ended_at=game.ended_at,
        )


class ReplayStepPublic(BaseModel):
    action: dict[str, Any] | None
    """The action that led here; None for the deal."""
    log: list[dict[str, Any]]
    """What this step added to the game log."""
    view: dict[str, Any]
    """The public view with every hand, the deck and the draft piles revealed (no log)."""


class GamePublic(GameSummary):
    """A finished game with its replay: one step for the deal, then one per action."""

    replay: list[ReplayStepPublic]
    replay_complete: bool
    """False only if the rules changed since the game was played and the replay diverged."""


RECENT_REPLAYS = 16
"""How many replays this process keeps: a finished game never changes, so a replay shared
around is computed once, not on every request."""

_recent_replays: OrderedDict[str, Replay] = OrderedDict()


async def _replay_of(game: Game, *, request: Request, runtime: Runtime) -> Replay:
    """The game's replay: kept, or computed if this address has replays left this minute
    (``CASH_STASH_REPLAYS_PER_MINUTE``): one takes far more CPU than its request, and cycling
    through more games than are kept would otherwise fill a core."""
    replayed = _recent_replays.get(game.id)
    if replayed is None:
        if not await runtime.service.store.hit(
            f"replay:{client_address(request)}",
            limit=runtime.settings.replays_per_minute,
            window_seconds=60,
        ):
            raise RoomError(
                "too_many_replays",
                "Too many games replayed from here; wait a minute and try again.",
                status=429,
            )
        # Replaying is pure CPU work; keep it off the event loop.
        replayed = await asyncio.to_thread(replay, game.config, game.actions)
        _recent_replays[game.id] = replayed
        while len(_recent_replays) > RECENT_REPLAYS:
            _recent_replays.popitem(last=False)
    _recent_replays.move_to_end(game.id)
    return replayed


@router.get(
    "/{game_id}",
    responses={429: {"model": Refusal, "description": "Too many replays from this address."}},
)
async def read_game(
    game_id: GameId, session: SessionDep, request: Request, runtime: RuntimeDep
) -> GamePublic:
    game = await repository.get_game(session, game_id=game_id)
    if game is None:
        raise HTTPException(status_code=404, detail="No finished game has this id.")
    replayed = await _replay_of(game, request=request, runtime=runtime)
    summary = GameSummary.of(game)
    return GamePublic(
        **summary.model_dump(),
        replay=[
            ReplayStepPublic(action=step.action, log=step.log, view=step.view)
            for step in replayed.steps
        ],
        replay_complete=replayed.complete,
    )
