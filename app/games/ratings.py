"""Player ratings with OpenSkill's Plackett-Luce model, which rates free-for-all games.

A game moves ratings only when at least two people played. AI seats take part with a fixed
rating per level: people gain or lose against them, the bots' ratings never change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
"""Default parameters: a new player starts at mu 25, sigma 25/3."""


@dataclass(frozen=True, slots=True)
class Rating:
    """A skill estimate: the mean and its uncertainty."""

    mu: float
    sigma: float

    @property
    def display(self) -> float:
        """The conservative rating shown and ranked on (OpenSkill's ordinal, mu - 3 sigma)."""
        return self.mu - 3 * self.sigma


NEW_PLAYER = Rating(mu=MODEL.mu, sigma=MODEL.sigma)

AI_RATINGS: dict[str, Rating] = {
    "easy": Rating(mu=18.0, sigma=1.0),
    "medium": Rating(mu=24.0, sigma=1.0),
    "hard": Rating(mu=30.0, sigma=1.0),
}
"""Fixed, well-known ratings, so beating Hard counts for more than beating Easy."""


def ai_rating(level: str) -> Rating:
    """The fixed rating of an AI level (an unknown level counts as Medium)."""
    return AI_RATINGS.get(level, AI_RATINGS["medium"])


def counts_for_ratings(ai_levels: Sequence[str | None]) -> bool:
    """Whether a game with these seats (None = a person) moves ratings: two people or more."""
    return sum(1 for level in ai_levels if level is None) >= 2


def finishing_ranks(winners: Sequence[int], totals: Sequence[int]) -> list[int]:
    """Each seat's place, 0 best: the winners share first; the rest follow by total, ties shared.

    Winners come from the game (a win condition may count round wins, not totals), so they lead
    even when another seat's total is higher.
    """
    winning = set(winners)
    ranks = []
    for seat, total in enumerate(totals):
        if seat in winning:
            ranks.append(0)
        else:
            ahead = sum(1 for other, t in enumerate(totals) if other not in winning and t > total)
            ranks.append(1 + ahead)
    return ranks


def updated_ratings(
    ratings: Sequence[Rating], ranks: Sequence[int], *, fixed: Sequence[bool]
) -> list[Rating]:
    """The ratings after a free-for-all game; ``fixed`` seats (AI levels) keep theirs."""
    if len(ratings) < 2:
        return list(ratings)
    teams = [[MODEL.rating(mu=rating.mu, sigma=rating.sigma)] for rating in ratings]
    rated = MODEL.rate(teams, ranks=[float(rank) for rank in ranks])
    return [
        old if keep else Rating(mu=team[0].mu, sigma=team[0].sigma)
        for old, keep, team in zip(ratings, fixed, rated, strict=True)
    ]
