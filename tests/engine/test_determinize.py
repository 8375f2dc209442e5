"""engine.determinize: hypothetical states from one seat's view (docs/design.md, "Layering";
docs/rules.md §9)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import engine
from engine.cards import KIND_OF, Kind

Positions = Callable[[dict[str, Any], int, int], Iterator[engine.State]]
Redeal = Callable[[engine.State, int, random.Random], engine.State]

CONFIGS: list[dict[str, Any]] = [
    {"players": 2, "rules": "advanced"},
    {"players": 4, "rules": "simple_actions"},
    {"players": 6, "rules": "simple"},
    {"players": 2, "rules": "advanced", "draft": True},
    {"players": 3, "rules": "simple_actions", "draft": True},
    {"players": 3, "rules": "advanced", "rounds": 2},
]


def config_id(config: dict[str, Any]) -> str:
    return "-".join(f"{key}={value}" for key, value in config.items())


def hidden_zones(state: engine.State) -> dict[str, Any]:
    return {"hands": state.hands, "deck": state.deck, "piles": state.piles}


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_a_sample_shows_its_seat_exactly_the_view(
    config: dict[str, Any], positions: Positions
) -> None:
    rng = random.Random(1)
    for state in positions(config, 40, 3):
        for seat in [*range(state.config.players), None]:
            view = engine.view_for(state, seat)
            sample = engine.determinize(view, rng)
            assert sample.log_enabled is False
            assert {**engine.view_for(sample, seat), "log": []} == {**view, "log": []}
            assert engine.legal_actions(sample) == engine.legal_actions(state) or (
                seat not in state.to_act()
            )


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_a_sample_ignores_how_the_hidden_cards_really_lie(
    config: dict[str, Any], positions: Positions, redeal: Redeal
) -> None:
    rng = random.Random(2)
    for state in positions(config, 25, 4):
        seat = state.to_act()[0]
        other = redeal(state, seat, rng)
        assert (
            hidden_zones(other) != hidden_zones(state)
            or not engine.Sampler(engine.view_for(state, seat)).unseen
        )
        first = engine.determinize(engine.view_for(state, seat), random.Random(9))
        second = engine.determinize(engine.view_for(other, seat), random.Random(9))
        assert hidden_zones(first) == hidden_zones(second)
        assert first.config == second.config


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_the_unseen_pool_is_exactly_the_hidden_cards(
    config: dict[str, Any], positions: Positions
) -> None:
    for state in positions(config, 25, 5):
        seat = state.to_act()[0]
        hidden = [card for other, hand in enumerate(state.hands) if other != seat for card in hand]
        hidden += state.deck
        for pile, covered in zip(state.piles, state.covered, strict=True):
            hidden += pile if covered else pile[:-1]
        assert engine.Sampler(engine.view_for(state, seat)).unseen == sorted(hidden)


def test_a_sample_keeps_lacking_kinds_out_of_that_hand_while_it_can() -> None:
    state = engine.new_game({"players": 4, "seed": 11})
    view = engine.view_for(state, 0)
    rng = random.Random(3)
    for _ in range(20):
        sample = engine.determinize(view, rng, lacking={2: [Kind.PIGGY_BANK, Kind.GOLD_BAR]})
        assert not {KIND_OF[card] for card in sample.hands[2]} & {Kind.PIGGY_BANK, Kind.GOLD_BAR}
        assert Counter(len(hand) for hand in sample.hands) == Counter(
            len(hand) for hand in state.hands
        )


def test_a_covered_pile_hides_its_whole_size() -> None:
    rng = random.Random(4)
    for state in random_claims(rng):
        view = engine.view_for(state, 0)
        assert any(pile["top"] is None and pile["size"] for pile in view["piles"])
        sample = engine.determinize(view, rng)
        assert sample.covered == state.covered
        assert [len(pile) for pile in sample.piles] == [len(pile) for pile in state.piles]


def random_claims(rng: random.Random) -> list[engine.State]:
    """Positions where a draft claim waits to be contested and its pile still holds cards."""
    found = []
    state = engine.new_game({"players": 2, "draft": True, "seed": 6})
    while len(found) < 5 and not engine.is_over(state):
        actions = engine.legal_actions(state)
        drafts = [a for a in actions if a["type"] == "draft"]
        state = engine.apply_action(state, rng.choice(drafts or actions))
        if state.challenge is not None and any(
            covered and pile for pile, covered in zip(state.piles, state.covered, strict=True)
        ):
            found.append(state)
    assert found
    return found


def test_a_view_that_does_not_add_up_is_refused() -> None:
    view = engine.view_for(engine.new_game({"players": 2, "seed": 1}), 0)
    view["deck_size"] += 1
    with pytest.raises(ValueError, match="not a view"):
        engine.determinize(view, random.Random(1))
