"""Request and response bodies of the room routes."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from app.rooms.model import AiLevel, Rounds, RuleSet, TurnSeconds, Visibility

DisplayName = Annotated[str, Field(min_length=1, max_length=30)]
RoomName = Annotated[str, Field(min_length=1, max_length=60)]


class RoomCreate(BaseModel):
    """A new room; ``name`` is the creator's display name (they hold seat 0 and are host)."""

    model_config = ConfigDict(extra="forbid")
    name: DisplayName
    room_name: RoomName | None = None
    """Shown in the lobby; defaults to "<name>'s table"."""
    rules: RuleSet = "advanced"
    draft: bool = False
    seats: Annotated[int, Field(ge=2, le=6)] = 4
    visibility: Visibility = "private"
    turn_seconds: TurnSeconds | None = None
    rounds: Rounds = 1
    player_id: UUID | None = None
    """The creator's guest player id, if they have one."""


class RoomUpdate(BaseModel):
    """Options the host changes before the start; fields left out stay as they are."""

    model_config = ConfigDict(extra="forbid")
    room_name: RoomName | None = None
    rules: RuleSet | None = None
    draft: bool | None = None
    seats: Annotated[int, Field(ge=2, le=6)] | None = None
    visibility: Visibility | None = None
    turn_seconds: TurnSeconds | None = None
    rounds: Rounds | None = None


class JoinRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: DisplayName
    player_id: UUID | None = None


class BotRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    level: AiLevel = "medium"


class RoomCreated(BaseModel):
    code: str
    seat: int
    token: str
    """The seat token: keep it secret; it reconnects the seat and proves the host."""


class SeatGranted(BaseModel):
    seat: int
    token: str


class BotAdded(BaseModel):
    seat: int


class RoomListItem(BaseModel):
    code: str
    room_name: str
    rules: RuleSet
    draft: bool
    seats: int
    open_seats: int
    turn_seconds: int | None
    rounds: Rounds
    host_name: str
