"""Bad input: ``IllegalAction`` with a precise code and a sentence, and the state unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from gameplay import act, card, deal

import engine

COINS = ["coins", "coins"]
GUITARS = ["guitar", "guitar"]
YACHTS = ["yacht", "yacht"]


def position() -> engine.State:
    """Seat 0 to act, holding one of most things; seat 1 has three sets, seat 2 one."""
    return deal(
        [
            ["coins", "gold_bar", "silver_bar", "guitar", "swap", "move"],
            ["jewelry", "stocks"],
            ["yacht"],
        ],
        stacks=[[COINS], [YACHTS, COINS, GUITARS], [["fine_art", "fine_art"]]],
        discard=["racehorse"],
        deck=["piggy_bank"] * 6,
    )


def ids(*kinds: str) -> list[int]:
    state = position()
    seen: dict[str, int] = {}
    out = []
    for kind in kinds:
        out.append(card(state, 0, kind, seen.get(kind, 0)))
        seen[kind] = seen.get(kind, 0) + 1
    return out


COINS_ID, GOLD, SILVER, GUITAR, SWAP, MOVE = ids(
    "coins", "gold_bar", "silver_bar", "guitar", "swap", "move"
)
NOT_HELD = 0  # a Piggy Bank: in the deck or out of the game, never in seat 0's hand

BAD: list[tuple[Any, str]] = [
    ("discard", "bad_action"),
    ({"seat": 0}, "unknown_action"),
    ({"type": "shuffle", "seat": 0}, "unknown_action"),
    ({"type": 3, "seat": 0}, "unknown_action"),
    ({"type": "discard", "card": GUITAR}, "bad_seat"),
    ({"type": "discard", "seat": 3, "card": GUITAR}, "bad_seat"),
    ({"type": "discard", "seat": -1, "card": GUITAR}, "bad_seat"),
    ({"type": "discard", "seat": "0", "card": GUITAR}, "bad_seat"),
    ({"type": "discard", "seat": True, "card": GUITAR}, "bad_seat"),
    ({"type": "discard", "seat": 1, "card": GUITAR}, "not_your_turn"),
    ({"type": "discard", "seat": 0}, "bad_action"),
    ({"type": "discard", "seat": 0, "card": str(GUITAR)}, "bad_action"),
    ({"type": "discard", "seat": 0, "card": float(GUITAR)}, "bad_action"),
    ({"type": "discard", "seat": 0, "card": NOT_HELD}, "card_not_in_hand"),
    ({"type": "discard", "seat": 0, "card": 999}, "card_not_in_hand"),
    ({"type": "form_set", "seat": 0, "cards": COINS_ID}, "bad_action"),
    ({"type": "form_set", "seat": 0, "cards": []}, "bad_action"),
    ({"type": "form_set", "seat": 0, "cards": [COINS_ID, COINS_ID]}, "bad_action"),
    ({"type": "form_set", "seat": 0, "cards": [COINS_ID]}, "bad_set"),
    ({"type": "form_set", "seat": 0, "cards": [COINS_ID, GOLD, SILVER]}, "bad_set"),
    ({"type": "form_set", "seat": 0, "cards": [COINS_ID, NOT_HELD]}, "card_not_in_hand"),
    ({"type": "form_set", "seat": 0, "cards": [GOLD, SILVER]}, "two_wilds"),
    ({"type": "form_set", "seat": 0, "cards": [COINS_ID, GUITAR]}, "not_a_set"),
    ({"type": "form_set", "seat": 0, "cards": [SWAP, COINS_ID]}, "action_card_in_set"),
    ({"type": "form_set_discard", "seat": 0, "card": COINS_ID}, "not_a_set"),
    ({"type": "form_set_discard", "seat": 0, "card": MOVE}, "action_card_in_set"),
    ({"type": "improve", "seat": 0, "card": GOLD}, "improve_needs_asset"),
    ({"type": "improve", "seat": 0, "card": GUITAR}, "improve_wrong_kind"),
    ({"type": "challenge", "seat": 0, "depth": 0, "cards": [GUITAR]}, "bad_target"),
    ({"type": "challenge", "seat": 0, "target": 7, "depth": 0, "cards": [GUITAR]}, "bad_target"),
    ({"type": "challenge", "seat": 0, "target": 1, "depth": 2, "cards": [GOLD]}, "bad_depth"),
    ({"type": "challenge", "seat": 0, "target": 1, "depth": "0", "cards": [GOLD]}, "bad_depth"),
    ({"type": "challenge", "seat": 0, "target": 0, "depth": 0, "cards": [GOLD]}, "challenge_self"),
    ({"type": "challenge", "seat": 0, "target": 2, "depth": 0, "cards": [GOLD]}, "set_protected"),
    (
        {"type": "challenge", "seat": 0, "target": 1, "depth": 0, "cards": [COINS_ID]},
        "card_does_not_match",
    ),
    (
        {"type": "challenge", "seat": 0, "target": 1, "depth": 0, "cards": [GUITAR, GOLD]},
        "too_many_cards",
    ),
    (
        {"type": "challenge", "seat": 0, "target": 1, "depth": 1, "cards": [COINS_ID]},
        "needs_two_cards",
    ),
    (
        {
            "type": "challenge",
            "seat": 0,
            "target": 1,
            "depth": 1,
            "cards": [COINS_ID, GOLD, SILVER],
        },
        "too_many_cards",
    ),
    ({"type": "swap", "seat": 0, "card": MOVE, "target": 1}, "not_a_swap"),
    ({"type": "swap", "seat": 0, "card": SWAP, "target": 0}, "swap_self"),
    ({"type": "swap", "seat": 0, "card": SWAP}, "bad_target"),
    ({"type": "move", "seat": 0, "card": SWAP, "target": 1, "direction": "up"}, "not_a_move"),
    ({"type": "move", "seat": 0, "card": MOVE, "target": 1, "direction": "up"}, "bad_direction"),
    ({"type": "move", "seat": 0, "card": MOVE, "target": 1}, "bad_direction"),
    (
        {"type": "move", "seat": 0, "card": MOVE, "target": 2, "direction": "top_to_bottom"},
        "move_needs_two_sets",
    ),
    ({"type": "end_turn", "seat": 0}, "take_an_action_first"),
    ({"type": "draft", "seat": 0, "card": COINS_ID, "piles": [0]}, "no_draft_piles"),
    ({"type": "answer", "seat": 0, "cards": [GOLD]}, "no_challenge"),
    ({"type": "concede", "seat": 0}, "no_challenge"),
    ({"type": "choose", "seat": 0, "direction": "top_to_bottom"}, "no_choice"),
]


@pytest.mark.parametrize(
    ("action", "code"), BAD, ids=[f"{i}-{code}" for i, (_, code) in enumerate(BAD)]
)
def test_bad_action_is_refused_with_a_precise_code_and_changes_nothing(
    action: Any, code: str
) -> None:
    state = position()
    before = engine.dumps(state)
    with pytest.raises(engine.IllegalAction) as refused:
        engine.apply_action(state, action)
    assert refused.value.code == code
    assert isinstance(refused.value, ValueError)
    assert refused.value.message and refused.value.message == str(refused.value)
    assert "_" not in refused.value.message.split()[0]
    assert engine.dumps(state) == before


def refusal(state: engine.State, action: dict[str, Any]) -> str:
    before = engine.dumps(state)
    with pytest.raises(engine.IllegalAction) as refused:
        engine.apply_action(state, action)
    assert engine.dumps(state) == before
    return refused.value.code


def test_only_answers_while_a_challenge_is_open() -> None:
    state = act(position(), "challenge", 0, target=1, depth=0, cards=[GUITAR])
    assert refusal(state, {"type": "discard", "seat": 1, "card": card(state, 1, "stocks")}) == (
        "challenge_open"
    )
    assert refusal(state, {"type": "answer", "seat": 0, "cards": [GOLD]}) == "not_your_turn"
    assert refusal(state, {"type": "answer", "seat": 1, "cards": [GOLD]}) == "card_not_in_hand"
    assert refusal(state, {"type": "answer", "seat": 1, "cards": "x"}) == "bad_action"
    stocks = card(state, 1, "stocks")
    assert refusal(state, {"type": "answer", "seat": 1, "cards": [stocks]}) == "card_does_not_match"


def test_only_the_choice_while_one_is_pending() -> None:
    state = deal(
        [["coins", "yacht"], ["jewelry"]],
        draft=True,
        stacks=[[YACHTS, ["stocks", "stocks"], GUITARS], []],
        piles=[["stocks", "move", "coins"], ["yacht"], ["yacht"]],
    )
    state = act(state, "draft", 0, card=card(state, 0, "coins"), piles=[0])
    state = act(state, "concede", 1)
    assert engine.to_act(state) == [1]
    assert refusal(state, {"type": "discard", "seat": 1, "card": card(state, 1, "jewelry")}) == (
        "choice_pending"
    )
    assert refusal(state, {"type": "choose", "seat": 1, "direction": "left"}) == "bad_direction"
    assert refusal(state, {"type": "choose", "seat": 0, "direction": "top_to_bottom"}) == (
        "not_your_turn"
    )


def test_draft_refusals() -> None:
    state = deal(
        [["coins", "yacht"], ["jewelry"], ["stocks"]],
        draft=True,
        piles=[["coins"], ["coins"], []],
    )
    coins = card(state, 0, "coins")
    draft = {"type": "draft", "seat": 0, "card": coins}
    assert refusal(state, {**draft, "piles": [1]}) == "pile_not_touching"
    assert refusal(state, {**draft, "piles": [0, 2]}) == "one_pile_at_a_time"
    assert refusal(state, {**draft, "piles": [2]}) == "pile_empty"
    assert refusal(state, {**draft, "piles": [3]}) == "bad_action"
    assert refusal(state, {**draft, "piles": []}) == "bad_action"
    assert refusal(state, {**draft, "piles": 0}) == "bad_action"
    assert refusal(state, {**draft, "card": card(state, 0, "yacht"), "piles": [0]}) == (
        "draft_not_a_set"
    )


def test_two_player_draft_names_each_pile_once() -> None:
    state = deal([["coins"], ["jewelry"]], draft=True, piles=[["coins"], ["coins"], ["coins"]])
    action = {"type": "draft", "seat": 0, "card": card(state, 0, "coins"), "piles": [0, 0]}
    assert refusal(state, action) == "bad_action"


def test_nothing_is_accepted_once_the_game_is_over() -> None:
    state = deal([["coins"], []], rules="simple")
    state = act(state, "discard", 0, card=card(state, 0, "coins"))
    assert refusal(state, {"type": "discard", "seat": 0, "card": COINS_ID}) == "game_over"
    assert refusal(state, {"type": "concede", "seat": 1}) == "game_over"


@pytest.mark.parametrize(
    ("config", "code"),
    [
        ({"players": 1}, "bad_players"),
        ({"players": 7}, "bad_players"),
        ({"players": "4"}, "bad_players"),
        ({"rules": "expert"}, "bad_rules"),
        ({"draft": "yes"}, "bad_config"),
        ({"seed": 1.5}, "bad_config"),
        ({"colour": "red"}, "bad_config"),
        ({"names": ["Ann"]}, "bad_config"),
        ({"players": 5, "draft": True}, "draft_needs_two_or_three"),
        ({"setup": {"hands": [["unicorn"], []]}}, "bad_setup"),
        ({"setup": {"hands": [["gold_bar"] * 5, []]}}, "bad_setup"),
        ({"setup": {"stacks": [[["coins"]], []]}}, "bad_setup"),
        ({"setup": {"stacks": [[["gold_bar", "silver_bar"]], []]}}, "bad_setup"),
        ({"setup": {"discard": ["swap"]}}, "bad_setup"),
        ({"setup": {"rest": "table"}}, "bad_setup"),
        ({"setup": {"piles": [[], [], []]}}, "bad_setup"),
        ({"setup": {"trump": "coins"}}, "bad_setup"),
    ],
)
def test_bad_configuration_is_refused(config: dict[str, Any], code: str) -> None:
    with pytest.raises(engine.InvalidConfig) as refused:
        engine.new_game({"players": 2, "seed": 1, **config})
    assert refused.value.code == code
