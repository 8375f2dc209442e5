"""Fixtures for hidden-information tests: positions from real games, and re-dealt hidden cards."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import engine

Redeal = Callable[[engine.State, int, random.Random], engine.State]
Positions = Callable[[dict[str, Any], int, int], Iterator[engine.State]]


def redeal_hidden(state: engine.State, seat: int, rng: random.Random) -> engine.State:
    """A copy of ``state`` whose cards hidden from ``seat`` are shuffled among the hidden zones.

    Other hands, the deck and draft piles below their tops keep their sizes; everything ``seat``
    can see stays put, so its view is unchanged.
    """
    new = state.copy()
    zones: list[list[int]] = [hand for other, hand in enumerate(new.hands) if other != seat]
    zones.append(new.deck)
    sizes = [len(zone) for zone in zones]
    tops = [
        pile[-1:] if pile and not covered else []
        for pile, covered in zip(new.piles, new.covered, strict=True)
    ]
    below = [pile[: len(pile) - len(top)] for pile, top in zip(new.piles, tops, strict=True)]
    cards = [card for zone in zones for card in zone] + [card for part in below for card in part]
    rng.shuffle(cards)
    for zone, size in zip(zones, sizes, strict=True):
        zone[:] = cards[:size]
        del cards[:size]
    for pile, top, part in zip(new.piles, tops, below, strict=True):
        pile[:] = cards[: len(part)] + top
        del cards[: len(part)]
    return new


def random_positions(config: dict[str, Any], count: int, seed: int) -> Iterator[engine.State]:
    """``count`` positions met in random games of ``config``, every kind of decision included."""
    rng = random.Random(seed)
    state = engine.new_game({**config, "seed": seed})
    produced = 0
    while produced < count:
        if engine.is_over(state):
            state = engine.new_game({**config, "seed": rng.randrange(1 << 30)})
            continue
        if rng.random() < 0.3 or state.challenge is not None or state.pending is not None:
            produced += 1
            yield state
        state = engine.apply_action(state, rng.choice(engine.legal_actions(state)))


@pytest.fixture
def redeal() -> Redeal:
    return redeal_hidden


@pytest.fixture
def positions() -> Positions:
    return random_positions
