"""Request and response bodies of the room routes."""

from __future__ import annotations

from typing import Annotated
from uuid import UUID

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from app.rooms.model import (
    AiLevel,
    MoveSeconds,
    RoomMode,
    Rounds,
    RuleSet,
    TurnSeconds,
    Visibility,
)
from app.rooms.public import RoomListItem

__all__ = ["RoomListItem"]
from app.text import TextRefused, clean_text

NAME_LENGTH = 30
ROOM_NAME_LENGTH = 60


def _shown_text(what: str, max_length: int) -> AfterValidator:
    """``app.text.clean_text`` as a field's check: its code becomes the error's type."""

    def cleaned(text: str) -> str:
        try:
            return clean_text(text, what=what, max_length=max_length)
        except TextRefused as refused:
            raise PydanticCustomError(refused.code, refused.message) from None

    return AfterValidator(cleaned)


DisplayName = Annotated[
    str, Field(min_length=1, max_length=NAME_LENGTH), _shown_text("A name", NAME_LENGTH)
]
RoomName = Annotated[
    str,
    Field(min_length=1, max_length=ROOM_NAME_LENGTH),
    _shown_text("A room name", ROOM_NAME_LENGTH),
]
GuestId = Annotated[UUID, Field(strict=False)]
"""A uuid, given as its text (the one field a JSON string stands for)."""

STRICT = ConfigDict(extra="forbid", strict=True)
"""Request bodies take JSON's own types only: no ``"3"`` for 3, no ``3.0`` or ``true`` for a
number, no ``1e400``, ``Infinity`` or ``NaN`` anywhere."""


class RoomCreate(BaseModel):
    """A new room; ``name`` is the creator's display name (they hold seat 0 and are host)."""

    model_config = STRICT
    name: DisplayName
    room_name: RoomName | None = None
    """Shown in the lobby; defaults to "<name>'s table"."""
    rules: RuleSet = "advanced"
    draft: bool = False
    seats: Annotated[int, Field(ge=2, le=6)] = 4
    visibility: Visibility = "private"
    mode: RoomMode = "live"
    turn_seconds: TurnSeconds | None = None
    move_seconds: MoveSeconds | None = 86_400
    """A turn-based table's time to move; null for no limit."""
    rounds: Rounds = 1
    player_id: GuestId | None = None
    """The creator's guest player id, if they have one."""
    hints: bool = False
    """Whether seated players may ask for hints during play; such a game is not rated."""
    spectators: bool | None = None
    """Whether the code alone lets someone watch; by default only in a public room."""


class RoomUpdate(BaseModel):
    """Options the host changes before the start; fields left out stay as they are."""

    model_config = STRICT
    room_name: RoomName | None = None
    rules: RuleSet | None = None
    draft: bool | None = None
    seats: Annotated[int, Field(ge=2, le=6)] | None = None
    visibility: Visibility | None = None
    turn_seconds: TurnSeconds | None = None
    rounds: Rounds | None = None
    spectators: bool | None = None
    hints: bool | None = None


class JoinRequest(BaseModel):
    model_config = STRICT
    name: DisplayName
    player_id: GuestId | None = None


class BotRequest(BaseModel):
    model_config = STRICT
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
