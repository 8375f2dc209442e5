"""The ``setup`` option for custom deals (docs/design.md, "Config")."""

from __future__ import annotations

from typing import Any

import pytest
from gameplay import act, card, hand_kinds, stack_kinds

import engine


def custom(setup: dict[str, Any], **config: Any) -> engine.State:
    return engine.new_game({"players": 2, "rules": "simple", "seed": 3, **config, "setup": setup})


def test_given_zones_are_used_exactly() -> None:
    state = custom(
        {
            "dealer": 0,
            "hands": [["coins", "gold_bar"], ["yacht"]],
            "stacks": [[], [["guitar", "guitar"], ["stocks", "silver_bar", "stocks"]]],
            "discard": ["fine_art", "jewelry"],
            "deck": ["mansion"],
            "rest": "out",
        }
    )
    view = engine.view_for(state, None)
    assert hand_kinds(state, 0) == ["coins", "gold_bar"]
    assert hand_kinds(state, 1) == ["yacht"]
    assert stack_kinds(state, 1) == [["guitar", "guitar"], ["silver_bar", "stocks", "stocks"]]
    assert [c["kind"] for c in view["discard"]] == ["fine_art", "jewelry"]
    assert view["deck_size"] == 1
    assert view["to_act"] == [1]
    assert len(view["out"]) == 104 - 2 - 1 - 5 - 2 - 1


def test_the_given_deck_is_drawn_first_card_first() -> None:
    state = custom(
        {
            "dealer": 1,
            "hands": [["coins"] * 5, ["yacht"]],
            "discard": [],
            "deck": ["jewelry", "stocks"],
            "rest": "out",
        }
    )
    state = act(state, "discard", 0, card=card(state, 0, "coins"))
    assert hand_kinds(state, 0) == ["coins"] * 4 + ["jewelry"]
    assert engine.view_for(state, None)["deck_size"] == 1


def test_the_rest_goes_under_the_given_deck() -> None:
    state = custom(
        {"dealer": 1, "hands": [["coins"] * 5, ["yacht"]], "discard": [], "deck": ["jewelry"]}
    )
    view = engine.view_for(state, None)
    assert view["out"] == []
    assert view["deck_size"] == 104 - 6
    state = act(state, "discard", 0, card=card(state, 0, "coins"))
    assert "jewelry" in hand_kinds(state, 0)


def test_a_discard_left_out_is_turned_up_from_the_deck_R2() -> None:
    state = custom(
        {"hands": [["coins"], ["yacht"]], "deck": ["swap", "jewelry", "stocks"]}, rules="advanced"
    )
    view = engine.view_for(state, None)
    assert [c["kind"] for c in view["discard"]] == ["jewelry"]
    assert view["out"][-1]["kind"] == "swap"
    assert view["deck_size"] == 110 - 2 - 2


def test_zones_left_out_are_dealt_as_usual() -> None:
    stacks = [[["coins", "coins"]], [], []]
    state = custom({"stacks": stacks}, players=3, rules="advanced", draft=True)
    view = engine.view_for(state, None)
    assert [p["hand_size"] for p in view["players"]] == [6, 6, 6]
    assert [p["size"] for p in view["piles"]] == [10, 10, 10]
    assert len(view["discard"]) == 1
    assert stack_kinds(state, 0) == [["coins", "coins"]]
    assert view["to_act"] == [(view["dealer"] + 1) % 3]


def test_cards_a_variant_leaves_out_cannot_be_dealt_R11() -> None:
    with pytest.raises(engine.InvalidConfig) as refused:
        custom({"hands": [["mansion"], []]}, draft=True)
    assert refused.value.code == "bad_setup"
    with pytest.raises(engine.InvalidConfig):
        custom({"hands": [["penny_jar"], []]})


def test_the_same_setup_and_seed_is_the_same_game() -> None:
    setup = {"hands": [["coins"], ["yacht"]], "deck": ["jewelry"]}
    assert engine.dumps(custom(setup)) == engine.dumps(custom(setup))
