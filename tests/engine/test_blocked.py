"""``blocked_actions``: why a player cannot do something now, in the players' words."""

from __future__ import annotations

import random
from typing import Any

from gameplay import act, card, deal

import engine

COINS = ["coins", "coins"]
GUITARS = ["guitar", "guitar"]
YACHTS = ["yacht", "yacht"]


def blocked(state: engine.State, seat: int, kind: str) -> list[dict[str, Any]]:
    return [b for b in engine.blocked_actions(state, seat) if b["type"] == kind]


def why(state: engine.State, seat: int, kind: str, **where: Any) -> dict[str, Any]:
    """The one blocked entry of ``kind`` at ``where`` (target, depth, piles)."""
    found = [
        b
        for b in blocked(state, seat, kind)
        if all(b.get(key) == value for key, value in where.items())
    ]
    assert len(found) == 1, found
    return found[0]


def test_bottom_set_is_protected_R1() -> None:
    state = deal([["guitar", "gold_bar"], ["jewelry"]], stacks=[[COINS], [GUITARS]])
    entry = why(state, 0, "challenge", target=1, depth=0)
    assert entry["code"] == "set_protected"
    assert entry["reason"] == "The bottom set of a stack is always protected."


def test_a_rival_without_that_set_is_named() -> None:
    state = deal([["guitar"], ["jewelry"]], stacks=[[COINS], []])
    entry = why(state, 0, "challenge", target=1, depth=0)
    assert entry["code"] == "no_set_to_challenge"
    assert "Seat 1" in entry["reason"]


def test_challenge_needs_a_set_of_your_own_first() -> None:
    state = deal([["guitar"], ["jewelry"]], stacks=[[], [COINS, GUITARS]])
    [entry] = blocked(state, 0, "challenge")
    assert entry["code"] == "no_set_of_your_own"
    assert "set of your own" in entry["reason"]


def test_second_from_top_needs_two_matching_cards_or_a_penny_jar() -> None:
    state = deal(
        [["coins", "guitar"], ["jewelry"]],
        stacks=[[YACHTS], [GUITARS, COINS, GUITARS]],
    )
    assert not [b for b in blocked(state, 0, "challenge") if b["depth"] == 0]
    entry = why(state, 0, "challenge", target=1, depth=1)
    assert entry["code"] == "needs_two_cards"
    assert "two matching cards or a Penny Jar" in entry["reason"]


def test_lost_a_challenge_against_that_rival_this_turn_R16() -> None:
    state = deal(
        [["guitar", "guitar", "coins"], ["gold_bar"], ["jewelry"]],
        stacks=[[COINS], [YACHTS, GUITARS], [YACHTS, GUITARS]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    state = act(state, "answer", 1, cards=[card(state, 1, "gold_bar")])
    state = act(state, "concede", 0)
    entry = why(state, 0, "challenge", target=1, depth=0)
    assert entry["code"] == "lost_challenge_this_turn"
    assert "Seat 1" in entry["reason"]
    assert not [b for b in blocked(state, 0, "challenge") if b["target"] == 2 and b["depth"] == 0]


def test_no_matching_card_to_challenge() -> None:
    state = deal([["coins", "yacht"], ["jewelry"]], stacks=[[COINS], [YACHTS, GUITARS]])
    entry = why(state, 0, "challenge", target=1, depth=0)
    assert entry["code"] == "no_matching_card"
    assert "Vintage Guitar" in entry["reason"]


def test_no_matching_card_to_answer() -> None:
    state = deal([["guitar", "coins"], ["coins"]], stacks=[[COINS], [YACHTS, GUITARS]])
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    [entry] = engine.blocked_actions(state, 1)
    assert (entry["type"], entry["code"]) == ("answer", "no_matching_card")
    assert "concede" in entry["reason"]


def test_penny_jar_answer_needs_two() -> None:
    state = deal([["penny_jar", "coins"], ["guitar"]], stacks=[[COINS], [YACHTS, GUITARS]])
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "penny_jar")])
    [entry] = engine.blocked_actions(state, 1)
    assert (entry["type"], entry["code"]) == ("answer", "needs_two_cards")
    assert "Penny Jar" in entry["reason"]


def test_not_your_turn_for_every_seat_that_is_not_to_act() -> None:
    state = deal([["coins"], ["guitar"], ["yacht"]])
    for seat in (1, 2):
        entries = engine.blocked_actions(state, seat)
        assert entries
        assert {b["code"] for b in entries} == {"not_your_turn"}
        assert "Seat 0" in entries[0]["reason"]
        assert {b["type"] for b in entries} >= {"form_set", "discard", "challenge", "end_turn"}


def test_not_your_turn_while_someone_else_answers() -> None:
    state = deal(
        [["guitar", "coins"], ["gold_bar"], ["jewelry"]], stacks=[[COINS], [COINS, GUITARS], []]
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "guitar")])
    for seat in (0, 2):
        entries = engine.blocked_actions(state, seat)
        assert {(b["type"], b["code"]) for b in entries} == {
            ("answer", "not_your_turn"),
            ("concede", "not_your_turn"),
        }


def test_game_over() -> None:
    state = deal([["coins"], []], rules="simple")
    state = act(state, "discard", 0, card=card(state, 0, "coins"))
    assert engine.is_over(state)
    assert [b["code"] for b in engine.blocked_actions(state, 1)] == ["game_over"]


