"""Challenges (docs/rules.md §5): who may challenge what, weights, answers and the outcome."""

from __future__ import annotations

import pytest
from gameplay import act, card, deal, hand_kinds, legal_of, stack_kinds

import engine

COINS = ["coins", "coins"]
GUITARS = ["guitar", "guitar"]
YACHTS = ["yacht", "yacht"]


def challenges(state: engine.State) -> set[tuple[int, int]]:
    return {(a["target"], a["depth"]) for a in legal_of(state, "challenge")}


def refused(state: engine.State, kind: str, seat: int, **fields: object) -> str:
    with pytest.raises(engine.IllegalAction) as error:
        act(state, kind, seat, **fields)
    return error.value.code


def test_bottom_set_is_always_protected_R1() -> None:
    state = deal(
        [["coins", "guitar", "yacht", "gold_bar"], ["jewelry"], ["stocks"]],
        stacks=[[COINS], [GUITARS], [GUITARS, YACHTS]],
    )
    assert challenges(state) == {(2, 0)}
    assert refused(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")]) == (
        "set_protected"
    )
    gold = card(state, 0, "gold_bar")
    assert refused(state, "challenge", 0, target=2, depth=1, cards=[gold]) == "set_protected"
    players = engine.view_for(state, 0)["players"]
    assert [s["exposed"] for s in players[1]["stack"]] == [False]
    assert [s["exposed"] for s in players[2]["stack"]] == [False, True]


def test_advanced_exposes_top_and_second_from_top_above_the_bottom_R1() -> None:
    state = deal(
        [["coins", "guitar", "guitar", "yacht"], ["jewelry"]],
        stacks=[[COINS], [["stocks", "stocks"], GUITARS, YACHTS]],
    )
    assert challenges(state) == {(1, 0), (1, 1)}
    stack = engine.view_for(state, 0)["players"][1]["stack"]
    assert [s["exposed"] for s in stack] == [False, True, True]


def test_simple_rules_expose_only_the_top_set() -> None:
    state = deal(
        [["coins", "guitar", "yacht", "penny_jar"], ["jewelry"]],
        rules="simple_actions",
        stacks=[[COINS], [["stocks", "stocks"], GUITARS, YACHTS]],
    )
    assert challenges(state) == {(1, 0)}
    jar = card(state, 0, "penny_jar")
    assert refused(state, "challenge", 0, target=1, depth=1, cards=[jar]) == "set_not_exposed"
    stack = engine.view_for(state, 0)["players"][1]["stack"]
    assert [s["exposed"] for s in stack] == [False, False, True]


def test_challenge_needs_a_set_of_your_own() -> None:
    state = deal([["guitar", "gold_bar"], ["jewelry"]], stacks=[[], [COINS, GUITARS]])
    assert legal_of(state, "challenge") == []
    guitar = card(state, 0, "guitar")
    assert refused(state, "challenge", 0, target=1, depth=0, cards=[guitar]) == (
        "no_set_of_your_own"
    )


def test_a_matching_card_is_an_asset_of_the_sets_kind_or_any_wild() -> None:
    state = deal(
        [["guitar", "coins", "silver_bar", "gold_bar", "penny_jar", "swap"], ["jewelry"]],
        stacks=[[YACHTS], [COINS, GUITARS]],
    )
    openings = {a["cards"][0] for a in legal_of(state, "challenge")}
    assert openings == {
        card(state, 0, kind) for kind in ("guitar", "silver_bar", "gold_bar", "penny_jar")
    }
    coins = card(state, 0, "coins")
    assert refused(state, "challenge", 0, target=1, depth=0, cards=[coins]) == (
        "card_does_not_match"
    )


def test_the_sets_kind_is_its_assets_kind_even_with_a_wild() -> None:
    state = deal(
        [["guitar", "coins"], ["jewelry"]],
        stacks=[[YACHTS], [COINS, ["gold_bar", "guitar"]]],
    )
    assert [a["cards"] for a in legal_of(state, "challenge")] == [[card(state, 0, "guitar")]]


