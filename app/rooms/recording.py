"""What a finished game hands to the database, and the interface that stores it.

The live room keeps a finished game until ``GameRecorder.record`` returns; a failing recorder
is retried with backoff, so ``record`` must be idempotent on ``game_id``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class PlayerRecord:
    """Who sat in one seat of a finished game."""

    seat: int
    name: str
    """The display name the player chose (or the AI seat's name)."""
    player_id: str | None = None
    """The guest player id (a uuid string) a person joined with, if any."""
    ai_level: str | None = None
    """``"easy"``, ``"medium"`` or ``"hard"`` for an AI seat; None for a person."""
    hints: int = 0
    """Hints the seat asked for during the game."""


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """Everything needed to store a finished game and replay it."""

    game_id: str
    """A uuid string, unique per game (a rematch is a new game)."""
    room_code: str
    config: dict[str, Any]
    """The engine config: ``rules``, ``draft``, ``players``, ``rounds`` and ``seed``.
    The seed replays the game; it must never be served while other games may share it."""
    players: list[PlayerRecord]
    """One per seat, in seat order."""
    actions: list[dict[str, Any]]
    """Every applied action in order, each with its ``seat``; with the config, a full replay."""
    rounds: list[list[int]]
    """Stash values per round, one value per seat."""
    totals: list[int]
    """Final totals per seat."""
    winners: list[int]
    """Winning seats (several on a tie)."""
    started_at: datetime
    ended_at: datetime
    visibility: str = "private"
    """The room's visibility: a private room's code is a secret the record must not keep."""


class GameRecorder(Protocol):
    """Stores finished games; the database layer provides the real one."""

    async def record(self, game: FinishedGame) -> None:
        """Store ``game``; raise to have it retried later. Recording twice must be harmless."""
        ...
