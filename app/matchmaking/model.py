"""What the queue holds: the choice a player queues for, their ticket, and where they sit."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from app.rooms.model import MAX_SEATS, MIN_SEATS, MoveSeconds, RoomMode, RuleSet

TURN_MOVE_SECONDS: MoveSeconds = 86_400
"""A turn-based Play now table's time to move: a day."""

TicketId = str
"""A waiting player's ticket: random, known only to the process that holds their socket."""


class Choice(BaseModel, frozen=True):
    """The table a player asks for: one queue per choice."""

    seats: Annotated[int, Field(ge=MIN_SEATS, le=MAX_SEATS)] | None = 4
    """None: any table size will do."""
    rules: RuleSet = "advanced"
    draft: bool = False
    mode: RoomMode = "live"
    """A live table, or a turn-based one (``TURN_MOVE_SECONDS`` to move): players meet only
    players who asked for the same."""

    @property
    def key(self) -> str:
        """The queue's name, also its keys' hash tag in Redis. A live queue keeps the name it
        had before tables had a mode, so that players queued across an upgrade still meet."""
        size = "any" if self.seats is None else self.seats
        live = f"queue-{size}-{self.rules}-{'draft' if self.draft else 'plain'}"
        return live if self.mode == "live" else f"{live}-turn"


class Waiting(BaseModel):
    """A player in a queue, as the store keeps them (never sent to anyone)."""

    ticket: TicketId
    name: str
    player_id: str
    """The guest id the player's browser keeps (it links the game to their rating)."""
    token_hash: str
    """The hash of the seat token the player's own process made and keeps: the seat they get
    opens with it, and the token itself never enters the store."""
    rating: float
    """The OpenSkill ordinal (mu - 3 sigma) the player had when they joined."""
    joined_at: float
    ai_now: bool = False
    """The player asked for AI in the empty seats at once."""
    address: str | None = None
    """The client address the player queued from: their table counts among its games in
    play (``games_per_address``)."""


class Placement(BaseModel):
    """Where a matched player sits: the room and their seat (their token they already hold)."""

    code: str
    seat: int
