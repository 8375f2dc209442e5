"""Turns, drawing, empty hands, the end of the game and scores (docs/rules.md §4, §6)."""

from __future__ import annotations

from gameplay import act, card, deal, hand_kinds, legal_of

import engine

COINS = ["coins", "coins"]
GUITARS = ["guitar", "guitar"]


def test_discard_first_action_draws_at_once_R5() -> None:
    state = deal([["coins", "guitar", "yacht"], ["jewelry"]], deck=["stocks"] * 5)
    state = act(state, "discard", 0, card=card(state, 0, "yacht"))
    view = engine.view_for(state, 0)
    assert view["to_act"] == [0]
    assert view["actions_done"] == 1
    assert hand_kinds(state, 0) == ["coins", "guitar", "stocks", "stocks", "stocks", "stocks"]
    assert view["deck_size"] == 1


def test_other_first_actions_wait_for_the_end_of_turn_to_draw_R5() -> None:
    state = deal([["coins", "coins", "yacht"], ["jewelry"]], deck=["stocks"] * 5)
    state = act(state, "form_set", 0, cards=[card(state, 0, "coins"), card(state, 0, "coins", 1)])
    assert hand_kinds(state, 0) == ["yacht"]
    state = act(state, "discard", 0, card=card(state, 0, "yacht"))
    assert hand_kinds(state, 0) == ["stocks"] * 5
    assert engine.view_for(state, 0)["to_act"] == [1]


def test_discard_second_action_draws_at_the_end_of_turn_R5() -> None:
    state = deal([["coins", "guitar", "yacht"], ["jewelry"]], deck=["stocks"] * 7)
    state = act(state, "discard", 0, card=card(state, 0, "yacht"))
    state = act(state, "discard", 0, card=card(state, 0, "coins"))
    assert engine.view_for(state, 0)["to_act"] == [1]
    assert hand_kinds(state, 0) == ["guitar"] + ["stocks"] * 5


def test_hand_that_runs_out_after_a_first_action_can_only_end_turn_R15() -> None:
    state = deal([["coins", "coins"], ["jewelry"]], deck=["stocks"] * 6)
    state = act(state, "form_set", 0, cards=[card(state, 0, "coins"), card(state, 0, "coins", 1)])
    assert engine.legal_actions(state) == [{"type": "end_turn", "seat": 0}]
    blocked = engine.blocked_actions(state, 0)
    assert blocked and {b["code"] for b in blocked} == {"hand_empty"}
    state = act(state, "end_turn", 0)
    assert hand_kinds(state, 0) == ["stocks"] * 6


def test_empty_hand_is_skipped() -> None:
    state = deal([["coins", "yacht"], [], ["guitar", "jewelry"]], rules="simple")
    state = act(state, "discard", 0, card=card(state, 0, "yacht"))
    view = engine.view_for(state, None)
    assert view["to_act"] == [2]
    assert any(e["event"] == "skip" and e["seat"] == 1 for e in view["log"])


def test_play_goes_on_from_hands_when_the_deck_is_empty() -> None:
    state = deal([["coins", "yacht"], ["guitar"]], rules="simple")
    state = act(state, "discard", 0, card=card(state, 0, "yacht"))
    assert not engine.is_over(state)
    assert engine.view_for(state, None)["deck_size"] == 0
    assert engine.view_for(state, None)["to_act"] == [1]


def test_game_ends_when_deck_and_every_hand_are_empty() -> None:
    state = deal([["coins"], ["guitar"]], rules="simple")
    state = act(state, "discard", 0, card=card(state, 0, "coins"))
    assert not engine.is_over(state)
    state = act(state, "discard", 1, card=card(state, 1, "guitar"))
    assert engine.is_over(state)
    view = engine.view_for(state, None)
    assert view["over"] is True
    assert view["to_act"] == []
    assert engine.legal_actions(state) == []


def test_game_ends_at_once_mid_turn() -> None:
    state = deal([["coins", "coins"], []], stacks=[[], [GUITARS]])
    state = act(state, "form_set", 0, cards=[card(state, 0, "coins"), card(state, 0, "coins", 1)])
    assert engine.is_over(state)
    events = [e["event"] for e in engine.view_for(state, None)["log"]]
    assert events[-3:] == ["form_set", "round_over", "game_over"]


def test_game_does_not_end_while_a_challenge_is_open() -> None:
    state = deal([["guitar"], ["guitar"]], stacks=[[COINS], [COINS, GUITARS]])
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    state = act(state, "answer", 1, cards=[card(state, 1, "guitar")])
    assert not engine.is_over(state)
    assert engine.legal_actions(state) == [{"type": "concede", "seat": 0}]
    state = act(state, "concede", 0)
    assert engine.is_over(state)
    assert engine.scores(state) == [14_000, 14_000 + 32_000]


def test_scores_are_the_stash_values() -> None:
    state = deal(
        [["coins"], ["guitar"]],
        stacks=[[["yacht", "gold_bar"], COINS], [["mansion", "penny_jar"]]],
    )
    assert engine.scores(state) == [20_000 + 50_000 + 14_000, 20_000 + 5_000]
    view = engine.view_for(state, None)
    assert [p["stash"] for p in view["players"]] == engine.scores(state)
    assert [s["value"] for s in view["players"][0]["stack"]] == [70_000, 14_000]


def test_penny_jar_is_worth_five_thousand_in_a_stash() -> None:
    state = deal([["coins"], ["guitar"]], stacks=[[["piggy_bank", "penny_jar"]], []])
    assert engine.scores(state) == [10_000, 0]


def test_highest_stash_wins_and_equal_stashes_share() -> None:
    state = deal(
        [["coins"], ["guitar"], ["yacht"]],
        rules="simple",
        stacks=[[COINS], [COINS], [["piggy_bank", "piggy_bank"]]],
    )
    for _ in range(3):
        state = engine.apply_action(state, legal_of(state, "discard")[0])
    assert engine.is_over(state)
    assert engine.result(state)["winners"] == [0, 1]
    assert engine.view_for(state, None)["rounds"]["winners"] == [0, 1]
