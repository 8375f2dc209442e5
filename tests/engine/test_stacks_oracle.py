"""What each action does to the stacks, against an independent reading of docs/rules.md.

From the public view before an action, the oracle predicts every stack after it. Steps where a
new round is dealt or an action card turns up on a draft pile (R-13) are left to other tests.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from gameplay import CONFIGS, Action, config_id, pick
from hypothesis import given, settings
from hypothesis import strategies as st

import engine

Stacks = list[list[list[int]]]


def stacks_of(view: dict[str, Any]) -> Stacks:
    return [[sorted(c["id"] for c in s["cards"]) for s in p["stack"]] for p in view["players"]]


def moved(stack: list[list[int]], direction: str) -> list[list[int]]:
    if len(stack) < 2:
        raise AssertionError("a Move needs two sets (R-4)")
    if direction == "top_to_bottom":
        return [stack[-1], *stack[:-1]]
    return [*stack[1:], stack[0]]


def predict(view: dict[str, Any], action: Action) -> Stacks:
    stacks = stacks_of(view)
    seat, kind = action["seat"], action["type"]
    if kind == "form_set":
        stacks[seat].append(sorted(action["cards"]))
    elif kind == "form_set_discard":
        stacks[seat].append(sorted([view["discard"][-1]["id"], action["card"]]))
    elif kind == "improve":
        stacks[seat][-1] = sorted([*stacks[seat][-1], action["card"]])
    elif kind == "swap":
        target = action["target"]
        stacks[seat][-1], stacks[target][-1] = stacks[target][-1], stacks[seat][-1]
    elif kind == "move":
        stacks[action["target"]] = moved(stacks[action["target"]], action["direction"])
    elif kind == "choose":
        target = view["pending"]["target"]
        stacks[target] = moved(stacks[target], action["direction"])
    elif kind == "concede":
        settle(view["challenge"], stacks)
    return stacks


def settle(challenge: dict[str, Any], stacks: Stacks) -> None:
    """Whoever played last wins the set and every card played, as one set (§5, R-8, §8)."""
    plays = challenge["plays"]
    played = [c["id"] for play in plays for c in play["cards"]]
    winner = plays[-1]["seat"] if plays else challenge["defender"]
    if challenge["claim"] is not None:
        stacks[winner].append(sorted([c["id"] for c in challenge["claim"]] + played))
        return
    stack = stacks[challenge["target"]]
    index = len(stack) - 1 - challenge["depth"]
    if winner == challenge["challenger"]:
        stacks[winner].append(sorted(stack.pop(index) + played))
    else:
        stack[index] = sorted(stack[index] + played)


def action_card_turned_up(before: dict[str, Any], after: dict[str, Any]) -> bool:
    new_out = after["out"][len(before["out"]) :]
    return any(c["kind"] in ("swap", "move") for c in new_out) and before["draft"]


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
@settings(max_examples=4, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_each_action_changes_the_stacks_as_the_rules_say(config: dict[str, Any], seed: int) -> None:
    rng = random.Random(seed)
    state = engine.new_game({**config, "seed": seed})
    checked = 0
    while not engine.is_over(state):
        action = pick(rng, engine.legal_actions(state))
        before = engine.view_for(state, None)
        state = engine.apply_action(state, action)
        after = engine.view_for(state, None)
        if after["round"] != before["round"] or (
            action["type"] in ("concede", "choose") and action_card_turned_up(before, after)
        ):
            continue
        assert stacks_of(after) == predict(before, action), action
        checked += 1
    assert checked
