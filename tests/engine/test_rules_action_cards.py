"""Swap, Move and Improve a Set (docs/rules.md §4)."""

from __future__ import annotations

import pytest
from gameplay import act, card, deal, legal_of, stack_kinds

import engine

COINS = ["coins", "coins"]
GUITARS = ["guitar", "guitar"]
YACHTS = ["yacht", "yacht"]
STOCKS = ["stocks", "stocks"]


def refused(state: engine.State, kind: str, seat: int, **fields: object) -> str:
    with pytest.raises(engine.IllegalAction) as error:
        act(state, kind, seat, **fields)
    return error.value.code


def test_swap_trades_your_top_set_with_a_rivals_top_set() -> None:
    state = deal(
        [["swap", "coins"], ["jewelry"]],
        rules="simple_actions",
        stacks=[[STOCKS, COINS], [YACHTS, GUITARS]],
    )
    swap = card(state, 0, "swap")
    state = act(state, "swap", 0, card=swap, target=1)
    assert stack_kinds(state, 0) == [STOCKS, GUITARS]
    assert stack_kinds(state, 1) == [YACHTS, COINS]
    assert engine.view_for(state, None)["out"][-1] == {"id": swap, "kind": "swap"}


def test_a_players_only_set_may_be_swapped() -> None:
    state = deal([["swap"], ["jewelry"]], stacks=[[COINS], [GUITARS]])
    assert [a["target"] for a in legal_of(state, "swap")] == [1]
    state = act(state, "swap", 0, card=card(state, 0, "swap"), target=1)
    assert stack_kinds(state, 0) == [GUITARS]
    assert stack_kinds(state, 1) == [COINS]


def test_swap_needs_a_set_on_both_stacks() -> None:
    state = deal([["swap"], ["jewelry"], ["stocks"]], stacks=[[COINS], [], [GUITARS]])
    assert [a["target"] for a in legal_of(state, "swap")] == [2]
    assert refused(state, "swap", 0, card=card(state, 0, "swap"), target=1) == "no_set_to_swap"
    empty = deal([["swap"], ["jewelry"]], stacks=[[], [GUITARS]])
    assert legal_of(empty, "swap") == []
    assert refused(empty, "swap", 0, card=card(empty, 0, "swap"), target=1) == (
        "no_set_of_your_own"
    )


def test_swap_is_never_with_yourself() -> None:
    state = deal([["swap"], ["jewelry"]], stacks=[[COINS, YACHTS], [GUITARS]])
    assert refused(state, "swap", 0, card=card(state, 0, "swap"), target=0) == "swap_self"


def test_swap_ignores_protection_and_reaches_a_one_set_stack() -> None:
    state = deal([["swap"], ["jewelry"]], stacks=[[COINS], [GUITARS]])
    assert engine.view_for(state, 0)["players"][1]["stack"][0]["exposed"] is False
    assert legal_of(state, "swap") != []


def test_move_top_set_to_the_bottom() -> None:
    state = deal(
        [["move"], ["jewelry"]],
        rules="simple_actions",
        stacks=[[], [COINS, GUITARS, YACHTS]],
    )
    move = card(state, 0, "move")
    state = act(state, "move", 0, card=move, target=1, direction="top_to_bottom")
    assert stack_kinds(state, 1) == [YACHTS, COINS, GUITARS]
    assert engine.view_for(state, None)["out"][-1] == {"id": move, "kind": "move"}


def test_move_bottom_set_to_the_top() -> None:
    state = deal([["move"], ["jewelry"]], stacks=[[], [COINS, GUITARS, YACHTS]])
    state = act(state, "move", 0, card=card(state, 0, "move"), target=1, direction="bottom_to_top")
    assert stack_kinds(state, 1) == [GUITARS, YACHTS, COINS]


def test_move_may_act_on_your_own_stack_R4() -> None:
    state = deal([["move"], ["jewelry"]], stacks=[[COINS, GUITARS], []])
    assert {(a["target"], a["direction"]) for a in legal_of(state, "move")} == {
        (0, "top_to_bottom"),
        (0, "bottom_to_top"),
    }
    state = act(state, "move", 0, card=card(state, 0, "move"), target=0, direction="top_to_bottom")
    assert stack_kinds(state, 0) == [GUITARS, COINS]


def test_move_needs_two_sets_R4() -> None:
    state = deal([["move"], ["jewelry"], ["stocks"]], stacks=[[COINS], [GUITARS], []])
    assert legal_of(state, "move") == []
    move = card(state, 0, "move")
    for target in (0, 1, 2):
        code = refused(state, "move", 0, card=move, target=target, direction="bottom_to_top")
        assert code == "move_needs_two_sets"


def test_simple_rules_have_no_action_cards() -> None:
    state = engine.new_game({"players": 6, "rules": "simple", "seed": 2})
    kinds = {c["kind"] for c in engine.open_view(state)["deck"]}
    assert kinds.isdisjoint({"swap", "move"})
    codes = {b["type"]: b["code"] for b in engine.blocked_actions(state, state.active)}
    assert codes["swap"] == codes["move"] == "not_in_rules"


def test_improve_adds_a_matching_asset_to_your_top_set() -> None:
    state = deal([["coins", "yacht"], ["jewelry"]], stacks=[[YACHTS, COINS], []])
    assert [a["card"] for a in legal_of(state, "improve")] == [card(state, 0, "coins")]
    state = act(state, "improve", 0, card=card(state, 0, "coins"))
    assert stack_kinds(state, 0) == [YACHTS, ["coins"] * 3]


def test_improve_is_never_with_a_wild() -> None:
    state = deal([["gold_bar", "penny_jar"], ["jewelry"]], stacks=[[COINS], []])
    assert legal_of(state, "improve") == []
    gold = card(state, 0, "gold_bar")
    assert refused(state, "improve", 0, card=gold) == "improve_needs_asset"


def test_improve_needs_the_top_sets_kind() -> None:
    state = deal([["yacht"], ["jewelry"]], stacks=[[YACHTS, COINS], []])
    assert legal_of(state, "improve") == []
    assert refused(state, "improve", 0, card=card(state, 0, "yacht")) == "improve_wrong_kind"


def test_improve_needs_a_set_of_your_own() -> None:
    state = deal([["coins"], ["jewelry"]], stacks=[[], [COINS]])
    assert refused(state, "improve", 0, card=card(state, 0, "coins")) == "no_set"


@pytest.mark.parametrize("rules", ["simple", "simple_actions"])
def test_improve_is_an_advanced_rule(rules: str) -> None:
    state = deal([["coins"], ["jewelry"]], rules=rules, stacks=[[COINS], []])
    assert legal_of(state, "improve") == []
    assert refused(state, "improve", 0, card=card(state, 0, "coins")) == "not_in_rules"