def test_draft_pile_that_does_not_touch_your_seat() -> None:
    state = deal(
        [["coins"], ["jewelry"], ["stocks"]],
        draft=True,
        piles=[["coins"], ["coins"], ["coins"]],
    )
    entry = why(state, 0, "draft", piles=[1])
    assert entry["code"] == "pile_not_touching"
    assert entry["reason"] == "That pile doesn't touch your seat."
    assert {tuple(b.get("piles", [])) for b in blocked(state, 0, "draft")} == {(1,), ()}


def test_draft_one_pile_at_a_time_with_three_players() -> None:
    state = deal(
        [["coins"], ["jewelry"], ["stocks"]],
        draft=True,
        piles=[["coins"], ["coins"], ["coins"]],
    )
    [entry] = [b for b in blocked(state, 0, "draft") if b["code"] == "one_pile_at_a_time"]
    assert entry["reason"] == "With three players you draft from one pile at a time."


def test_draft_with_no_pile_top_matching() -> None:
    state = deal(
        [["coins", "swap"], ["jewelry"]],
        draft=True,
        piles=[["yacht", "guitar"], ["yacht"], ["coins"]],
    )
    assert why(state, 0, "draft", piles=[1])["code"] == "no_match"
    assert "Vintage Guitar" in why(state, 0, "draft", piles=[0])["reason"]
    assert why(state, 0, "draft", piles=[0])["code"] == "no_match"
    assert not [b for b in blocked(state, 0, "draft") if b.get("piles") == [2]]


def test_draft_pile_that_ran_out() -> None:
    state = deal([["coins"], ["jewelry"]], draft=True, piles=[[], ["coins"], ["coins"]])
    assert why(state, 0, "draft", piles=[0])["code"] == "pile_empty"


def test_hand_empty_after_a_first_action_R15() -> None:
    state = deal([["coins", "coins"], ["jewelry"]], draft=True, piles=[["coins"], [], []])
    state = act(state, "form_set", 0, cards=[card(state, 0, "coins"), card(state, 0, "coins", 1)])
    entries = engine.blocked_actions(state, 0)
    assert {b["code"] for b in entries} == {"hand_empty"}
    assert {b["type"] for b in entries} == {
        "form_set",
        "form_set_discard",
        "discard",
        "improve",
        "challenge",
        "swap",
        "move",
        "draft",
    }


def test_end_turn_needs_an_action_first() -> None:
    state = deal([["coins"], ["jewelry"]])
    assert why(state, 0, "end_turn")["code"] == "take_an_action_first"


def test_forming_sets_with_nothing_that_pairs() -> None:
    state = deal([["coins", "guitar"], ["jewelry"]], discard=["yacht"])
    assert why(state, 0, "form_set")["code"] == "no_pair"
    assert why(state, 0, "form_set_discard")["code"] == "no_match"
    assert "Yacht" in why(state, 0, "form_set_discard")["reason"]
    empty = deal([["coins", "guitar"], ["jewelry"]])
    assert why(empty, 0, "form_set_discard")["code"] == "discard_empty"


def test_improve_reasons() -> None:
    assert why(deal([["coins"], ["jewelry"]]), 0, "improve")["code"] == "no_set"
    state = deal([["gold_bar"], ["jewelry"]], stacks=[[COINS], []])
    entry = why(state, 0, "improve")
    assert entry["code"] == "no_matching_asset"
    assert "Coin Collection" in entry["reason"]
    simple = deal([["coins"], ["jewelry"]], rules="simple", stacks=[[COINS], []])
    assert why(simple, 0, "improve")["code"] == "not_in_rules"


def test_swap_and_move_reasons() -> None:
    state = deal([["coins"], ["jewelry"]], stacks=[[COINS], [GUITARS]])
    assert why(state, 0, "swap")["code"] == "no_swap_card"
    assert why(state, 0, "move")["code"] == "no_move_card"
    state = deal(
        [["swap", "move"], ["jewelry"], ["yacht"]], stacks=[[COINS], [], [GUITARS, YACHTS]]
    )
    assert why(state, 0, "swap", target=1)["code"] == "no_set_to_swap"
    assert why(state, 0, "move", target=0)["code"] == "move_needs_two_sets"
    assert why(state, 0, "move", target=1)["code"] == "move_needs_two_sets"
    assert not [b for b in blocked(state, 0, "move") if b.get("target") == 2]
    own = deal([["swap"], ["jewelry"]], stacks=[[], [GUITARS]])
    assert why(own, 0, "swap")["code"] == "no_set_of_your_own"
    simple = deal([["coins"], ["jewelry"]], rules="simple")
    assert why(simple, 0, "swap")["code"] == why(simple, 0, "move")["code"] == "not_in_rules"


def test_blocked_for_is_blocked_actions_of_every_seat() -> None:
    rng = random.Random(11)
    for players in (2, 4, 5):
        state = engine.new_game({"players": players, "rules": "advanced", "seed": players})
        for _ in range(200):
            by_seat = engine.blocked_for(state)
            assert by_seat == {s: engine.blocked_actions(state, s) for s in range(players)}
            waiting = [s for s in range(players) if s not in engine.to_act(state)]
            if not engine.is_over(state) and len(waiting) > 1:
                # One list for everyone waiting: it is rendered once for all of them.
                assert all(by_seat[s] is by_seat[waiting[0]] for s in waiting)
            if engine.is_over(state):
                break
            state = engine.apply_action(state, rng.choice(engine.legal_actions(state)))
