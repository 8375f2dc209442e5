"""Draft piles for 2 and 3 players (docs/rules.md §8, R-9 to R-14, R-16)."""

from __future__ import annotations

from collections import Counter

import pytest
from gameplay import act, card, deal, every_card, hand_kinds, legal_of, stack_kinds

import engine

COINS = ["coins", "coins"]
GUITARS = ["guitar", "guitar"]
YACHTS = ["yacht", "yacht"]
STOCKS = ["stocks", "stocks"]


def refused(state: engine.State, kind: str, seat: int, **fields: object) -> str:
    with pytest.raises(engine.IllegalAction) as error:
        act(state, kind, seat, **fields)
    return error.value.code


def drafts(state: engine.State) -> set[tuple[int, tuple[int, ...]]]:
    return {(a["card"], tuple(sorted(a["piles"]))) for a in legal_of(state, "draft")}


def tops(state: engine.State) -> list[str | None]:
    return [p["top"] and p["top"]["kind"] for p in engine.view_for(state, None)["piles"]]


@pytest.mark.parametrize(
    ("rules", "size"), [("simple", 93), ("simple_actions", 99), ("advanced", 99)]
)
def test_two_player_draft_deck_leaves_out_mansions_and_three_bars_R11(
    rules: str, size: int
) -> None:
    state = engine.new_game({"players": 2, "rules": rules, "draft": True, "seed": 4})
    cards = every_card(state)
    kinds = Counter(c["kind"] for c in cards)
    assert len(cards) == size
    assert kinds["mansion"] == 0
    assert kinds["silver_bar"] == 6
    assert kinds["gold_bar"] == 3
    assert kinds["penny_jar"] == (0 if rules == "simple" else 2)
    view = engine.view_for(state, None)
    assert view["hand_size_limit"] == 6
    assert [p["hand_size"] for p in view["players"]] == [6, 6]


@pytest.mark.parametrize(("rules", "hand"), [("simple", 5), ("advanced", 6)])
def test_three_player_draft_keeps_the_deck_and_the_rule_sets_hand(rules: str, hand: int) -> None:
    state = engine.new_game({"players": 3, "rules": rules, "draft": True, "seed": 4})
    view = engine.view_for(state, None)
    assert [p["hand_size"] for p in view["players"]] == [hand] * 3
    assert Counter(c["kind"] for c in every_card(state))["mansion"] == 8
    assert len(every_card(state)) == (104 if rules == "simple" else 110)


@pytest.mark.parametrize("players", [4, 5, 6])
def test_draft_is_offered_only_with_two_or_three_players(players: int) -> None:
    with pytest.raises(engine.InvalidConfig) as refused_config:
        engine.new_game({"players": players, "draft": True, "seed": 1})
    assert refused_config.value.code == "draft_needs_two_or_three"


def test_three_piles_of_ten_show_their_tops() -> None:
    state = engine.new_game({"players": 3, "rules": "simple", "draft": True, "seed": 8})
    piles = engine.view_for(state, 0)["piles"]
    assert [p["size"] for p in piles] == [10, 10, 10]
    assert all(p["top"] is not None for p in piles)


def test_action_card_turned_up_while_dealing_acts_on_nobody_R13() -> None:
    # Seed 19 turns a Swap up on a pile during the deal (found once, checked here).
    state = engine.new_game({"players": 2, "rules": "advanced", "draft": True, "seed": 19})
    view = engine.open_view(state)
    short = [i for i, p in enumerate(view["piles"]) if p["size"] < 10]
    assert short, "this seed no longer turns an action card up while dealing"
    assert all(p["top"]["kind"] not in ("swap", "move") for p in view["piles"])
    assert any(c["kind"] in ("swap", "move") for c in view["out"])
    assert all(p["stack"] == [] for p in view["players"])


def test_draft_claim_is_a_hand_card_and_a_pile_top_R10() -> None:
    state = deal(
        [["coins", "gold_bar", "guitar", "swap"], ["jewelry"]],
        draft=True,
        piles=[["yacht", "coins"], ["yacht", "silver_bar"], ["yacht", "stocks"]],
    )
    coins, gold, guitar = (card(state, 0, k) for k in ("coins", "gold_bar", "guitar"))
    assert drafts(state) == {
        (coins, (0,)),
        (coins, (1,)),
        (coins, (0, 1)),
        (gold, (0,)),
        (gold, (2,)),
        (guitar, (1,)),
    }
    assert refused(state, "draft", 0, card=gold, piles=[1]) == "draft_not_a_set"
    assert refused(state, "draft", 0, card=coins, piles=[2]) == "draft_not_a_set"
    assert refused(state, "draft", 0, card=coins, piles=[0, 2]) == "draft_not_a_set"
    assert refused(state, "draft", 0, card=gold, piles=[0, 1]) == "draft_not_a_set"
    swap = card(state, 0, "swap")
    assert refused(state, "draft", 0, card=swap, piles=[0]) == "draft_not_a_set"


