"""Setup, forming sets, completing with the discard and discarding (docs/rules.md §1-§4)."""

from __future__ import annotations

from collections import Counter

import pytest
from gameplay import act, card, deal, hand_kinds, legal_of, stack_kinds

import engine


def test_seat_after_the_dealer_moves_first() -> None:
    state = deal([["coins"], ["coins"], ["coins"]], dealer=1)
    view = engine.view_for(state, None)
    assert view["dealer"] == 1
    assert view["to_act"] == [2]


def test_a_seeded_deal_is_the_same_game_byte_for_byte() -> None:
    config = {"players": 4, "rules": "advanced", "seed": 11}
    assert engine.dumps(engine.new_game(config)) == engine.dumps(engine.new_game(config))
    other = engine.new_game({**config, "seed": 12})
    assert engine.dumps(other) != engine.dumps(engine.new_game(config))


@pytest.mark.parametrize(("rules", "size", "deck"), [("simple", 5, 104), ("advanced", 6, 110)])
def test_each_seat_is_dealt_the_rule_sets_hand_size(rules: str, size: int, deck: int) -> None:
    state = engine.new_game({"players": 3, "rules": rules, "seed": 5})
    view = engine.view_for(state, None)
    assert [p["hand_size"] for p in view["players"]] == [size] * 3
    on_table = len(view["discard"]) + len(view["out"]) + view["deck_size"] + 3 * size
    assert on_table == deck


def test_simple_deck_has_no_swap_move_or_penny_jar() -> None:
    state = engine.new_game({"players": 2, "rules": "simple", "seed": 3})
    kinds = Counter(c["kind"] for c in engine.open_view(state)["deck"])
    assert not {"swap", "move", "penny_jar"} & set(kinds)


def test_action_card_turned_at_start_goes_out_R2() -> None:
    state = deal([["coins"], ["coins"]], discard=None, deck=["swap", "move", "guitar", "yacht"])
    view = engine.view_for(state, None)
    assert [c["kind"] for c in view["discard"]] == ["guitar"]
    assert [c["kind"] for c in view["out"]][-2:] == ["swap", "move"]
    assert view["deck_size"] == 1


def test_form_set_from_two_of_an_asset_goes_on_top_of_the_stack() -> None:
    state = deal(
        [["coins", "coins", "yacht"], ["guitar"]],
        stacks=[[["fine_art", "fine_art"]], []],
    )
    state = act(state, "form_set", 0, cards=[card(state, 0, "coins"), card(state, 0, "coins", 1)])
    assert stack_kinds(state, 0) == [["fine_art", "fine_art"], ["coins", "coins"]]
    assert hand_kinds(state, 0) == ["yacht"]


def test_form_set_from_an_asset_and_a_wild() -> None:
    state = deal([["coins", "gold_bar"], ["guitar"]])
    state = act(state, "form_set", 0, cards=[card(state, 0, "gold_bar"), card(state, 0, "coins")])
    assert stack_kinds(state, 0) == [["coins", "gold_bar"]]
    assert engine.view_for(state, 0)["players"][0]["stack"][0]["kind"] == "coins"


@pytest.mark.parametrize(
    "wilds", [("silver_bar", "gold_bar"), ("penny_jar", "silver_bar"), ("gold_bar", "gold_bar")]
)
def test_two_wilds_never_make_a_set(wilds: tuple[str, str]) -> None:
    state = deal([list(wilds), ["guitar"]])
    assert legal_of(state, "form_set") == []
    cards = [card(state, 0, wilds[0]), card(state, 0, wilds[1], int(wilds[0] == wilds[1]))]
    with pytest.raises(engine.IllegalAction) as refused:
        act(state, "form_set", 0, cards=cards)
    assert refused.value.code == "two_wilds"


def test_two_different_assets_are_not_a_set() -> None:
    state = deal([["coins", "guitar"], ["guitar"]])
    assert legal_of(state, "form_set") == []
    with pytest.raises(engine.IllegalAction) as refused:
        act(state, "form_set", 0, cards=[card(state, 0, "coins"), card(state, 0, "guitar")])
    assert refused.value.code == "not_a_set"


@pytest.mark.parametrize("action_card", ["swap", "move"])
def test_action_cards_are_never_in_a_set(action_card: str) -> None:
    state = deal([["coins", "gold_bar", action_card], ["guitar"]], discard=["coins"])
    pairs = [a["cards"] for a in legal_of(state, "form_set")]
    assert all(card(state, 0, action_card) not in cards for cards in pairs)
    assert card(state, 0, action_card) not in [
        a["card"] for a in legal_of(state, "form_set_discard")
    ]
    with pytest.raises(engine.IllegalAction) as refused:
        act(state, "form_set", 0, cards=[card(state, 0, action_card), card(state, 0, "coins")])
    assert refused.value.code == "action_card_in_set"


