"""``GET /api/games/{id}``: a finished game and its replay, every card face up.

What the public sees of a finished game, private or public: who sat where, the scores, and the
replay. Never the room's code: a private room's code still opens that room (its rematches are
played in it), so no record carries one; the game's ``visibility`` says what kind it was.

A replay is megabytes of JSON. Its answer is made once and kept as bytes, plain and gzipped
(``app/api/encoded.py``), with an ``ETag``: a client that holds it already is answered ``304``
with no body. The bytes an address is sent of replays are budgeted (``app/api/byte_budget.py``),
kept replays included: sending one costs no replaying, but still costs its bytes.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, HTTPException, Path, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict
from sqlalchemy.ext.asyncio import AsyncSession

from app.api.byte_budget import ByteBudget, retry_after
from app.api.deps import RuntimeDep, client_address
from app.api.encoded import Encoded
from app.api.errors import Refusal
from app.db import repository
from app.db.models import Game
from app.db.session import SessionDep
from app.games.replay import replay
from app.recent import Recent
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
"""How many replays this process keeps, as the bytes of their answers: a finished game never
changes, so a replay shared around is computed and encoded once, not on every request."""


def recent_replays() -> Recent[str, Encoded]:
    """The replays a process keeps, by game id (``app/main.py`` makes it)."""
    return Recent(RECENT_REPLAYS)


REPLAY_HEADERS = {"Vary": "Accept-Encoding", "Cache-Control": "no-cache"}
"""On every replay answer: which header chose its encoding; and that a client asks again each
time with its validator (a server with other rules may replay the game otherwise), which costs
a ``304`` and no body when nothing changed."""


async def _replay_answer(
    game_id: str, *, session: AsyncSession, request: Request, runtime: Runtime
) -> Encoded:
    """The game's answer: kept, or replayed and encoded if this address has replays left this
    minute (``CASH_STASH_REPLAYS_PER_MINUTE``): one takes far more CPU than its request, and
    cycling through more games than are kept would otherwise fill a core."""
    kept: Recent[str, Encoded] = request.app.state.recent_replays
    answer = kept.get(game_id)
    if answer is None:
        game = await repository.get_game(session, game_id=game_id)
        if game is None:
            raise HTTPException(status_code=404, detail="No finished game has this id.")
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
        summary = GameSummary.of(game).model_dump(mode="json")
        # Replaying and encoding are pure CPU work; keep them off the event loop.
        answer = await asyncio.to_thread(_encoded_replay, summary, game.config, game.actions)
        kept.put(game_id, answer)
    return answer


def _encoded_replay(
    summary: dict[str, Any], config: dict[str, Any], actions: list[dict[str, Any]]
) -> Encoded:
    """``GamePublic``'s JSON, made from plain data: a model of thousands of steps would be
    validated for nothing."""
    replayed = replay(config, actions)
    steps = [{"action": step.action, "log": step.log, "view": step.view} for step in replayed.steps]
    body = {**summary, "replay": steps, "replay_complete": replayed.complete}
    return Encoded.of(orjson.dumps(body))


def _replay_budget(request: Request) -> ByteBudget:
    """The app's budget of replay bytes per address (``app/main.py`` makes it)."""
    budget: ByteBudget = request.app.state.replay_budget
    return budget


@router.get(
    "/{game_id}",
    response_model=GamePublic,
    responses={
        304: {"description": "The client's copy (``If-None-Match``) is this replay; no body."},
        429: {
            "model": Refusal,
            "description": "Too many replays computed, or replay bytes sent, to this address.",
        },
    },
)
async def read_game(
    game_id: GameId, session: SessionDep, request: Request, runtime: RuntimeDep
) -> Response:
    answer = await _replay_answer(game_id, session=session, request=request, runtime=runtime)
    matched = answer.matched(request.headers)
    if matched is not None:
        return Response(status_code=304, headers={"ETag": matched, **REPLAY_HEADERS})
    body, etag, gzipped = answer.body_for(request.headers)
    wait = _replay_budget(request).spend(client_address(request), len(body))
    if wait:
        return JSONResponse(
            {
                "code": "too_many_replay_bytes",
                "detail": "Too many replay bytes sent here; wait a moment and try again.",
            },
            status_code=429,
            headers={"Retry-After": retry_after(wait)},
        )
    headers = {"ETag": etag, **REPLAY_HEADERS}
    if gzipped:
        headers["Content-Encoding"] = "gzip"
    return Response(body, media_type="application/json", headers=headers)