def test_two_players_claim_several_pile_tops_at_once() -> None:
    state = deal(
        [["coins", "yacht"], ["jewelry"]],
        draft=True,
        piles=[["yacht", "coins"], ["yacht", "coins"], ["yacht", "silver_bar"]],
    )
    coins = card(state, 0, "coins")
    assert (coins, (0, 1, 2)) in drafts(state)
    state = act(state, "draft", 0, card=coins, piles=[2, 0, 1])
    assert engine.view_for(state, None)["to_act"] == [1]
    state = act(state, "concede", 1)
    assert stack_kinds(state, 0) == [["coins", "coins", "coins", "silver_bar"]]
    assert tops(state) == ["yacht", "yacht", "yacht"]


def test_three_players_draft_one_pile_touching_their_seat() -> None:
    state = deal(
        [["coins", "yacht"], ["jewelry"], ["stocks"]],
        draft=True,
        piles=[["guitar", "coins"], ["guitar", "coins"], ["guitar", "coins"]],
    )
    coins = card(state, 0, "coins")
    assert drafts(state) == {(coins, (0,)), (coins, (2,))}
    assert refused(state, "draft", 0, card=coins, piles=[1]) == "pile_not_touching"
    assert refused(state, "draft", 0, card=coins, piles=[0, 2]) == "one_pile_at_a_time"


@pytest.mark.parametrize(("pile", "contester"), [(0, 1), (2, 2)])
def test_three_player_claim_is_contested_by_the_neighbour_sharing_the_pile(
    pile: int, contester: int
) -> None:
    state = deal(
        [["coins", "yacht"], ["jewelry"], ["stocks"]],
        draft=True,
        piles=[["guitar", "coins"], ["guitar", "coins"], ["guitar", "coins"]],
    )
    state = act(state, "draft", 0, card=card(state, 0, "coins"), piles=[pile])
    view = engine.view_for(state, None)
    assert view["to_act"] == [contester]
    assert view["challenge"]["to_answer"] == contester
    assert view["log"][-1]["contester"] == contester


def test_conceded_claim_goes_on_the_claimers_stack_R12() -> None:
    state = deal(
        [["coins", "yacht"], ["jewelry"]],
        rules="simple_actions",
        draft=True,
        stacks=[[GUITARS], []],
        piles=[["yacht", "coins"], ["stocks"], ["stocks"]],
        deck=["piggy_bank"] * 3,
    )
    state = act(state, "draft", 0, card=card(state, 0, "coins"), piles=[0])
    assert stack_kinds(state, 0) == [GUITARS]
    state = act(state, "concede", 1)
    assert stack_kinds(state, 0) == [GUITARS, COINS]
    assert engine.view_for(state, None)["to_act"] == [1]
    assert hand_kinds(state, 0) == ["piggy_bank"] * 3 + ["yacht"]


def test_pile_shows_no_top_while_the_claim_is_pending_R14() -> None:
    state = deal(
        [["coins", "yacht"], ["coins"]],
        draft=True,
        piles=[["yacht", "coins"], ["stocks"], ["stocks"]],
    )
    state = act(state, "draft", 0, card=card(state, 0, "coins"), piles=[0])
    for seat in (None, 0, 1):
        piles = engine.view_for(state, seat)["piles"]
        assert piles[0] == {"top": None, "size": 1}
    state = act(state, "concede", 1)
    assert tops(state) == ["yacht", "stocks", "stocks"]


def test_contesting_needs_no_set_of_ones_own_R12() -> None:
    state = deal(
        [["coins", "yacht"], ["gold_bar"]],
        draft=True,
        stacks=[[GUITARS], []],
        piles=[["yacht", "coins"], ["stocks"], ["stocks"]],
    )
    state = act(state, "draft", 0, card=card(state, 0, "coins"), piles=[0])
    gold = card(state, 1, "gold_bar")
    assert {"type": "answer", "seat": 1, "cards": [gold]} in engine.legal_actions(state)
    state = act(state, "answer", 1, cards=[gold])
    assert engine.view_for(state, None)["to_act"] == [0]


def test_contest_opening_is_one_matching_card_whatever_the_claim_R12() -> None:
    state = deal(
        [["coins", "yacht"], ["coins", "coins", "guitar"]],
        draft=True,
        piles=[["yacht", "coins"], ["yacht", "coins"], ["stocks"]],
    )
    state = act(state, "draft", 0, card=card(state, 0, "coins"), piles=[0, 1])
    answers = [a["cards"] for a in legal_of(state, "answer")]
    assert sorted(answers) == sorted([[card(state, 1, "coins")], [card(state, 1, "coins", 1)]])
    both = [card(state, 1, "coins"), card(state, 1, "coins", 1)]
    assert refused(state, "answer", 1, cards=both) == "too_many_cards"
    assert refused(state, "answer", 1, cards=[card(state, 1, "guitar")]) == "card_does_not_match"


