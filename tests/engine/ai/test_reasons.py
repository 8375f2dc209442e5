"""Why a move was worse, in words (issue 32): each kind of reason on a constructed position,
read from the deciding seat's view only."""

from __future__ import annotations

import random
from typing import Any

import pytest
from gameplay import act, card, deal

import engine
from engine.ai.reasons import reason
from tests.engine.ai.test_fairness import CONFIGS, config_id
from tests.engine.conftest import random_positions, redeal_hidden


def why(state: engine.State, played: dict[str, Any], best: dict[str, Any]) -> str:
    return reason(engine.view_for(state, played["seat"]), played, best)


def discarding(state: engine.State, kind: str) -> dict[str, Any]:
    """Ann (seat 0) discards her card of ``kind``."""
    return {"type": "discard", "seat": 0, "card": card(state, 0, kind)}


def challenge_top(state: engine.State, kind: str) -> dict[str, Any]:
    """Ann challenges Bea's top set with her card of ``kind``."""
    return {
        "type": "challenge",
        "seat": 0,
        "target": 1,
        "depth": 0,
        "cards": [card(state, 0, kind)],
    }


def test_conceding_a_set_while_holding_its_answer_says_so() -> None:
    """Bea defends her $40,000 Yacht set with a Yacht in hand and concedes it."""
    state = deal(
        [["yacht", "coins", "coins"], ["yacht", "piggy_bank"]],
        stacks=[[["guitar", "guitar"]], [["piggy_bank", "piggy_bank"], ["yacht", "yacht"]]],
    )
    state = act(state, "challenge", 0, target=1, depth=0, cards=[card(state, 0, "yacht")])
    answer = {"type": "answer", "seat": 1, "cards": [card(state, 1, "yacht")]}
    assert why(state, {"type": "concede", "seat": 1}, answer) == (
        "gave up your $40,000 Yacht set when your Yacht could answer the challenge"
    )


def test_discarding_a_gold_bar_where_an_asset_would_do_says_so() -> None:
    state = deal(
        [
            ["gold_bar", "piggy_bank", "coins", "guitar", "stocks"],
            ["yacht", "mansion", "fine_art", "racehorse", "sports_car"],
        ],
        rules="simple",
        deck=["jewelry", "jewelry", "coins", "guitar", "piggy_bank", "stocks"],
    )
    gold = discarding(state, "gold_bar")
    piggy = discarding(state, "piggy_bank")
    assert why(state, gold, piggy) == (
        "threw away a Gold Bar, a wild the next player can take from the discard pile, "
        "where a Piggy Bank would do"
    )


def test_a_set_made_with_a_gold_bar_where_a_yacht_would_do_says_so() -> None:
    state = deal(
        [["gold_bar", "yacht", "yacht", "coins"], ["piggy_bank", "mansion", "fine_art"]],
        deck=["jewelry", "jewelry", "coins", "guitar"],
    )
    yacht, other, gold = (
        card(state, 0, "yacht"),
        card(state, 0, "yacht", 1),
        card(state, 0, "gold_bar"),
    )
    with_gold = {"type": "form_set", "seat": 0, "cards": [yacht, gold]}
    natural = {"type": "form_set", "seat": 0, "cards": [yacht, other]}
    assert why(state, with_gold, natural) == "used a Gold Bar where a Yacht would do"


def test_exposing_a_set_with_no_answer_in_hand_says_so() -> None:
    """Ann's Mansions sit protected at the bottom; moving them on top exposes them, and no card
    left in her hand matches them."""
    state = deal(
        [
            ["move", "coins", "guitar", "stocks", "jewelry"],
            ["gold_bar", "silver_bar", "silver_bar", "racehorse", "fine_art"],
        ],
        rules="simple_actions",
        stacks=[
            [["mansion", "mansion"], ["piggy_bank", "piggy_bank"]],
            [["sports_car", "sports_car"]],
        ],
        deck=["yacht", "yacht", "piggy_bank", "coins"],
    )
    expose = {
        "type": "move",
        "seat": 0,
        "card": card(state, 0, "move"),
        "target": 0,
        "direction": "bottom_to_top",
    }
    discard = discarding(state, "coins")
    assert why(state, expose, discard) == (
        "left your $40,000 Mansion set exposed to a challenge you could not answer"
    )


def test_a_missed_challenge_counts_the_unseen_cards_that_could_answer() -> None:
    """Bea's Yacht set is exposed; of the cards Ann has not seen (Bea's hand and the deck) one
    Yacht and no wild could answer a challenge on it."""
    state = deal(
        [["yacht", "coins", "guitar"], ["yacht", "piggy_bank", "stocks"]],
        stacks=[[["guitar", "guitar"]], [["piggy_bank", "piggy_bank"], ["yacht", "yacht"]]],
        deck=["jewelry", "coins"],
    )
    challenge = challenge_top(state, "yacht")
    discard = discarding(state, "coins")
    assert why(state, discard, challenge) == (
        "missed a challenge on Seat 2's $40,000 Yacht set, which only one card you had not "
        "seen could answer"
    )


