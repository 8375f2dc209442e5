"""The search path (``search_copy``, ``moves``, ``play``) plays exactly the public API's rules.

Over random games of all 21 configurations the same choices are made twice: through
``legal_actions`` / ``apply_action`` (a fresh state each step, log on) and through ``moves`` /
``play`` in place on one search copy. At every step the two legal lists agree, every move's JSON
action checks back to the same move, and the two states serialize alike apart from the log.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from gameplay import CONFIGS, SEEDS, config_id, pick, whole_games
from hypothesis import given

import engine
from engine.actions import check_action

SETTINGS = whole_games(3)


def without_log(state: engine.State) -> dict[str, Any]:
    data = json.loads(engine.dumps(state))
    del data["log"], data["log_enabled"]
    return data


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
@SETTINGS
@given(seed=SEEDS, policy=SEEDS)
def test_moves_and_play_follow_legal_actions_and_apply_action(
    config: dict[str, Any], seed: int, policy: int
) -> None:
    rng = random.Random(policy)
    public = engine.new_game({**config, "seed": seed})
    fast = engine.search_copy(public)
    for _ in range(3000):
        legal = engine.legal_actions(public)
        found = engine.moves(fast)
        assert [engine.action_of(move) for move in found] == legal
        for move in found:
            assert check_action(public, engine.action_of(move)) == move
        if engine.is_over(public):
            assert engine.is_over(fast)
            break
        action = pick(rng, legal)
        public = engine.apply_action(public, action)
        engine.play(fast, found[legal.index(action)])
        assert without_log(fast) == without_log(public)
    else:
        raise AssertionError("the game did not end within 3000 actions")
    assert engine.result(fast) == engine.result(public)


def test_a_search_copy_keeps_no_log_and_leaves_the_original_alone() -> None:
    state = engine.new_game({"players": 4, "seed": 11})
    before = engine.dumps(state)
    copy = engine.search_copy(state)
    for _ in range(20):
        engine.play(copy, engine.moves(copy)[0])
    assert engine.dumps(state) == before
    assert engine.view_for(copy, None)["log"] == engine.view_for(state, None)["log"]
