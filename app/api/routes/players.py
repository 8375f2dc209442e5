"""``GET /api/players/{id}/games`` (a player's finished games, newest first) and
``GET /api/players/{id}/profile`` (name, rating, recent games; presence for friends, the
friends list for the owner).

A guest's history is shown to whoever names its public id, as before accounts. An account's
games beyond those of public rooms, and where it is, are for its friends and itself only: the
owner is the session's account, or a caller naming a guest id (a secret) that plays for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel, ConfigDict
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.sessions import MaybeSignedIn, account_store
from app.api.errors import Refusal
from app.api.routes.friends import PlayerFound, WhereNow, where_now
from app.api.routes.games import SeatPublic
from app.db import repository
from app.db.models import Account, GameReview, Player
from app.db.repository import MAX_OFFSET, Page, public_player_id
from app.db.session import SessionDep
from app.friends import presence, service
from app.rooms.errors import RoomError

router = APIRouter(prefix="/api/players", tags=["players"])

PROFILE_GAMES = 10
"""How many recent games a profile shows."""
Viewer = Literal["owner", "friend", "other"]


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


@dataclass(frozen=True, slots=True)
class Viewed:
    """The player a path names, as its caller may see it."""

    player_id: str
    """The public id (an account's player for a guest that plays for it)."""
    player: Player | None
    """None until a finished game."""
    account: Account | None
    """The account whose player it is, if any."""
    viewer: Viewer
    """``owner`` and ``friend`` by the session only."""
    by_guest_id: bool
    """The caller named a guest id of the player's, a secret of its own devices."""

    @property
    def all_games(self) -> bool:
        """Whether every game is shown: a guest's are, an account's beyond public rooms'
        only to its friends and itself (its session, or its devices' guest ids)."""
        return self.account is None or self.by_guest_id or self.viewer != "other"


async def _viewed(session: AsyncSession, player_id: str, signed: MaybeSignedIn) -> Viewed:
    digest = public_player_id(player_id)
    owners = await repository.account_players(session, player_ids=[player_id, digest])
    # A guest id is a secret: naming one that has played (or plays for an account) is its own
    # device's call, as the lobby's "your games" is. It shows the games, not the friends.
    if digest in owners or await session.get(Player, digest) is not None:
        public, by_guest = owners.get(digest, digest), True
    else:
        public, by_guest = owners.get(player_id, player_id), False
    player = await session.get(Player, public)
    account = await session.scalar(select(Account).where(Account.player_id == public))
    viewer: Viewer = "other"
    if account is not None and signed is not None:
        if signed.account_id == account.id:
            viewer = "owner"
        elif await service.are_friends(session, me=signed.account_id, other=account.id):
            viewer = "friend"
    return Viewed(
        player_id=public, player=player, account=account, viewer=viewer, by_guest_id=by_guest
    )


async def _games(session: AsyncSession, page: Page[tuple[Any, Any]]) -> list[PlayerGame]:
    reviewed = await session.execute(
        select(GameReview.game_id, GameReview.review).where(
            GameReview.game_id.in_([game.id for _, game in page.items]),
            GameReview.status == "done",
        )
    )
    reviews = {game_id: review for game_id, review in reviewed if review is not None}
    return [
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
    ]


@router.get("/{player_id}/games")
async def read_player_games(
    player_id: Annotated[str, Path(max_length=64)],
    session: SessionDep,
    signed: MaybeSignedIn,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> PlayerHistory:
    """``player_id`` is the public id, or the guest id the player's own browser keeps. An id
    with no finished game yet (a new guest's) has an empty history. An account's games other
    than public rooms' are listed for its friends and itself only."""
    viewed = await _viewed(session, player_id, signed)
    if viewed.player is None:
        return PlayerHistory(player=None, games=[], total=0, limit=limit, offset=offset)
    page = await repository.player_games(
        session,
        player_id=viewed.player_id,
        limit=limit,
        offset=offset,
        public_only=not viewed.all_games,
    )
    return PlayerHistory(
        player=PlayerPublic.model_validate(viewed.player),
        games=await _games(session, page),
        total=page.total,
        limit=limit,
        offset=offset,
    )


class Profile(BaseModel):
    """A player's profile, as its caller may see it."""

    player_id: str
    name: str
    account: bool
    """An account's player (else a guest's)."""
    rating: float | None
    """None until a rated game (one with two people or more)."""
    games: int
    wins: int
    viewer: Viewer
    """Who is looking, by the session: the player themself, a friend, or anyone else."""
    where: WhereNow | None
    """Where the player is: for their friends and themself only."""
    recent: list[PlayerGame]
    """The latest games, with replay (``/games/{id}``) and review links."""
    public_only: bool
    """True when ``recent`` holds public rooms' games only (the viewer is not a friend)."""
    friends: list[PlayerFound] | None
    """The account's friends: for its owner only."""


@router.get(
    "/{player_id}/profile",
    responses={404: {"model": Refusal, "description": "No such player."}},
)
async def read_profile(
    player_id: Annotated[str, Path(max_length=64)],
    session: SessionDep,
    signed: MaybeSignedIn,
    request: Request,
) -> Profile:
    """The profile of the player ``player_id`` names (public id, or one's own guest id)."""
    viewed = await _viewed(session, player_id, signed)
    player, account = viewed.player, viewed.account
    if player is None and account is None:
        raise RoomError("player_not_found", "No player has that id.", status=404)
    page = await repository.player_games(
        session,
        player_id=viewed.player_id,
        limit=PROFILE_GAMES,
        offset=0,
        public_only=not viewed.all_games,
    )
    where = None
    friends = None
    if account is not None and signed is not None and viewed.viewer != "other":
        mine = signed.account_id
        places = await presence.whereabouts(account_store(request), [account.id, mine])
        where = where_now(places[account.id], places[mine])
    if account is not None and viewed.viewer == "owner":
        circle = await service.circle(session, me=account.id)
        friends = [PlayerFound(id=one.id, name=one.name) for one in circle.friends]
    return Profile(
        player_id=viewed.player_id,
        name=account.name if account is not None else player.name if player else "",
        account=account is not None,
        rating=None if player is None or not player.rated_games else player.rating,
        games=0 if player is None else player.games,
        wins=0 if player is None else player.wins,
        viewer=viewed.viewer,
        where=where,
        recent=await _games(session, page),
        public_only=not viewed.all_games,
        friends=friends,
    )


def _accuracy(review: dict[str, Any] | None, seat: int) -> float | None:
    """The seat's accuracy in a finished review (reviews made before accuracies have none)."""
    if review is None:
        return None
    seats = review.get("seats", [])
    value = seats[seat].get("accuracy") if seat < len(seats) else None
    return float(value) if isinstance(value, int | float) else None