def test_contest_opened_with_a_penny_jar_needs_two_to_answer_R12() -> None:
    state = deal(
        [["coins", "coins", "coins"], ["penny_jar"]],
        draft=True,
        piles=[["yacht", "coins"], ["stocks"], ["stocks"]],
    )
    state = act(state, "draft", 0, card=card(state, 0, "coins"), piles=[0])
    state = act(state, "answer", 1, cards=[card(state, 1, "penny_jar")])
    assert engine.view_for(state, 0)["challenge"]["need"] == 2
    assert [len(a["cards"]) for a in legal_of(state, "answer")] == [2]


def test_contest_winner_stacks_the_claim_with_every_card_played_R12() -> None:
    state = deal(
        [["coins", "coins", "yacht"], ["coins", "gold_bar"]],
        draft=True,
        stacks=[[], [GUITARS]],
        piles=[["yacht", "coins"], ["stocks"], ["stocks"]],
    )
    state = act(state, "draft", 0, card=card(state, 0, "coins"), piles=[0])
    state = act(state, "answer", 1, cards=[card(state, 1, "coins")])
    state = act(state, "answer", 0, cards=[card(state, 0, "coins")])
    state = act(state, "answer", 1, cards=[card(state, 1, "gold_bar")])
    state = act(state, "concede", 0)
    assert stack_kinds(state, 1) == [GUITARS, ["coins"] * 4 + ["gold_bar"]]
    assert stack_kinds(state, 0) == []


def test_contest_gives_nobody_a_turn_and_the_claimer_acts_again_in_advanced() -> None:
    state = deal(
        [["coins", "yacht", "stocks"], ["coins", "jewelry"]],
        draft=True,
        piles=[["yacht", "coins"], ["stocks"], ["stocks"]],
        deck=["guitar"] * 10,
    )
    state = act(state, "draft", 0, card=card(state, 0, "coins"), piles=[0])
    state = act(state, "answer", 1, cards=[card(state, 1, "coins")])
    state = act(state, "concede", 0)
    view = engine.view_for(state, 0)
    assert view["to_act"] == [0]
    assert view["actions_done"] == 1
    assert hand_kinds(state, 1) == ["guitar"] * 5 + ["jewelry"]
    assert hand_kinds(state, 0) == ["stocks", "yacht"]
    state = act(state, "end_turn", 0)
    assert hand_kinds(state, 0) == ["guitar"] * 4 + ["stocks", "yacht"]


def test_losing_a_draft_contest_bars_nothing_R16() -> None:
    state = deal(
        [["coins", "yacht", "gold_bar"], ["coins", "gold_bar"]],
        draft=True,
        stacks=[[STOCKS], [STOCKS, GUITARS]],
        piles=[["yacht", "coins"], ["stocks"], ["stocks"]],
    )
    state = act(state, "draft", 0, card=card(state, 0, "coins"), piles=[0])
    state = act(state, "answer", 1, cards=[card(state, 1, "coins")])
    state = act(state, "concede", 0)
    assert engine.view_for(state, 0)["barred"] == []
    assert {a["target"] for a in legal_of(state, "challenge")} == {1}


def test_swap_turned_up_on_a_pile_trades_the_touching_players_top_sets_R13() -> None:
    piggies = ["piggy_bank", "piggy_bank"]
    state = deal(
        [["coins", "yacht"], ["jewelry"], ["piggy_bank"]],
        draft=True,
        stacks=[[GUITARS], [YACHTS, STOCKS], [piggies]],
        piles=[["yacht"], ["yacht", "swap", "coins"], ["stocks", "swap", "coins"]],
    )
    state = act(state, "draft", 0, card=card(state, 0, "coins"), piles=[2])
    state = act(state, "concede", 2)
    assert stack_kinds(state, 0) == [GUITARS, piggies]
    assert stack_kinds(state, 2) == [COINS]
    assert stack_kinds(state, 1) == [YACHTS, STOCKS]
    view = engine.view_for(state, None)
    assert view["out"][-1]["kind"] == "swap"
    assert view["piles"][2] == {
        "top": {"id": view["piles"][2]["top"]["id"], "kind": "stocks"},
        "size": 1,
    }
    assert view["to_act"] == [0]


