"""AI players: Easy, Medium and Hard. They see a seat's view, never the game's state.

``player(level, **options)`` returns a player whose ``decide(view, rng)`` picks one of the legal
actions of the view's seat. Hard takes ``iterations=`` and ``seconds=`` budgets (see docs/ai.md).
"""

from __future__ import annotations

from typing import Any

from engine.ai.heuristic import EASY, MEDIUM
from engine.ai.players import HeuristicPlayer, Player
from engine.ai.search import HardPlayer

LEVELS = ("easy", "medium", "hard")


def player(level: str, **options: Any) -> Player:
    """A player of ``level``: ``"easy"``, ``"medium"`` or ``"hard"`` (Hard takes budgets)."""
    if level == "easy":
        return HeuristicPlayer(EASY, **options)
    if level == "medium":
        return HeuristicPlayer(MEDIUM, **options)
    if level == "hard":
        return HardPlayer(**options)
    raise ValueError(f"no AI level {level!r}: choose one of {', '.join(LEVELS)}")


__all__ = ["LEVELS", "Player", "player"]