def test_a_challenge_with_nothing_to_answer_says_what_it_risked() -> None:
    """Ann challenges Bea's Yacht set with her only Silver Bar; two wilds are unseen."""
    state = deal(
        [["silver_bar", "coins", "guitar"], ["gold_bar", "silver_bar", "stocks"]],
        stacks=[[["guitar", "guitar"]], [["piggy_bank", "piggy_bank"], ["yacht", "yacht"]]],
        deck=["jewelry", "coins"],
    )
    challenge = challenge_top(state, "silver_bar")
    discard = discarding(state, "coins")
    assert why(state, challenge, discard) == (
        "challenged Seat 2's $40,000 Yacht set with one card ($25,000) and no card left to "
        "answer, while two cards you had not seen could answer"
    )


def test_leaving_a_set_in_the_hand_says_what_it_would_bank() -> None:
    state = deal(
        [["yacht", "yacht", "coins", "guitar"], ["piggy_bank", "mansion", "fine_art"]],
        deck=["jewelry", "jewelry", "coins", "guitar"],
    )
    form = {
        "type": "form_set",
        "seat": 0,
        "cards": [card(state, 0, "yacht"), card(state, 0, "yacht", 1)],
    }
    discard = discarding(state, "coins")
    assert why(state, discard, form) == "left $40,000 out of your stash that the better move banks"


def test_discarding_the_action_card_the_better_move_plays_says_so() -> None:
    state = deal(
        [
            ["move", "coins", "guitar", "stocks", "jewelry"],
            ["gold_bar", "silver_bar", "racehorse", "fine_art", "yacht"],
        ],
        rules="simple_actions",
        stacks=[[["mansion", "mansion"], ["piggy_bank", "piggy_bank"]], []],
        deck=["yacht", "yacht", "piggy_bank", "coins"],
    )
    move = card(state, 0, "move")
    thrown = {"type": "discard", "seat": 0, "card": move}
    played = {"type": "move", "seat": 0, "card": move, "target": 0}
    played["direction"] = "top_to_bottom"
    assert why(state, thrown, played) == "threw away a Move that the better move plays"


def test_keeping_the_action_card_the_better_move_plays_says_so() -> None:
    state = deal(
        [
            ["move", "coins", "guitar", "stocks", "jewelry"],
            ["gold_bar", "silver_bar", "racehorse", "fine_art", "yacht"],
        ],
        rules="simple_actions",
        stacks=[[["mansion", "mansion"], ["piggy_bank", "piggy_bank"]], []],
        deck=["yacht", "yacht", "piggy_bank", "coins"],
    )
    discard = discarding(state, "coins")
    played = {"type": "move", "seat": 0, "card": card(state, 0, "move"), "target": 0}
    played["direction"] = "top_to_bottom"
    assert why(state, discard, played) == "held on to your Move when playing it was better"


def test_one_discard_for_another_names_both() -> None:
    state = deal(
        [["coins", "guitar", "stocks", "jewelry"], ["racehorse", "fine_art", "yacht"]],
        deck=["yacht", "yacht", "piggy_bank", "coins"],
    )
    coins = discarding(state, "coins")
    stocks = discarding(state, "stocks")
    assert (
        why(state, coins, stocks)
        == "discarded a Coin Collection where a Stock Certificates would do"
    )


def test_the_names_in_the_view_name_the_rival() -> None:
    state = deal(
        [["yacht", "coins", "guitar"], ["yacht", "piggy_bank", "stocks"]],
        stacks=[[["guitar", "guitar"]], [["piggy_bank", "piggy_bank"], ["yacht", "yacht"]]],
        deck=["jewelry", "coins"],
    )
    view = engine.view_for(state, 0)
    view["players"][1]["name"] = "Hard Bot"
    challenge = {"type": "challenge", "seat": 0, "target": 1, "depth": 0}
    challenge["cards"] = [card(state, 0, "yacht")]
    discard = discarding(state, "coins")
    assert "Hard Bot's $40,000 Yacht set" in reason(view, discard, challenge)


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_a_reason_is_unchanged_when_the_hidden_cards_are_redealt(config: dict[str, Any]) -> None:
    """A reason reads the seat's view only: re-dealing every card hidden from it changes no
    reason, for any pair of legal moves."""
    rng = random.Random(5)
    compared = 0
    for state in random_positions(config, 6, 23):
        seat = state.to_act()[0]
        mine = [action for action in engine.legal_actions(state) if action["seat"] == seat]
        if len(mine) < 2:
            continue
        played, best = rng.sample(mine, 2)
        view = engine.view_for(state, seat)
        other = engine.view_for(redeal_hidden(state, seat, rng), seat)
        assert reason(view, played, best) == reason(other, played, best)
        compared += 1
    assert compared > 0
