"""engine.ai players: every level picks a legal action in every kind of decision (issue 4)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import engine
import engine.ai
from engine.cards import KIND_OF

Positions = Callable[[dict[str, Any], int, int], Iterator[engine.State]]

CONFIGS: list[dict[str, Any]] = [
    {"players": 2, "rules": "advanced"},
    {"players": 4, "rules": "advanced"},
    {"players": 5, "rules": "simple_actions"},
    {"players": 3, "rules": "simple"},
    {"players": 2, "rules": "advanced", "draft": True},
    {"players": 3, "rules": "simple_actions", "draft": True},
    {"players": 2, "rules": "advanced", "rounds": 2},
]
LEVELS = {
    "easy": {},
    "medium": {},
    "hard": {"iterations": 6},
}


def config_id(config: dict[str, Any]) -> str:
    return "-".join(f"{key}={value}" for key, value in config.items())


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_every_level_picks_a_legal_action(config: dict[str, Any], positions: Positions) -> None:
    kinds_seen: set[str] = set()
    for index, state in enumerate(positions(config, 12, 21)):
        seat = state.to_act()[0]
        legal = engine.legal_actions(state)
        for level, options in LEVELS.items():
            action = engine.ai.player(level, **options).decide(
                engine.view_for(state, seat), random.Random(index)
            )
            assert action in legal, (level, action)
            kinds_seen.add(action["type"])
    assert kinds_seen


def decisions(config: dict[str, Any], seed: int) -> Iterator[engine.State]:
    """Every position of a game Medium plays against itself."""
    medium = engine.ai.player("medium")
    rng = random.Random(seed)
    state = engine.new_game({**config, "seed": seed})
    while not engine.is_over(state):
        yield state
        seat = state.to_act()[0]
        state = engine.apply_action(state, medium.decide(engine.view_for(state, seat), rng))


def test_hard_answers_challenges_contests_and_pending_choices() -> None:
    hard = engine.ai.player("hard", iterations=3)
    answered: set[str] = set()
    for config in ({"players": 2, "draft": True}, {"players": 3, "draft": True}):
        for seed in range(2):
            for state in decisions(config, seed):
                if (state.challenge is None and state.pending is None) or len(answered) == 3:
                    continue
                seat = state.to_act()[0]
                action = hard.decide(engine.view_for(state, seat), random.Random(seed))
                assert action in engine.legal_actions(state)
                if state.pending is not None:
                    answered.add("pending")
                elif state.challenge is not None and state.challenge.claim is not None:
                    answered.add("contest")
                else:
                    answered.add("challenge")
    assert {"contest", "challenge"} <= answered


def test_hard_decides_turns_with_a_second_action_and_ends_them() -> None:
    hard = engine.ai.player("hard", iterations=3)
    taken: set[str] = set()
    for index, state in enumerate(decisions({"players": 2}, 7)):
        if index % 3 or state.challenge is not None:
            continue
        action = hard.decide(engine.view_for(state, state.to_act()[0]), random.Random(index))
        assert action in engine.legal_actions(state)
        taken.add(action["type"])
    assert {"form_set", "end_turn"} <= taken


def test_hard_chooses_a_moves_direction_for_a_rival() -> None:
    state = engine.new_game(
        {
            "players": 2,
            "draft": True,
            "seed": 3,
            "setup": {
                "dealer": 1,
                "hands": [["coins", "guitar"], ["yacht", "stocks"]],
                "stacks": [
                    [["jewelry", "jewelry"], ["fine_art", "fine_art"], ["racehorse", "racehorse"]],
                    [["sports_car", "sports_car"]],
                ],
                "piles": [["guitar", "move", "coins"], ["piggy_bank"], ["piggy_bank"]],
                "rest": "out",
            },
        }
    )
    coins = next(card for card in state.hands[0] if KIND_OF[card] == "coins")
    state = engine.apply_action(state, {"type": "draft", "seat": 0, "card": coins, "piles": [0]})
    state = engine.apply_action(state, {"type": "concede", "seat": 1})
    assert state.pending is not None and state.pending.chooser == 1
    action = engine.ai.player("hard", iterations=10).decide(
        engine.view_for(state, 1), random.Random(1)
    )
    assert action in engine.legal_actions(state)


def test_hard_is_deterministic_for_a_seed_and_an_iteration_budget() -> None:
    state = next(s for i, s in enumerate(decisions({"players": 4}, 5)) if i == 30)
    view = engine.view_for(state, state.to_act()[0])
    first = engine.ai.player("hard", iterations=40).decide(view, random.Random(8))
    again = engine.ai.player("hard", iterations=40).decide(view, random.Random(8))
    assert first == again


def test_an_unknown_level_is_refused() -> None:
    with pytest.raises(ValueError, match="no AI level"):
        engine.ai.player("grandmaster")


def test_a_seat_with_nothing_to_decide_is_refused() -> None:
    state = engine.new_game({"players": 3, "seed": 2})
    idle = next(seat for seat in range(3) if seat not in state.to_act())
    with pytest.raises(ValueError, match="nothing to decide"):
        engine.ai.player("medium").decide(engine.view_for(state, idle), random.Random(1))
