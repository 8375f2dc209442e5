"""The three rule sets as data (docs/rules.md §2); variants are found by name."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

from engine.cards import CARD_COUNT, KIND_OF, CardId, Kind


@dataclass(frozen=True, slots=True)
class RuleSet:
    """What differs between ``simple``, ``simple_actions`` and ``advanced``."""

    name: str
    """The config name."""
    title: str
    """How players call it."""
    hand_size: int
    """Deal and draw up to this many cards."""
    actions_per_turn: int
    """1, or 2 where a second action (or ``end_turn``) follows the first."""
    improve: bool
    """Whether Improve a Set is allowed."""
    exposed_depth: int
    """How many sets from the top of a rival's stack are exposed (the bottom never is, R-1)."""
    excluded: frozenset[Kind]
    """Kinds left out of the deck."""

    has_actions: bool = field(init=False)
    """Whether the deck holds Swap and Move (looked up on every move, so set once)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "has_actions", Kind.SWAP not in self.excluded)


RULE_SETS: dict[str, RuleSet] = {
    rules.name: rules
    for rules in (
        RuleSet(
            "simple",
            "Simple",
            hand_size=5,
            actions_per_turn=1,
            improve=False,
            exposed_depth=1,
            excluded=frozenset({Kind.SWAP, Kind.MOVE, Kind.PENNY_JAR}),
        ),
        RuleSet(
            "simple_actions",
            "Simple with Action Cards",
            hand_size=5,
            actions_per_turn=1,
            improve=False,
            exposed_depth=1,
            excluded=frozenset(),
        ),
        RuleSet(
            "advanced",
            "Advanced",
            hand_size=6,
            actions_per_turn=2,
            improve=True,
            exposed_depth=2,
            excluded=frozenset(),
        ),
    )
}

DRAFT_TWO_PLAYER_EXCLUDED: dict[Kind, int] = {Kind.MANSION: 8, Kind.SILVER_BAR: 2, Kind.GOLD_BAR: 1}
"""R-11: what a 2-player draft game leaves out of the deck (by count)."""


def card_pool(rules: RuleSet, *, players: int, draft: bool) -> list[CardId]:
    """Every card id in play for this configuration, ascending (a new list each call)."""
    return list(_card_pool(rules, players == 2 and draft))


@cache
def _card_pool(rules: RuleSet, two_player_draft: bool) -> tuple[CardId, ...]:
    left_out = dict(DRAFT_TWO_PLAYER_EXCLUDED) if two_player_draft else {}
    pool: list[CardId] = []
    for card in range(CARD_COUNT):
        kind = KIND_OF[card]
        if kind in rules.excluded:
            continue
        if left_out.get(kind, 0) > 0:
            left_out[kind] -= 1
            continue
        pool.append(card)
    return tuple(pool)


def hand_size(rules: RuleSet, *, players: int, draft: bool) -> int:
    """Hand size: six in a 2-player draft game, else the rule set's (docs/rules.md §8)."""
    return 6 if draft and players == 2 else rules.hand_size
