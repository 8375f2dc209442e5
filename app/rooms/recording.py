"""What a room hands over when its game ends, and who takes it.

The room service builds a ``FinishedGame`` and awaits ``GameRecorder.record``; the live room
may expire only after that returns, so a game is never lost between the two.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """Who sat in one seat."""

    name: str
    """Display name shown at the table."""
    player_id: str | None
    """The persistent guest player id the browser keeps; None for AI seats and anonymous guests."""
    ai_level: str | None
    """``"easy"``, ``"medium"`` or ``"hard"`` for an AI seat; None for a person."""


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """Everything needed to store, replay and rate a finished game."""

    game_id: str
    """The game's uuid, as a string; unique across rooms and processes."""
    room_code: str
    """The room it was played in."""
    config: dict[str, Any]
    """The ``engine.new_game`` config: rules, draft, players, rounds, seed (and any setup)."""
    players: list[SeatRecord]
    """One entry per seat, in seat order."""
    actions: list[dict[str, Any]]
    """Every applied action, in order; replaying them on ``new_game(config)`` ends the game."""
    round_scores: list[list[int]]
    """Per round, each seat's stash value."""
    totals: list[int]
    """Each seat's final total."""
    winners: list[int]
    """The winning seat or seats."""
    started_at: datetime
    ended_at: datetime


class GameRecorder(Protocol):
    """Keeps finished games; ``record`` returns once the game is safely stored."""

    async def record(self, game: FinishedGame) -> None: ...
