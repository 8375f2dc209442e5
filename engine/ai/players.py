"""The player interface, and the rules-of-thumb players (Easy and Medium)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Protocol

import engine
from engine.ai.heuristic import Action, Style, choose


class Player(Protocol):
    def decide(self, view: Mapping[str, Any], rng: random.Random) -> Action:
        """One legal action for the view's seat, which must be one of the seats to act."""
        ...


def seat_to_act(view: Mapping[str, Any]) -> int:
    seat = view["seat"]
    if seat is None or seat not in view["to_act"]:
        raise ValueError("this view's seat has nothing to decide now")
    return int(seat)


class HeuristicPlayer:
    """Plays the best-scoring action by rules of thumb (``heuristic``), in a given style.

    Its hypothetical state comes from ``engine.determinize``: the scores read only the seat's
    own hand, public zones and counts of unseen cards, which every sample shares.
    """

    def __init__(self, style: Style) -> None:
        self.style = style

    def decide(self, view: Mapping[str, Any], rng: random.Random) -> Action:
        seat_to_act(view)
        state = engine.determinize(view, rng)
        return choose(state, engine.legal_actions(state), rng, self.style)
