"""Wire messages: what a client may send (a discriminated union on ``type``) and what it gets."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from app.rooms.public import RoomPublic

Ref = Annotated[str, Field(min_length=1, max_length=64)] | int


class Act(BaseModel):
    """Play an action as the connection's seat; ``version`` is the state it was chosen in."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["act"]
    ref: Ref
    version: int
    action: dict[str, Any]


class Chat(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["chat"]
    text: Annotated[str, Field(max_length=2000)]


class Ping(BaseModel):
    model_config = ConfigDict(extra="forbid")
    type: Literal["ping"]


class Hint(BaseModel):
    """Ask for a hint for one's own move (``app/rooms/hints.py``)."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["hint"]


ClientMessage = Annotated[Act | Chat | Ping | Hint, Field(discriminator="type")]
CLIENT_TYPES = frozenset({"act", "chat", "ping", "hint"})
client_message: TypeAdapter[Act | Chat | Ping | Hint] = TypeAdapter(ClientMessage)


class StateMessage(TypedDict):
    """The seat's view after a change (or on connect), with what it may and may not do now.

    A plain dict: the view is JSON-ready already, and this message goes out on every change.
    """

    type: Literal["state"]
    version: int
    view: dict[str, Any]
    legal: list[dict[str, Any]]
    blocked: list[dict[str, Any]]
    deadline: float | None
    """Unix time when the clock plays for the seats in ``to_act``; null without a clock."""
    ref: str | int | None
    """The ``ref`` of this seat's ``act`` that produced this state, if one did."""


class ErrorMessage(BaseModel):
    type: Literal["error"] = "error"
    ref: str | int | None = None
    code: str
    message: str


class ChatMessage(BaseModel):
    type: Literal["chat"] = "chat"
    seat: int
    name: str
    text: str
    at: float


class Pong(BaseModel):
    type: Literal["pong"] = "pong"


class RoomMessage(BaseModel):
    """The room's public summary, after every lobby change and on connect."""

    type: Literal["room"] = "room"
    room: RoomPublic