def test_complete_a_set_with_the_top_discard() -> None:
    state = deal([["coins", "yacht"], ["guitar"]], discard=["yacht", "coins"])
    assert [a["card"] for a in legal_of(state, "form_set_discard")] == [card(state, 0, "coins")]
    state = act(state, "form_set_discard", 0, card=card(state, 0, "coins"))
    assert stack_kinds(state, 0) == [["coins", "coins"]]
    assert [c["kind"] for c in engine.view_for(state, 0)["discard"]] == ["yacht"]


def test_wild_on_discard_pairs_with_hand_asset_R3() -> None:
    state = deal([["guitar", "gold_bar"], ["coins"]], discard=["silver_bar"])
    assert [a["card"] for a in legal_of(state, "form_set_discard")] == [card(state, 0, "guitar")]
    with pytest.raises(engine.IllegalAction) as refused:
        act(state, "form_set_discard", 0, card=card(state, 0, "gold_bar"))
    assert refused.value.code == "two_wilds"
    state = act(state, "form_set_discard", 0, card=card(state, 0, "guitar"))
    assert stack_kinds(state, 0) == [["guitar", "silver_bar"]]
    assert engine.view_for(state, 0)["players"][0]["stack"][0]["kind"] == "guitar"


def test_only_the_top_discard_can_complete_a_set() -> None:
    state = deal([["coins", "yacht"], ["guitar"]], discard=["coins", "yacht"])
    assert [a["card"] for a in legal_of(state, "form_set_discard")] == [card(state, 0, "yacht")]
    with pytest.raises(engine.IllegalAction) as refused:
        act(state, "form_set_discard", 0, card=card(state, 0, "coins"))
    assert refused.value.code == "not_a_set"


def test_discard_puts_any_hand_card_on_the_discard_pile() -> None:
    state = deal([["coins", "gold_bar"], ["guitar"]], rules="simple", discard=["yacht"])
    assert {a["card"] for a in legal_of(state, "discard")} == {
        card(state, 0, "coins"),
        card(state, 0, "gold_bar"),
    }
    state = act(state, "discard", 0, card=card(state, 0, "gold_bar"))
    assert [c["kind"] for c in engine.view_for(state, 0)["discard"]] == ["yacht", "gold_bar"]


@pytest.mark.parametrize("action_card", ["swap", "move"])
def test_a_discarded_action_card_leaves_the_game(action_card: str) -> None:
    state = deal([[action_card, "coins"], ["guitar"]], rules="simple_actions", discard=["yacht"])
    played = card(state, 0, action_card)
    state = act(state, "discard", 0, card=played)
    view = engine.view_for(state, None)
    assert [c["kind"] for c in view["discard"]] == ["yacht"]
    assert view["out"][-1] == {"id": played, "kind": action_card}


def test_simple_turn_is_one_action_then_draw_up_to_five() -> None:
    state = deal(
        [["coins", "coins", "yacht"], ["guitar"]],
        rules="simple",
        deck=["jewelry", "stocks", "mansion", "fine_art", "piggy_bank"],
    )
    state = act(state, "form_set", 0, cards=[card(state, 0, "coins"), card(state, 0, "coins", 1)])
    view = engine.view_for(state, 0)
    assert view["to_act"] == [1]
    assert hand_kinds(state, 0) == ["fine_art", "jewelry", "mansion", "stocks", "yacht"]
    assert view["deck_size"] == 1


def test_drawing_stops_when_the_deck_runs_out() -> None:
    state = deal([["coins", "yacht"], ["guitar"]], rules="simple", deck=["jewelry"])
    state = act(state, "discard", 0, card=card(state, 0, "coins"))
    assert hand_kinds(state, 0) == ["jewelry", "yacht"]
    assert engine.view_for(state, 0)["deck_size"] == 0


def test_advanced_turn_allows_a_second_action_of_the_same_kind() -> None:
    state = deal(
        [["coins", "coins", "yacht", "yacht"], ["guitar"]],
        deck=["jewelry"] * 6,
    )
    state = act(state, "form_set", 0, cards=[card(state, 0, "coins"), card(state, 0, "coins", 1)])
    assert engine.view_for(state, 0)["to_act"] == [0]
    assert {"type": "end_turn", "seat": 0} in engine.legal_actions(state)
    state = act(state, "form_set", 0, cards=[card(state, 0, "yacht"), card(state, 0, "yacht", 1)])
    assert engine.view_for(state, 0)["to_act"] == [1]
    assert hand_kinds(state, 0) == ["jewelry"] * 6


def test_end_turn_after_one_action_draws_up() -> None:
    state = deal([["coins", "coins", "yacht"], ["guitar"]], deck=["jewelry"] * 6)
    state = act(state, "form_set", 0, cards=[card(state, 0, "coins"), card(state, 0, "coins", 1)])
    state = act(state, "end_turn", 0)
    assert engine.view_for(state, 0)["to_act"] == [1]
    assert hand_kinds(state, 0) == ["jewelry"] * 5 + ["yacht"]
