"""``POST /api/turn-games``: the turn-based games a browser sits in, from the seats it holds.

A browser keeps a token per seat it took (no account needed), so it names its seats and the
server answers for each one whose token opens a turn-based room. A token that opens nothing
there is left out of the answer, with nothing said about the room: the answer tells a caller
only what its own seats already let it see. Like every route, it is rate-limited per client
address (``app/api/request_rate.py``)."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter
from pydantic import BaseModel, Field

from app.api.deps import ServiceDep
from app.api.schemas import STRICT
from app.rooms.credentials import CODE_ALPHABET, CODE_LENGTH, hash_token
from app.rooms.model import MoveSeconds, Room, RoomStatus

router = APIRouter(prefix="/api/turn-games", tags=["turn-based games"])

MOST_SEATS_ASKED = 24
"""Seats one request may name: a player sits in at most 20 turn-based games, and a browser
may still hold a few seats of games that ended."""

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
    seats: Annotated[list[HeldSeat], Field(max_length=MOST_SEATS_ASKED)]


class TurnGame(BaseModel):
    """One turn-based game from the side of the seat that asked."""

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
    """The table's time to move; null for no limit."""
    status: RoomStatus
    players: list[str | None]
    """The name in each seat; null for an open seat."""


class TurnGames(BaseModel):
    games: list[TurnGame]
    """Those waiting for the asker first, the nearest deadline first among them."""


@router.post("")
async def turn_games(asked: TurnGamesAsked, service: ServiceDep) -> TurnGames:
    held = {seat.code: seat.token for seat in asked.seats}
    rooms = await asyncio.gather(*(service.peek(code) for code in held))
    games = [
        game
        for room in rooms
        if room is not None and (game := _turn_game(room, hash_token(held[room.code]))) is not None
    ]
    games.sort(key=_waiting_first)
    return TurnGames(games=games)


def _turn_game(room: Room, token_hash: str) -> TurnGame | None:
    """``room`` as the seat ``token_hash`` opens sees it, or None: not a turn-based room, or
    not a seat of it."""
    seat = room.seat_of(token_hash)
    if seat is None or room.options.mode != "turn":
        return None
    game = room.game if room.status == "playing" else None
    to_act = list(game.to_act) if game is not None else []
    return TurnGame(
        code=room.code,
        room_name=room.options.room_name,
        seat=seat,
        your_move=seat in to_act,
        to_act=to_act,
        deadline=game.deadline if game is not None else None,
        move_seconds=room.options.move_seconds,
        status=room.status,
        players=[None if taken is None else taken.name for taken in room.seats],
    )


def _waiting_first(game: TurnGame) -> tuple[bool, bool, float]:
    """Your move first, then games in play, then the rest; the nearest deadline first."""
    never = float("inf")
    return (
        not game.your_move,
        game.status != "playing",
        never if game.deadline is None else game.deadline,
    )
