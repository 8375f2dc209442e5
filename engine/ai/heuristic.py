"""Rules of thumb that score every legal action in dollars: Medium, Easy and Hard's playouts.

A score estimates how much an action gains the mover over its rivals. It reads the mover's
own hand, the public zones and card counts (``odds``), never another hand's cards.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine import State
from engine.ai.odds import Seat, cards_value, matching, outlast, unseen_matching
from engine.cards import IS_ACTION, IS_ASSET, IS_PENNY_JAR, IS_WILD, KIND_OF, VALUE_OF, set_kind

Action = dict[str, Any]

AVERAGE_CARD = 12_000
"""Roughly what a card adds to the set it ends in."""
WILD_RESERVE = 100_000
"""What keeping a wild in hand is worth: it answers any challenge. Measured, see docs/ai.md."""
ACTION_CARD_KEEP = 5_000
DISCARD_FEED = 0.3
"""Share of a discarded card's value the next player may pick up from the discard pile."""


@dataclass(frozen=True, slots=True)
class Style:
    """How a heuristic player weighs its options."""

    counting: bool = True
    """Estimate rivals' matching cards from the unseen cards (else assume even odds)."""
    noise: float = 0.0
    """Standard deviation, in dollars, of the random term added to each score."""
    blunder: float = 0.0
    """Probability of playing a uniformly random legal action instead."""
    wild_reserve: float = WILD_RESERVE
    """What keeping a wild in hand is worth."""
    wild_fight: float = 1.0
    """Share of ``wild_reserve`` that playing a wild in a challenge costs."""


MEDIUM = Style()
EASY = Style(counting=False, noise=6_000.0, blunder=0.3, wild_reserve=9_000, wild_fight=0.5)
ROLLOUT = Style(noise=1_000.0)


def choose(state: State, actions: list[Action], rng: random.Random, style: Style) -> Action:
    """The best-scoring legal action, with the style's randomness."""
    return actions[choose_index(state, actions, rng, style)]


def choose_index(state: State, actions: list[Action], rng: random.Random, style: Style) -> int:
    """Where in ``actions`` the action ``choose`` picks is."""
    if len(actions) == 1:
        return 0
    if style.blunder and rng.random() < style.blunder:
        return actions.index(rng.choice(actions))
    scorer = Scorer(state, actions[0]["seat"], style)
    best, best_score = 0, float("-inf")
    for index, action in enumerate(actions):
        score = scorer.score(action)
        if style.noise:
            score += rng.gauss(0.0, style.noise)
        if score > best_score:
            best, best_score = index, score
    return best


def ranked(state: State, actions: list[Action], style: Style) -> list[int]:
    """Indexes of the legal actions, best-scoring first (ties keep the engine's order)."""
    scorer = Scorer(state, actions[0]["seat"], style)
    scores = [scorer.score(action) for action in actions]
    return sorted(range(len(actions)), key=lambda i: -scores[i])


class Scorer:
    """Scores the actions of one seat in one position."""

    def __init__(self, state: State, seat: Seat, style: Style) -> None:
        self.state = state
        self.seat = seat
        self.style = style
        self.hand = state.hands[seat]
        players = state.config.players
        self.steal = 1.0 + 1.0 / (players - 1)
        """Taking a dollar from a rival gains it over that rival and the field."""
        self.wilds = sum(map(IS_WILD.__getitem__, self.hand))
        self.late = len(state.deck) < 4 * players
        self._odds: dict[tuple[Seat, str, int], float] = {}
        self._keep: dict[int, float] = {}
        self._unseen: dict[str, tuple[int, int]] = {}
        self._cover: int | None = None

    @property
    def cover(self) -> int:
        """What a new set on top of the own stack takes out of rivals' reach."""
        if self._cover is None:
            own = self.state.stacks[self.seat]
            self._cover = self.exposed_value(own) - self.exposed_value([*own, []])
        return self._cover

    def score(self, action: Action) -> float:
        handler: Callable[[Scorer, Action], float] = _SCORERS[action["type"]]
        return handler(self, action)

    def outlast(self, rival: Seat, kind: str, mine: int) -> float:
        if not self.style.counting:
            return 0.0 if mine <= 0 else min(0.9, 0.3 + 0.2 * mine)
        key = (rival, kind, mine)
        odds = self._odds.get(key)
        if odds is None:
            counts = self._unseen.get(kind)
            if counts is None:
                counts = self._unseen[kind] = unseen_matching(self.state, self.seat, kind)
            odds = self._odds[key] = outlast(len(self.state.hands[rival]), *counts, mine)
        return odds

    def exposed_value(self, stack: list[list[int]]) -> int:
        depth = min(self.state.rules.exposed_depth, len(stack) - 1)
        return sum(cards_value(stack[-1 - d]) for d in range(max(depth, 0)))

    def wild_cost(self, cards: list[int]) -> float:
        """Spending wilds gives up defence; the last one most of all."""
        used = sum(map(IS_WILD.__getitem__, cards))
        if not used:
            return 0.0
        reserve = self.style.wild_reserve * (0.5 if self.late else 1.0)
        return reserve * (1.5 if used >= self.wilds else 0.5) * used

    def keep_value(self, card: int) -> float:
        """What a hand card is worth keeping (discard the cheapest)."""
        keep = self._keep.get(card)
        if keep is None:
            keep = self._keep[card] = self._keep_value(card)
        return keep

    def _keep_value(self, card: int) -> float:
        if IS_ACTION[card]:
            return ACTION_CARD_KEEP if self.state.stacks[self.seat] else ACTION_CARD_KEEP / 2
        if IS_WILD[card]:
            return self.style.wild_reserve + VALUE_OF[card] * 0.5
        kind = KIND_OF[card]
        pairs = sum(1 for other in self.hand if other != card and KIND_OF[other] is kind)
        keep = VALUE_OF[card] * (0.5 + 0.8 * min(pairs, 1))
        stack = self.state.stacks[self.seat]
        if stack and set_kind(stack[-1]) is kind and self.state.rules.improve:
            keep += VALUE_OF[card] * 0.6
        return keep + VALUE_OF[card] * DISCARD_FEED

    def new_set(self, cards: list[int]) -> float:
        """Value of a set placed on top of the own stack, the sets it covers included."""
        return cards_value(cards) + 0.25 * self.cover - self.wild_cost(cards)


