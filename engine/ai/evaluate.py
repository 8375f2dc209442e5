"""What a position is worth to each seat: the exact result once over, else an estimate."""

from __future__ import annotations

import math

import engine
from engine import State
from engine.cards import IS_ACTION, VALUE_OF

HAND_SHARE = 0.3
"""Share of a hand card's value expected to reach its holder's stash."""
TEMPERATURE = 25_000.0
"""Dollar lead that makes a seat e (2.7) times likelier to win than its rival, at the end..."""
TEMPERATURE_PER_CARD = 1_500.0
"""...plus this much per card left in the deck: early leads are easily stolen back."""


def rewards(state: State) -> list[float]:
    """Per seat: its share of the win when the game is over, else its estimated win chance."""
    if engine.is_over(state):
        winners = engine.result(state)["winners"]
        share = 1.0 / len(winners)
        return [share if seat in winners else 0.0 for seat in range(state.config.players)]
    worth = estimates(state)
    best = max(worth)
    temperature = TEMPERATURE + TEMPERATURE_PER_CARD * len(state.deck)
    weights = [math.exp((value - best) / temperature) for value in worth]
    total = sum(weights)
    return [weight / total for weight in weights]


def estimates(state: State) -> list[float]:
    """Per seat: banked totals of finished rounds, this round's stash and a share of the hand."""
    players = state.config.players
    banked = [sum(scores[seat] for scores in state.history) for seat in range(players)]
    return [
        banked[seat]
        + sum(VALUE_OF[card] for cards in state.stacks[seat] for card in cards)
        + HAND_SHARE * sum(VALUE_OF[card] for card in state.hands[seat] if not IS_ACTION[card])
        for seat in range(players)
    ]
