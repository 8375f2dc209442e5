"""Accuracy: how close a seat's decisions came to the best, 0 to 100, as lichess computes it.

Each judged decision scores ``103.1668 * exp(-0.04354 * loss) - 3.1669`` (lichess's fit, with
``loss`` the win chance lost in points out of 100), within 0 and 100; a decision rated best
loses nothing (its drop is within the search's noise). A seat's accuracy is the mean of its
decisions' scores averaged with their harmonic mean, so one blunder among good moves counts
for more than its share, as on lichess.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable

FLOOR = 1.0
"""The lowest score a decision counts with in the harmonic mean (a 0 would swallow it)."""


def decision_accuracy(drop: float, verdict: str) -> float:
    """One decision's score from its drop in win chance (0 to 1) and its verdict."""
    loss = 0.0 if verdict == "best" else 100.0 * max(0.0, drop)
    return min(100.0, max(0.0, 103.1668 * math.exp(-0.04354 * loss) - 3.1669))


def accuracy(scores: Iterable[float]) -> float | None:
    """A seat's accuracy from its decisions' scores; None when it had nothing to decide."""
    values = list(scores)
    if not values:
        return None
    mean = statistics.fmean(values)
    harmonic = statistics.harmonic_mean([max(FLOOR, value) for value in values])
    return round(min(100.0, (mean + harmonic) / 2), 1)
