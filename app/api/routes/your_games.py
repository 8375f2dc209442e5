"""The games a browser sits in, from the seats it holds. ``POST /api/your-games``: its
turn-based games, and its live tables until their game ends (the lobby's "Your games"); ``POST
/api/turn-games``: its turn-based games only, as it has always answered.

A browser keeps a token per seat it took (no account needed), so it names its seats and the
server answers for each one whose token opens a room that is a turn-based table, or (asked for
your games) a live table waiting for its start or in play: a player who left the page finds
the way back to it. A token that opens nothing there is left out of the answer, with nothing
said about the room: the answer tells a caller only what its own seats already let it see. A
browser signed in to an account is also told the account's games its guests sit in on other
devices: turn-based ones from the database, and (asked for your games) the live tables their
devices connected to lately, from the store (``app/rooms/live_seats.py``). Like every route,
both are rate-limited per client address (``app/api/request_rate.py``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Annotated

from fastapi import APIRouter
from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.repository import AccountPlayers, account_players
from app.accounts.sessions import MaybeSignedIn, SignedIn
from app.api.deps import ServiceDep
from app.api.schemas import STRICT
from app.db.session import SessionDep
from app.rooms import live_seats
from app.rooms.credentials import CODE_ALPHABET, CODE_LENGTH, hash_token
from app.rooms.model import MoveSeconds, Room, RoomMode, RoomStatus
from app.rooms.service import RoomService
from app.store.base import STORE_ERRORS
from app.turns.archive import DATABASE_ERRORS

router = APIRouter(tags=["your games"])
logger = logging.getLogger(__name__)

MOST_ACCOUNT_GAMES = 24
"""A signed-in account's games listed beyond the seats a browser names: a player sits in at
most 20 turn-based games in play (``CASH_STASH_TURN_GAMES_PER_PLAYER``'s default)."""
MOST_TURN_SEATS_ASKED = 24
"""Seats one request for turn-based games may name: a player sits in at most 20 turn-based
games, and a browser may still hold a few seats of games that ended."""
MOST_SEATS_ASKED = MOST_TURN_SEATS_ASKED + 8
"""Seats one request for your games may name: the turn-based ones and the last few live
tables (the lobby names its 24 last turn-based seats and its 8 last live ones)."""

RoomCodeText = Annotated[
    str, Field(min_length=CODE_LENGTH, max_length=CODE_LENGTH, pattern=f"^[{CODE_ALPHABET}]+$")
]
SeatToken = Annotated[str, Field(min_length=1, max_length=64, pattern="^[A-Za-z0-9_-]+$")]


class HeldSeat(BaseModel):
    """A seat this browser holds: the room's code and the seat's token."""

    model_config = STRICT
    code: RoomCodeText
    token: SeatToken


class TurnGamesAsked(BaseModel):
    model_config = STRICT
    seats: Annotated[list[HeldSeat], Field(max_length=MOST_TURN_SEATS_ASKED)]


class YourGamesAsked(BaseModel):
    model_config = STRICT
    seats: Annotated[list[HeldSeat], Field(max_length=MOST_SEATS_ASKED)]


class TurnGame(BaseModel):
    """One game from the side of the seat that asked."""

    code: str
    room_name: str
    seat: int
    """The seat the token opens."""
    your_move: bool
    """The game waits for this seat (a move, or an answer to a challenge)."""
    to_act: list[int]
    """The seats the game waits for (none before the start or after the end)."""
    deadline: float | None
    """Unix time when the clock plays for the seats in ``to_act``; null when the table has
    no time limit or nobody must act."""
    move_seconds: MoveSeconds | None
    """A turn-based table's time to move; null for no limit, and at a live table."""
    status: RoomStatus
    players: list[str | None]
    """The name in each seat; null for an open seat."""


class YourGame(TurnGame):
    mode: RoomMode
    """``live`` (listed until its game ends) or ``turn``."""


class TurnGames(BaseModel):
    games: list[TurnGame]
    """Those waiting for the asker first, the nearest deadline first among them."""


class YourGames(BaseModel):
    games: list[YourGame]
    """Live games in play first, then those waiting for the asker, the nearest deadline first
    among them."""


@router.post("/api/your-games")
async def your_games(
    asked: YourGamesAsked, service: ServiceDep, signed: MaybeSignedIn, session: SessionDep
) -> YourGames:
    games = await _listed(asked.seats, service, signed, session, live=True)
    return YourGames(games=games)


@router.post("/api/turn-games")
async def turn_games(
    asked: TurnGamesAsked, service: ServiceDep, signed: MaybeSignedIn, session: SessionDep
) -> TurnGames:
    games = await _listed(asked.seats, service, signed, session, live=False)
    return TurnGames(games=[TurnGame(**game.model_dump(exclude={"mode"})) for game in games])


async def _listed(
    seats: list[HeldSeat],
    service: RoomService,
    signed: SignedIn | None,
    session: AsyncSession,
    *,
    live: bool,
) -> list[YourGame]:
    """The games the seats open (``live``: live tables too), then the account's, in order."""
    held = {seat.code: seat.token for seat in seats}
    rooms = await asyncio.gather(*(service.peek(code) for code in held))
    games = [
        game
        for room in rooms
        if room is not None
        and (game := _your_game(room, room.seat_of(hash_token(held[room.code])), live=live))
        is not None
    ]
    if signed is not None:
        players = await account_players(session, account_id=signed.account_id)
        games += await _accounts_games(service, players, shown={game.code for game in games})
        if live:
            games += await _accounts_live_tables(
                service, players, shown={game.code for game in games}
            )
    games.sort(key=_waiting_first)
    return games


async def _accounts_games(
    service: RoomService, players: AccountPlayers, *, shown: set[str]
) -> list[YourGame]:
    """The signed-in account's turn-based games in play that the browser named no seat of:
    those its guests took on other devices (the page opens one through
    ``POST /api/rooms/{code}/device``). Each seat is checked against the room as it is now."""
    if service.turns is None:
        return []
    try:
        seats = await service.turns.seats_of(players.public_ids, limit=MOST_ACCOUNT_GAMES)
    except DATABASE_ERRORS as error:
        logger.warning("an account's turn-based games not read (%s)", type(error).__name__)
        return []
    others = [(code, seat) for code, seat in seats if code not in shown]
    rooms = await asyncio.gather(*(service.peek(code) for code, _ in others))
    games = []
    for (_, index), room in zip(others, rooms, strict=True):
        seat = None if room is None or index >= len(room.seats) else room.seats[index]
        if room is None or seat is None or not players.plays(seat.player_id):
            continue
        game = _your_game(room, index, live=False)
        if game is not None:
            games.append(game)
    return games


async def _accounts_live_tables(
    service: RoomService, players: AccountPlayers, *, shown: set[str]
) -> list[YourGame]:
    """The live tables the account's guests sat at lately on other devices
    (``app/rooms/live_seats.py``) that the browser named no seat of, until their game ends. A
    table that is gone, over, or where none of the account's guests sits any more is dropped
    from the list."""
    store = service.store
    ids = sorted(players.public_ids)
    try:
        listed = await asyncio.gather(*(live_seats.codes(store, public_id) for public_id in ids))
    except STORE_ERRORS as error:
        logger.warning("an account's live tables not read (%s)", type(error).__name__)
        return []
    codes = {code: public_id for public_id, each in zip(ids, listed, strict=True) for code in each}
    asked = [code for code in codes if code not in shown][-live_seats.MOST_LISTED :]
    rooms = await asyncio.gather(*(service.peek(code) for code in asked))
    games = []
    for code, room in zip(asked, rooms, strict=True):
        index = None if room is None else room.seat_of_player(players.plays)
        game = None if room is None or index is None else _your_game(room, index, live=True)
        if game is None or game.mode != "live":
            with contextlib.suppress(*STORE_ERRORS):
                await live_seats.forget(store, code, codes[code])
            continue
        games.append(game)
    return games


def _your_game(room: Room, seat: int | None, *, live: bool) -> YourGame | None:
    """``room`` as ``seat`` sees it, or None: no seat, or a live table (``live``: a live
    table whose game is over)."""
    mode = room.options.mode
    if seat is None or (mode == "live" and (not live or room.status == "finished")):
        return None
    game = room.game if room.status == "playing" else None
    to_act = list(game.to_act) if game is not None else []
    return YourGame(
        code=room.code,
        room_name=room.options.room_name,
        mode=mode,
        seat=seat,
        your_move=seat in to_act,
        to_act=to_act,
        deadline=game.deadline if game is not None else None,
        move_seconds=room.options.move_seconds if mode == "turn" else None,
        status=room.status,
        players=[None if taken is None else taken.name for taken in room.seats],
    )


def _waiting_first(game: YourGame) -> tuple[bool, bool, bool, float]:
    """Live games in play first (they go on now), then your move, then games in play, then
    the rest; the nearest deadline first."""
    never = float("inf")
    return (
        not (game.mode == "live" and game.status == "playing"),
        not game.your_move,
        game.status != "playing",
        never if game.deadline is None else game.deadline,
    )