def test_top_set_opening_is_one_card() -> None:
    state = deal(
        [["guitar", "guitar", "silver_bar"], ["jewelry"]],
        stacks=[[YACHTS], [COINS, GUITARS]],
    )
    assert all(len(a["cards"]) == 1 for a in legal_of(state, "challenge"))
    two = [card(state, 0, "guitar"), card(state, 0, "guitar", 1)]
    assert refused(state, "challenge", 0, target=1, depth=0, cards=two) == "too_many_cards"


def test_second_from_top_opening_needs_two_cards_or_a_penny_jar() -> None:
    state = deal(
        [["coins", "silver_bar", "penny_jar", "guitar"], ["jewelry"]],
        stacks=[[YACHTS], [GUITARS, COINS, GUITARS]],
    )
    deep = {tuple(sorted(a["cards"])) for a in legal_of(state, "challenge") if a["depth"] == 1}
    coins, silver, jar = (card(state, 0, k) for k in ("coins", "silver_bar", "penny_jar"))
    assert deep == {(jar,), tuple(sorted([coins, silver]))}
    assert refused(state, "challenge", 0, target=1, depth=1, cards=[coins]) == "needs_two_cards"
    assert refused(state, "challenge", 0, target=1, depth=1, cards=[jar, coins]) == (
        "too_many_cards"
    )


def test_penny_jar_opening_needs_weight_two_to_answer() -> None:
    state = deal(
        [["penny_jar", "coins"], ["guitar", "guitar", "penny_jar", "silver_bar"]],
        stacks=[[COINS], [YACHTS, GUITARS]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "penny_jar")])
    assert engine.view_for(state, 1)["challenge"]["need"] == 2
    answers = {tuple(sorted(a["cards"])) for a in legal_of(state, "answer")}
    guitars = sorted([card(state, 1, "guitar"), card(state, 1, "guitar", 1)])
    assert (card(state, 1, "penny_jar"),) in answers
    assert tuple(guitars) in answers
    assert all(len(cards) == 1 or card(state, 1, "penny_jar") not in cards for cards in answers)
    assert refused(state, "answer", 1, cards=[card(state, 1, "guitar")]) == "needs_two_cards"