def _form_set(self: Scorer, action: Action) -> float:
    cards = action["cards"]
    return self.new_set(cards) - 0.2 * sum(self.keep_value(card) for card in cards)


def _form_set_discard(self: Scorer, action: Action) -> float:
    top = self.state.discard[-1]
    card = action["card"]
    return self.new_set([top, card]) + 3_000 - 0.2 * self.keep_value(card)


def _discard(self: Scorer, action: Action) -> float:
    card = action["card"]
    cycle = 2_000 if self.state.deck else 0
    return cycle - self.keep_value(card) - 4_000


def _improve(self: Scorer, action: Action) -> float:
    return VALUE_OF[action["card"]] * 0.9 - 0.2 * self.keep_value(action["card"])


def _challenge(self: Scorer, action: Action) -> float:
    state = self.state
    target, depth, cards = action["target"], action["depth"], action["cards"]
    stack = state.stacks[target]
    prize = stack[-1 - depth]
    kind = set_kind(prize)
    mine = len(matching(self.hand, kind))
    win = self.outlast(target, kind, mine)
    spent = min(mine, 2) * AVERAGE_CARD
    jar = 0.1 if any(IS_PENNY_JAR[card] for card in cards) else 0.0
    gain = (win + jar) * cards_value(prize) * self.steal - (1 - win - jar) * spent * self.steal
    cost = self.wild_cost(cards) * self.style.wild_fight + 0.05 * cards_value(cards) + 2_000
    return gain - cost


def _answer(self: Scorer, action: Action) -> float:
    challenge = self.state.challenge
    assert challenge is not None
    rival = challenge.defender if self.seat == challenge.challenger else challenge.challenger
    kind = str(challenge.kind)
    mine = len(matching(self.hand, kind))
    win = self.outlast(rival, kind, mine)
    if challenge.claim is not None:
        pot = challenge.claim
    else:
        assert challenge.target is not None
        target_stack = self.state.stacks[challenge.target]
        pot = target_stack[len(target_stack) - 1 - challenge.depth]
    played = [card for _, cards in challenge.plays for card in cards]
    stake = cards_value(pot) + cards_value(played)
    cards = action["cards"]
    jar = 0.1 if any(IS_PENNY_JAR[card] for card in cards) else 0.0
    spend = cards_value(cards) + AVERAGE_CARD * (mine - len(cards)) * 0.5
    return (
        (win + jar) * stake * self.steal
        - (1 - win - jar) * spend * self.steal
        - self.wild_cost(cards) * self.style.wild_fight * 0.6
        - 0.02 * cards_value(cards)
    )


def _concede(self: Scorer, action: Action) -> float:
    return 0.0


def _swap(self: Scorer, action: Action) -> float:
    stacks = self.state.stacks
    gain = cards_value(stacks[action["target"]][-1]) - cards_value(stacks[self.seat][-1])
    return gain * self.steal - ACTION_CARD_KEEP


def _move(self: Scorer, action: Action) -> float:
    target = action["target"]
    stack = self.state.stacks[target]
    after = [list(cards) for cards in stack]
    if action["direction"] == "top_to_bottom":
        after.insert(0, after.pop())
    else:
        after.append(after.pop(0))
    change = self.exposed_value(after) - self.exposed_value(stack)
    if target == self.seat:
        return -0.4 * change - ACTION_CARD_KEEP
    return 0.2 * change - ACTION_CARD_KEEP


def _draft(self: Scorer, action: Action) -> float:
    state = self.state
    card, piles = action["card"], action["piles"]
    claim = [card, *[state.piles[p][-1] for p in piles]]
    kind = next(KIND_OF[c] for c in claim if IS_ASSET[c])
    contester = _contester(state, self.seat, piles[0])
    backup = len(matching([c for c in self.hand if c != card], kind))
    # The contester opens and must then outlast every matching card the claimer still holds.
    lose = 1.0 - self.outlast(contester, kind, backup + 1)
    keep = 1.0 - lose * 0.7
    return keep * cards_value(claim) - lose * VALUE_OF[card] - self.wild_cost([card]) - 1_000


def _contester(state: State, seat: Seat, pile: int) -> Seat:
    if state.config.players == 2:
        return 1 - seat
    a, b = pile, (pile + 1) % 3
    return b if seat == a else a


def _choose(self: Scorer, action: Action) -> float:
    pending = self.state.pending
    assert pending is not None
    stack = self.state.stacks[pending.target]
    after = [list(cards) for cards in stack]
    if action["direction"] == "top_to_bottom":
        after.insert(0, after.pop())
    else:
        after.append(after.pop(0))
    change = self.exposed_value(after) - self.exposed_value(stack)
    return -change if pending.target == self.seat else change


def _end_turn(self: Scorer, action: Action) -> float:
    return 0.0


_SCORERS: dict[str, Callable[[Scorer, Action], float]] = {
    "form_set": _form_set,
    "form_set_discard": _form_set_discard,
    "discard": _discard,
    "improve": _improve,
    "challenge": _challenge,
    "answer": _answer,
    "concede": _concede,
    "swap": _swap,
    "move": _move,
    "draft": _draft,
    "choose": _choose,
    "end_turn": _end_turn,
}
