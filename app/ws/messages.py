"""Wire messages: what a client may send (a discriminated union on ``type``) and what it gets."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from app.rooms.chat import ChatLine
from app.rooms.public import RoomPublic

_STRICT = ConfigDict(extra="forbid", strict=True)
"""Every client message: no unknown fields, and no coercion (``"3"`` is not 3, ``true`` and
``0.0`` are not 0): what a client means must be what it sent."""

WireInt = Annotated[int, Field(ge=-(2**53), le=2**53)]
"""An integer any JSON reader keeps exactly."""
Ref = Annotated[str, Field(min_length=1, max_length=64)] | WireInt
Token = Annotated[str, Field(min_length=1, max_length=64)]
Word = Annotated[str, Field(max_length=32)]
CardIds = Annotated[list[WireInt], Field(max_length=8)]


class Hello(BaseModel):
    """A connection's first message: who it is (a seat's token), or nobody (a spectator)."""

    model_config = _STRICT
    type: Literal["hello"]
    token: Token | None = None


class Action(BaseModel):
    """An engine action as a client sends it (docs/design.md, "Actions"). The engine judges it;
    this only makes sure every field is of the type the engine's own actions use."""

    model_config = _STRICT
    type: Word
    seat: WireInt | None = None
    card: WireInt | None = None
    cards: CardIds | None = None
    target: WireInt | None = None
    depth: WireInt | None = None
    direction: Word | None = None
    piles: CardIds | None = None


class Act(BaseModel):
    """Play an action as the connection's seat; ``version`` is the state it was chosen in."""

    model_config = _STRICT
    type: Literal["act"]
    ref: Ref
    version: Annotated[int, Field(ge=0, le=2**53)]
    action: Action

    def engine_action(self) -> dict[str, Any]:
        """The action with only the fields the client sent."""
        return self.action.model_dump(exclude_unset=True)


class Chat(BaseModel):
    model_config = _STRICT
    type: Literal["chat"]
    text: Annotated[str, Field(max_length=2000)]


class Ping(BaseModel):
    model_config = _STRICT
    type: Literal["ping"]


class Hint(BaseModel):
    """Ask for a hint for one's own move (``app/rooms/hints.py``)."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["hint"]


class Resync(BaseModel):
    """Ask for the room summary and a whole ``state`` (``log_from`` 0) of the current
    version: a client whose log has a gap (a ``log_from`` that is not its length) starts
    over from it. ``ref``, if given, is echoed in an ``error`` that answers it."""

    model_config = _STRICT
    type: Literal["resync"]
    ref: Ref | None = None


ClientMessage = Annotated[Act | Chat | Ping | Hint | Resync, Field(discriminator="type")]
CLIENT_TYPES = frozenset({"act", "chat", "ping", "hint", "resync"})
client_message: TypeAdapter[Act | Chat | Ping | Hint | Resync] = TypeAdapter(ClientMessage)


class StateMessage(TypedDict):
    """The seat's view after a change (or on connect), with what it may and may not do now.

    A plain dict: the view is JSON-ready already, and this message goes out on every change.
    """

    type: Literal["state"]
    version: int
    view: dict[str, Any]
    """Complete but for its ``log``: the entries from ``log_from`` on."""
    legal: list[dict[str, Any]]
    blocked: list[dict[str, Any]]
    deadline: float | None
    """Unix time when the clock plays for the seats in ``to_act``; null without a clock."""
    ref: str | int | None
    """The ``ref`` of this seat's ``act`` that produced this state, if one did."""
    log_from: int
    """The index in the game's whole log of the first entry of ``view.log``: 0 for the whole
    log (a connection's first state, after a resync, a new game); later, the length of the
    log as of the connection's previous state, so that the client appends the entries."""


class ErrorMessage(BaseModel):
    type: Literal["error"] = "error"
    ref: str | int | None = None
    code: str
    message: str
    retry_after: int | None = None
    """Seconds until what was refused or delayed may be had (a budget's refusals only; left
    out of the others)."""


class AppliedMessage(TypedDict):
    """The answer to an ``act`` whose ``ref`` this seat had applied before: it was applied,
    once, and made ``version``. Not the state: the connection has been sent that version (or
    a later one), or is about to be, as every connection is sent every version."""

    type: Literal["applied"]
    ref: str | int
    version: int


class ChatMessage(BaseModel):
    type: Literal["chat"] = "chat"
    seat: int
    name: str
    text: str
    at: float


class ChatHistoryMessage(TypedDict):
    """The room's last chat lines, oldest first: sent once on connect, after the first
    ``room`` and ``state`` messages. A plain dict: its lines are the store's, as decoded."""

    type: Literal["chat_history"]
    lines: list[ChatLine]


class Pong(BaseModel):
    type: Literal["pong"] = "pong"


class RoomMessage(BaseModel):
    """The room's public summary, after every lobby change and on connect."""

    type: Literal["room"] = "room"
    room: RoomPublic
