"""What anyone may know about a room: its public summary (no tokens, no seed, no cards)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from app.rooms.model import (
    AiLevel,
    MoveSeconds,
    Room,
    RoomMode,
    RoomOptions,
    RoomStatus,
    Rounds,
    RuleSet,
)


class SeatPublic(BaseModel):
    seat: int
    name: str
    kind: Literal["person", "ai"]
    level: AiLevel | None = None
    away: bool = False
    """The AI is playing this person's seat until they come back."""
    connected: bool = False
    """A person with an open connection (as far as the server knows)."""


class GamePublic(BaseModel):
    id: str
    over: bool
    winners: list[int] = []
    totals: list[int] = []
    recorded: bool = False
    """The game is over and stored: ``GET /api/games/{id}`` serves it. Never for a practice
    game (``app.games.practice``), which is not stored."""


class RoomPublic(BaseModel):
    code: str
    version: int
    status: RoomStatus
    host: int
    options: RoomOptions
    seats: list[SeatPublic | None]
    """One entry per seat; null is an open seat."""
    open_seats: int
    game: GamePublic | None = None
    """The current or last game; ``GET /api/games/{id}`` serves it once recorded."""


def game_recorded(room: Room) -> bool:
    """Whether the room's game is over and in the database (no longer waiting to be)."""
    game = room.game
    return (
        room.status == "finished"
        and game is not None
        and not game.practice
        and all(finished.game_id != game.id for finished in room.unrecorded)
    )


def room_public(room: Room) -> RoomPublic:
    seats: list[SeatPublic | None] = [
        None
        if seat is None
        else SeatPublic(
            seat=index,
            name=seat.name,
            kind="ai" if seat.is_ai else "person",
            level=seat.level,
            away=seat.away,
            connected=not seat.is_ai and seat.disconnected_at is None,
        )
        for index, seat in enumerate(room.seats)
    ]
    game = None
    if room.game is not None:
        game = GamePublic(
            id=room.game.id,
            over=room.status == "finished",
            winners=room.game.winners,
            totals=room.game.totals,
            recorded=game_recorded(room),
        )
    return RoomPublic(
        code=room.code,
        version=room.version,
        status=room.status,
        host=room.host,
        options=room.options,
        seats=seats,
        open_seats=sum(seat is None for seat in room.seats),
        game=game,
    )


class RoomListItem(BaseModel):
    """A public room waiting for players, as ``GET /api/rooms`` lists it."""

    code: str
    room_name: str
    rules: RuleSet
    draft: bool
    seats: int
    open_seats: int
    turn_seconds: int | None
    mode: RoomMode = "live"
    move_seconds: MoveSeconds | None = None
    """A turn-based room's time to move (null: no limit, or a live room)."""
    rounds: Rounds
    host_name: str


def room_listing(room: Room) -> str | None:
    """The room's entry in the public list (its JSON, kept in the store's index so that the
    list is read without reading any room), or None when the room is not listed."""
    if not room.listed():
        return None
    host = room.seats[room.host]
    return RoomListItem(
        code=room.code,
        room_name=room.options.room_name,
        rules=room.options.rules,
        draft=room.options.draft,
        seats=room.options.seats,
        open_seats=room.options.seats - room.occupied(),
        turn_seconds=room.options.turn_seconds,
        mode=room.options.mode,
        move_seconds=room.options.move_seconds if room.options.mode == "turn" else None,
        rounds=room.options.rounds,
        host_name=host.name if host is not None else "",
    ).model_dump_json()
