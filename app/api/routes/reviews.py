"""``/api/games/{id}/review``: ask for a finished game's review, and follow it to the end;
``/api/games/{id}/practice``: try a decision again at a practice table.

A review shows every card the game's replay shows, no more (each judgement was made from the
deciding seat's own view), so it is open to whoever may read the game: anyone with its id.
"""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any, Literal, cast

from fastapi import APIRouter, Request, Response, status
from pydantic import BaseModel, Field

from app.api.deps import CountedCreation, HubDep, RuntimeDep, TablesDep, client_address
from app.api.errors import Refusal
from app.api.routes.games import GameId
from app.api.schemas import STRICT, DisplayName, GuestId, RoomCreated
from app.db import repository
from app.db.models import Game, GameReview
from app.db.session import SessionDep
from app.games.practice import practice_room, practice_state
from app.rooms.credentials import hash_token, new_seat_token
from app.rooms.errors import RoomError
from app.rooms.model import AiLevel

router = APIRouter(prefix="/api/games", tags=["reviews"])

ReviewStatus = Literal["queued", "running", "done", "failed"]


class ReviewPublic(BaseModel):
    """A review job: how far it is, and the review once done."""

    status: ReviewStatus
    progress: float
    """The share of the game's decisions judged so far, 0 to 1."""
    rounds: int
    """Search rounds per decision (``CASH_STASH_REVIEW_ROUNDS`` when it was queued)."""
    review: dict[str, Any] | None = None
    """Once ``done``: every decision judged, each seat's win-chance series, the key moments
    (see ``docs/ai.md``, "Review")."""
    error: str | None = None
    """Once ``failed``: why, in words. Asking again (POST) queues it anew."""

    @classmethod
    def of(cls, row: GameReview) -> ReviewPublic:
        done = row.status == "done"
        return cls(
            status=row.status,
            progress=row.progress,
            rounds=row.rounds,
            review=row.review if done else None,
            error=row.error if row.status == "failed" else None,
        )


def _game_not_found() -> RoomError:
    return RoomError("game_not_found", "No finished game has this id.", status=404)


async def _game(session: SessionDep, game_id: str) -> Game:
    game = await repository.get_game(session, game_id=game_id)
    if game is None:
        raise _game_not_found()
    return game


@router.post(
    "/{game_id}/review",
    status_code=status.HTTP_202_ACCEPTED,
    responses={
        200: {"model": ReviewPublic, "description": "The review is done."},
        404: {"model": Refusal, "description": "No finished game has this id."},
        429: {
            "model": Refusal,
            "description": "Too many reviews are queued here, or from this address.",
        },
    },
)
async def request_review(
    game_id: GameId,
    session: SessionDep,
    runtime: RuntimeDep,
    response: Response,
    request: Request,
) -> ReviewPublic:
    """Queue the game's review (``202``), or answer the job already there: the same job while
    it runs (``202``), the finished review (``200``, status ``done``). A failed job, or one
    unchanged for ``CASH_STASH_REVIEW_STALE_SECONDS``, is queued again. ``429
    review_queue_full`` when this process already holds ``CASH_STASH_REVIEW_QUEUE`` jobs, ``429
    too_many_reviews`` when it holds ``CASH_STASH_REVIEWS_PER_ADDRESS`` of this address's."""
    game = await _game(session, game_id)
    row = await runtime.reviews.request(session, game=game, address=client_address(request))
    if row.status == "done":
        response.status_code = status.HTTP_200_OK
    return ReviewPublic.of(row)


@router.get(
    "/{game_id}/review",
    responses={
        404: {
            "model": Refusal,
            "description": "No finished game has this id (``game_not_found``), or nobody "
            "asked for its review yet (``review_not_requested``).",
        }
    },
)
async def read_review(game_id: GameId, session: SessionDep) -> ReviewPublic:
    """The game's review job: ``{status, progress, rounds}``, with ``review`` once done."""
    await _game(session, game_id)
    row = await session.get(GameReview, game_id)
    if row is None:
        raise RoomError(
            "review_not_requested",
            "Nobody has asked for this game's review yet; POST to this address to ask.",
            status=404,
        )
    return ReviewPublic.of(row)


class PracticeRequest(BaseModel):
    """Who sits at the practice table, and at which decision of the game."""

    model_config = STRICT
    step: Annotated[int, Field(ge=0)]
    """The decision's step in the game (its index in the review's ``decisions``)."""
    name: DisplayName
    player_id: GuestId | None = None


@router.post(
    "/{game_id}/practice",
    status_code=status.HTTP_201_CREATED,
    dependencies=[CountedCreation],
    responses={
        400: {"model": Refusal, "description": "The game has no decision at that step."},
        404: {"model": Refusal, "description": "No finished game has this id."},
        429: {
            "model": Refusal,
            "description": "Too many rooms created from here (``too_many_rooms``), or too many "
            "games in play from here or in all (``too_many_games``): a practice table is one.",
        },
    },
)
async def practice(
    game_id: GameId,
    body: PracticeRequest,
    request: Request,
    session: SessionDep,
    tables: TablesDep,
    hub: HubDep,
) -> RoomCreated:
    """A practice table at decision ``step``: a new private room already in play, where the
    caller holds the seat that decided, seeing what it saw (its hand and every public zone),
    with every card that seat could not see dealt afresh; every other seat is an AI (an AI
    seat at its level, a person's seat at Medium). Unrated and not recorded. Answers the
    seat and its token, as creating a room does."""
    game = await _game(session, game_id)
    state, seat = await asyncio.to_thread(practice_state, game.config, game.actions, body.step)
    levels: list[AiLevel | None] = [None] * len(game.seats)
    for record in game.seats:
        levels[record.seat] = cast(AiLevel | None, record.ai_level)
    token = new_seat_token()
    room = await tables.open_room(
        lambda code: practice_room(
            code=code,
            state=state,
            seat=seat,
            levels=levels,
            name=body.name,
            token_hash=hash_token(token),
            player_id=None if body.player_id is None else str(body.player_id),
            now=time.time(),
        ),
        address=client_address(request),
    )
    hub.committed(room)
    return RoomCreated(code=room.code, seat=seat, token=token)