def test_penny_jar_answer_needs_weight_two_to_answer_back() -> None:
    state = deal(
        [["guitar", "guitar", "guitar", "coins"], ["guitar", "penny_jar"]],
        stacks=[[COINS], [YACHTS, GUITARS]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    assert engine.view_for(state, 1)["challenge"]["need"] == 1
    state = act(state, "answer", 1, cards=[card(state, 1, "penny_jar")])
    view = engine.view_for(state, 0)
    assert view["challenge"]["need"] == 2
    assert view["to_act"] == [0]
    both = sorted([card(state, 0, "guitar"), card(state, 0, "guitar", 1)])
    assert [sorted(a["cards"]) for a in legal_of(state, "answer")] == [both]


def test_second_from_top_answer_needs_one_R6() -> None:
    state = deal(
        [["penny_jar", "coins"], ["coins", "penny_jar", "gold_bar"]],
        stacks=[[YACHTS], [GUITARS, COINS, GUITARS]],
    )
    state = act(state, "challenge", 0, target=1, depth=1, cards=[card(state, 0, "penny_jar")])
    view = engine.view_for(state, 1)
    assert view["challenge"]["need"] == 1
    assert view["to_act"] == [1]
    answers = sorted(a["cards"] for a in legal_of(state, "answer"))
    assert answers == sorted([[card(state, 1, k)] for k in ("coins", "penny_jar", "gold_bar")])


def test_second_from_top_two_card_opening_is_answered_with_one_R6() -> None:
    state = deal(
        [["coins", "silver_bar"], ["coins", "silver_bar"]],
        stacks=[[YACHTS], [GUITARS, COINS, GUITARS]],
    )
    opening = [card(state, 0, "coins"), card(state, 0, "silver_bar")]
    state = act(state, "challenge", 0, target=1, depth=1, cards=opening)
    assert engine.view_for(state, 1)["challenge"]["need"] == 1
    two = [card(state, 1, "coins"), card(state, 1, "silver_bar")]
    assert refused(state, "answer", 1, cards=two) == "too_many_cards"


def test_answer_uses_no_card_more_than_needed_R7() -> None:
    state = deal(
        [["penny_jar", "coins"], ["guitar", "guitar", "guitar", "penny_jar", "gold_bar"]],
        stacks=[[COINS], [YACHTS, GUITARS]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "penny_jar")])
    jar = card(state, 1, "penny_jar")
    g0, g1, g2 = (card(state, 1, "guitar", n) for n in range(3))
    assert refused(state, "answer", 1, cards=[jar, g0]) == "too_many_cards"
    assert refused(state, "answer", 1, cards=[g0, g1, g2]) == "too_many_cards"
    answers = [sorted(a["cards"]) for a in legal_of(state, "answer")]
    assert [jar] in answers
    assert all(len(cards) == 2 for cards in answers if jar not in cards)
    assert all(cards == [jar] for cards in answers if jar in cards)
    assert len(answers) == 1 + 6  # the jar alone, or any two of the three guitars and the gold


def test_answer_one_needed_takes_exactly_one_card_R7() -> None:
    state = deal(
        [["guitar", "coins"], ["guitar", "guitar"]],
        stacks=[[COINS], [YACHTS, GUITARS]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    both = [card(state, 1, "guitar"), card(state, 1, "guitar", 1)]
    assert refused(state, "answer", 1, cards=both) == "too_many_cards"


def test_wilds_may_be_combined_to_answer_a_penny_jar() -> None:
    state = deal(
        [["penny_jar", "coins"], ["silver_bar", "gold_bar"]],
        stacks=[[COINS], [YACHTS, GUITARS]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "penny_jar")])
    wilds = sorted([card(state, 1, "silver_bar"), card(state, 1, "gold_bar")])
    assert [sorted(a["cards"]) for a in legal_of(state, "answer")] == [wilds]


def test_concede_is_always_an_explicit_action() -> None:
    state = deal(
        [["guitar", "coins"], ["coins"]],
        stacks=[[COINS], [YACHTS, GUITARS]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    assert engine.legal_actions(state) == [{"type": "concede", "seat": 1}]
    assert engine.view_for(state, None)["to_act"] == [1]


def test_challenger_who_wins_takes_the_set_and_every_card_played() -> None:
    state = deal(
        [["guitar", "guitar", "coins"], ["guitar", "jewelry"]],
        stacks=[[COINS], [YACHTS, GUITARS]],
        deck=["stocks"] * 6,
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    state = act(state, "answer", 1, cards=[card(state, 1, "guitar")])
    state = act(state, "answer", 0, cards=[card(state, 0, "guitar")])
    state = act(state, "concede", 1)
    assert stack_kinds(state, 0) == [COINS, ["guitar"] * 5]
    assert stack_kinds(state, 1) == [YACHTS]
    assert engine.view_for(state, None)["challenge"] is None


def test_defender_keeps_enlarged_set_in_place_R8() -> None:
    state = deal(
        [["penny_jar", "coins"], ["coins"]],
        stacks=[[YACHTS], [GUITARS, COINS, ["stocks", "stocks"]]],
        deck=["jewelry"] * 6,
    )
    state = act(state, "challenge", 0, target=1, depth=1, cards=[card(state, 0, "penny_jar")])
    state = act(state, "answer", 1, cards=[card(state, 1, "coins")])
    state = act(state, "concede", 0)
    assert stack_kinds(state, 1) == [
        GUITARS,
        ["coins", "coins", "coins", "penny_jar"],
        ["stocks", "stocks"],
    ]
    assert stack_kinds(state, 0) == [YACHTS]


def test_defender_who_answers_last_wins_a_top_set_challenge_R8() -> None:
    state = deal(
        [["guitar", "coins"], ["gold_bar"]],
        stacks=[[COINS], [YACHTS, GUITARS]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    state = act(state, "answer", 1, cards=[card(state, 1, "gold_bar")])
    state = act(state, "concede", 0)
    assert stack_kinds(state, 1) == [YACHTS, ["gold_bar", "guitar", "guitar", "guitar"]]


def test_defender_who_played_draws_up_as_soon_as_the_challenge_ends() -> None:
    state = deal(
        [["guitar", "coins", "coins"], ["gold_bar", "yacht"]],
        stacks=[[COINS], [YACHTS, GUITARS]],
        deck=["jewelry"] * 5 + ["stocks"] * 5,
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    state = act(state, "answer", 1, cards=[card(state, 1, "gold_bar")])
    assert hand_kinds(state, 1) == ["yacht"]
    state = act(state, "concede", 0)
    assert hand_kinds(state, 1) == ["jewelry"] * 5 + ["yacht"]
    assert hand_kinds(state, 0) == ["coins", "coins"]
    assert engine.view_for(state, None)["to_act"] == [0]


def test_cards_played_in_a_challenge_are_public() -> None:
    state = deal(
        [["penny_jar", "coins"], ["coins"], ["jewelry"]],
        stacks=[[YACHTS], [GUITARS, COINS, GUITARS], []],
    )
    jar = card(state, 0, "penny_jar")
    state = act(state, "challenge", 0, target=1, depth=1, cards=[jar])
    for seat in (None, 1, 2):
        view = engine.view_for(state, seat)
        assert view["challenge"]["plays"] == [
            {"seat": 0, "cards": [{"id": jar, "kind": "penny_jar"}]}
        ]
        assert view["log"][-1]["cards"] == [jar]


def test_lost_challenge_bars_that_rival_for_the_turn_R16() -> None:
    state = deal(
        [["guitar", "guitar", "yacht", "coins"], ["gold_bar"], ["jewelry"]],
        stacks=[[COINS], [YACHTS, GUITARS], [GUITARS, YACHTS]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    state = act(state, "answer", 1, cards=[card(state, 1, "gold_bar")])
    state = act(state, "concede", 0)
    assert engine.view_for(state, 0)["barred"] == [1]
    assert challenges(state) == {(2, 0)}
    matching = [card(state, 0, "guitar")]  # would match, but seat 0 lost to seat 1
    assert refused(state, "challenge", 0, target=1, depth=0, cards=matching) == (
        "lost_challenge_this_turn"
    )


def test_lost_challenge_bar_lasts_only_the_turn_R16() -> None:
    state = deal(
        [["guitar", "guitar", "coins"], ["gold_bar", "coins"]],
        stacks=[[COINS], [YACHTS, GUITARS]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    state = act(state, "answer", 1, cards=[card(state, 1, "gold_bar")])
    state = act(state, "concede", 0)
    state = act(state, "end_turn", 0)
    state = act(state, "discard", 1, card=card(state, 1, "coins"))
    state = act(state, "end_turn", 1)
    assert engine.view_for(state, 0)["barred"] == []
    assert challenges(state) == {(1, 0)}


def test_bar_never_limits_swap_or_move_R16() -> None:
    state = deal(
        [["guitar", "swap", "move", "coins"], ["gold_bar"]],
        stacks=[[COINS], [YACHTS, GUITARS]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    state = act(state, "answer", 1, cards=[card(state, 1, "gold_bar")])
    state = act(state, "concede", 0)
    assert {a["target"] for a in legal_of(state, "swap")} == {1}
    assert {a["target"] for a in legal_of(state, "move")} == {1}
    act(state, "swap", 0, card=card(state, 0, "swap"), target=1)
    act(state, "move", 0, card=card(state, 0, "move"), target=1, direction="top_to_bottom")


def test_winning_a_challenge_bars_nothing_R16() -> None:
    state = deal(
        [["guitar", "yacht", "coins"], ["coins"]],
        stacks=[[COINS], [GUITARS, YACHTS, GUITARS]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    state = act(state, "concede", 1)
    assert engine.view_for(state, 0)["barred"] == []
    assert challenges(state) == {(1, 0)}
