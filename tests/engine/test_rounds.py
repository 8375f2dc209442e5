"""The win conditions over several rounds (docs/rules.md §6, config ``rounds``), ties included."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from gameplay import Action, deal, finish

import engine

COINS = ["coins", "coins"]
MILLION = 1_000_000


def passive(legal: list[Action]) -> Action:
    """Never form a set: concede, end the turn, or discard; every round then scores zero."""
    for kind in ("concede", "end_turn", "discard"):
        for action in legal:
            if action["type"] == kind:
                return action
    raise AssertionError(f"no passive action in {legal}")


def finish_round(state: engine.State) -> engine.State:
    """Play passively until the round (or the game) is over."""
    played = len(engine.result(state)["rounds"])
    while not engine.is_over(state) and len(engine.result(state)["rounds"]) == played:
        state = engine.apply_action(state, passive(engine.legal_actions(state)))
    return state


def tied_first_round(rounds: int | str, history: list[list[int]] | None = None) -> engine.State:
    """Round 1 about to end with seats 0 and 1 on $14,000 each and seat 2 on nothing."""
    state = deal(
        [["coins"], ["coins"], ["coins"]],
        rules="simple",
        stacks=[[COINS], [COINS], []],
        rounds=rounds,
    )
    if history is not None:
        data = json.loads(engine.dumps(state))
        data["history"] = history  # a match restored from the store after earlier rounds
        state = engine.loads(json.dumps(data))
    return state


def test_one_round_is_the_default() -> None:
    state = finish_round(tied_first_round(1))
    assert engine.is_over(state)
    assert engine.result(state) == {
        "rounds": [[14_000, 14_000, 0]],
        "totals": [14_000, 14_000, 0],
        "round_wins": [1, 1, 0],
        "winners": [0, 1],
    }


def test_fixed_count_plays_that_many_rounds_and_highest_total_wins_ties_shared() -> None:
    state = tied_first_round(3)
    dealers = [engine.view_for(state, None)["dealer"]]
    hands = []
    for round_number in range(3):
        state = finish_round(state)
        view = engine.view_for(state, None)
        assert len(view["rounds"]["rounds"]) == round_number + 1
        assert engine.is_over(state) == (round_number == 2)
        if not engine.is_over(state):
            assert view["round"] == round_number + 1
            dealers.append(view["dealer"])
            hands.append(engine.open_view(state)["hands"])
    assert dealers == [2, 0, 1]
    assert hands[0] != hands[1]
    result = engine.result(state)
    assert result["rounds"] == [[14_000, 14_000, 0], [0, 0, 0], [0, 0, 0]]
    assert result["totals"] == [14_000, 14_000, 0]
    assert result["winners"] == [0, 1]
    assert engine.view_for(state, 2)["rounds"]["winners"] == [0, 1]
    assert engine.view_for(state, 2)["rounds"]["condition"] == 3


def test_each_round_is_a_fresh_seeded_shuffle_with_a_full_deck() -> None:
    config: dict[str, Any] = {"players": 2, "rules": "simple", "seed": 9, "rounds": 2}
    state = engine.new_game(config)
    state = finish_round(state)
    view = engine.open_view(state)
    assert view["round"] == 1
    assert all(p["stack"] == [] for p in view["players"])
    assert [p["hand_size"] for p in view["players"]] == [5, 5]
    on_table = len(view["deck"]) + len(view["discard"]) + len(view["out"]) + 10
    assert on_table == 104
    again = finish_round(engine.new_game(config))
    assert engine.dumps(again) == engine.dumps(state)


def test_million_plays_until_a_total_reaches_one_million() -> None:
    state = engine.new_game({"players": 2, "rules": "simple", "seed": 3, "rounds": "million"})
    state = finish(state, random.Random(3), limit=20_000)
    result = engine.result(state)
    totals = [0, 0]
    for number, scores in enumerate(result["rounds"]):
        totals = [t + s for t, s in zip(totals, scores, strict=True)]
        assert (max(totals) >= MILLION) == (number == len(result["rounds"]) - 1)
    assert len(result["rounds"]) > 1
    assert result["totals"] == totals
    assert result["winners"] == [s for s, t in enumerate(totals) if t == max(totals)]


def test_million_is_reached_at_exactly_one_million_and_ties_share() -> None:
    state = finish_round(tied_first_round("million", [[986_000, 986_000, 999_000]]))
    assert engine.is_over(state)
    result = engine.result(state)
    assert result["totals"] == [MILLION, MILLION, 999_000]
    assert result["winners"] == [0, 1]


def test_million_goes_on_while_every_total_is_short() -> None:
    state = finish_round(tied_first_round("million", [[985_000, 0, 0]]))
    assert not engine.is_over(state)
    assert engine.result(state)["totals"] == [999_000, 14_000, 0]
    assert engine.view_for(state, None)["round"] == 1  # the second round, counted from 0


def test_two_round_wins_ends_when_someone_has_the_highest_stash_twice() -> None:
    config = {"players": 3, "rules": "simple", "seed": 5, "rounds": "two_round_wins"}
    state = finish(engine.new_game(config), random.Random(5), limit=20_000)
    result = engine.result(state)
    wins = [0, 0, 0]
    for number, scores in enumerate(result["rounds"]):
        for seat, score in enumerate(scores):
            wins[seat] += score == max(scores)
        assert (max(wins) >= 2) == (number == len(result["rounds"]) - 1)
    assert result["round_wins"] == wins
    assert result["winners"] == [s for s, w in enumerate(wins) if w == max(wins)]


def test_two_round_wins_counts_a_shared_round_for_everyone_tied() -> None:
    state = finish_round(tied_first_round("two_round_wins"))
    assert not engine.is_over(state)
    assert engine.result(state)["round_wins"] == [1, 1, 0]
    state = finish_round(state)  # nobody forms a set: all three share round 2
    assert engine.is_over(state)
    result = engine.result(state)
    assert result["round_wins"] == [2, 2, 1]
    assert result["winners"] == [0, 1]
    assert engine.view_for(state, None)["log"][-1]["event"] == "game_over"


@pytest.mark.parametrize("rounds", [0, 21, "forever", True, 2.5])
def test_bad_rounds_are_refused(rounds: object) -> None:
    with pytest.raises(engine.InvalidConfig) as refused:
        engine.new_game({"players": 2, "rounds": rounds, "seed": 1})
    assert refused.value.code == "bad_rounds"