def test_swap_turned_up_needs_a_top_set_on_both_sides_R13() -> None:
    state = deal(
        [["coins", "yacht"], ["jewelry"]],
        draft=True,
        stacks=[[GUITARS], []],
        piles=[["stocks", "swap", "coins"], ["yacht"], ["yacht"]],
    )
    state = act(state, "draft", 0, card=card(state, 0, "coins"), piles=[0])
    state = act(state, "concede", 1)
    assert stack_kinds(state, 0) == [GUITARS, COINS]
    assert stack_kinds(state, 1) == []
    assert tops(state) == ["stocks", "yacht", "yacht"]


def test_move_turned_up_lets_the_other_player_choose_for_a_big_stack_R13() -> None:
    state = deal(
        [["coins", "yacht"], ["jewelry"]],
        draft=True,
        stacks=[[YACHTS, STOCKS, GUITARS], [COINS, YACHTS]],
        piles=[["stocks", "move", "coins"], ["yacht"], ["yacht"]],
    )
    state = act(state, "draft", 0, card=card(state, 0, "coins"), piles=[0])
    state = act(state, "concede", 1)
    view = engine.view_for(state, None)
    assert view["to_act"] == [1]
    assert view["pending"]["chooser"] == 1
    assert view["pending"]["target"] == 0
    assert stack_kinds(state, 1) == [YACHTS, COINS]  # two sets simply trade places
    assert view["piles"][0]["top"] is None or view["piles"][0]["top"]["kind"] != "move"
    assert sorted(a["direction"] for a in engine.legal_actions(state)) == [
        "bottom_to_top",
        "top_to_bottom",
    ]
    assert refused(state, "discard", 0, card=card(state, 0, "yacht")) == "not_your_turn"
    state = act(state, "choose", 1, direction="top_to_bottom")
    assert stack_kinds(state, 0) == [COINS, YACHTS, STOCKS, GUITARS]
    view = engine.view_for(state, None)
    assert view["pending"] is None
    assert view["to_act"] == [0]
    assert tops(state) == ["stocks", "yacht", "yacht"]
    assert view["out"][-1]["kind"] == "move"


def test_move_turned_up_decides_the_active_players_stack_first_R13() -> None:
    state = deal(
        [["coins", "yacht"], ["jewelry"]],
        draft=True,
        stacks=[[YACHTS, STOCKS, GUITARS], [COINS, YACHTS, STOCKS]],
        piles=[["stocks", "move", "coins"], ["yacht"], ["yacht"]],
        dealer=1,
    )
    state = act(state, "draft", 0, card=card(state, 0, "coins"), piles=[0])
    state = act(state, "concede", 1)
    assert engine.view_for(state, None)["pending"]["target"] == 0
    state = act(state, "choose", 1, direction="bottom_to_top")
    assert stack_kinds(state, 0) == [STOCKS, GUITARS, COINS, YACHTS]
    pending = engine.view_for(state, None)["pending"]
    assert (pending["chooser"], pending["target"]) == (0, 1)
    state = act(state, "choose", 0, direction="top_to_bottom")
    assert stack_kinds(state, 1) == [STOCKS, COINS, YACHTS]
    assert engine.view_for(state, None)["to_act"] == [0]


def test_next_card_turns_up_only_once_the_move_is_done_R13() -> None:
    state = deal(
        [["coins", "yacht"], ["jewelry"]],
        draft=True,
        stacks=[[YACHTS, STOCKS, GUITARS], [COINS, YACHTS]],
        piles=[["stocks", "swap", "move", "coins"], ["yacht"], ["yacht"]],
    )
    state = act(state, "draft", 0, card=card(state, 0, "coins"), piles=[0])
    state = act(state, "concede", 1)
    assert engine.view_for(state, 1)["pending"] is not None
    for seat in (None, 0, 1):
        assert engine.view_for(state, seat)["piles"][0]["top"] is None
    state = act(state, "choose", 1, direction="top_to_bottom")
    # Moved to [coins, yacht, stocks, guitar]; then the Swap trades tops with [yacht, coins].
    assert stack_kinds(state, 0) == [COINS, YACHTS, STOCKS, COINS]
    assert stack_kinds(state, 1) == [YACHTS, GUITARS]
    assert tops(state) == ["stocks", "yacht", "yacht"]
    assert [c["kind"] for c in engine.view_for(state, None)["out"][-2:]] == ["move", "swap"]


def test_game_ends_with_cards_left_in_draft_piles_R9() -> None:
    state = deal(
        [["coins"], ["yacht"]],
        rules="simple",
        draft=True,
        piles=[["stocks"], ["stocks"], ["stocks"]],
    )
    state = act(state, "discard", 0, card=card(state, 0, "coins"))
    state = act(state, "discard", 1, card=card(state, 1, "yacht"))
    assert engine.is_over(state)
    assert [p["size"] for p in engine.view_for(state, None)["piles"]] == [1, 1, 1]
