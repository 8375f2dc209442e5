"""Every reason is true of the position it is told about (issue 43): its claims (the set, the
cards in your hand, the cards you had not seen that could answer) are read back from the
sentence and held to the deciding seat's view at that step (``claims.violations``)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from gameplay import card, deal

import engine
from engine.ai.reasons import reason
from engine.ai.review import review_game
from tests.engine.ai.claims import violations
from tests.engine.conftest import random_positions

CONFIGS: list[dict[str, Any]] = [
    {"players": 2, "rules": "advanced"},
    {"players": 3, "rules": "simple"},
    {"players": 4, "rules": "simple_actions"},
    {"players": 6, "rules": "advanced"},
    {"players": 3, "rules": "advanced", "draft": True},
    {"players": 2, "rules": "simple_actions", "draft": True},
]


def config_id(config: dict[str, Any]) -> str:
    return "-".join(f"{key}={value}" for key, value in config.items())


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_every_reason_is_true_of_the_seats_view(config: dict[str, Any]) -> None:
    """Positions from many seeded games, pairs of legal moves as played and best: each reason
    says only what the deciding seat's view bears out."""
    rng = random.Random(1)
    told = 0
    for state in random_positions(config, 150, 7):
        seat = state.to_act()[0]
        mine = [action for action in engine.legal_actions(state) if action["seat"] == seat]
        if len(mine) < 2:
            continue
        view = engine.view_for(state, seat)
        for _ in range(4):
            played, best = rng.sample(mine, 2)
            said = reason(view, played, best)
            assert violations(view, played, best, said) == [], (said, played, best)
            told += 1
    assert told > 100


def test_every_reason_in_reviewed_games_is_true_of_the_seats_view() -> None:
    """Whole games reviewed (few search rounds, so many decisions come out worse than the best
    and get a reason): each reason checked against the view its seat had at that step."""
    checked = 0
    for seed, config in enumerate(CONFIGS[:3]):
        game = {**config, "seed": 100 + seed}
        actions = _random_game(game, random.Random(seed))
        review = review_game(game, actions, rounds=2, seed=seed)
        state = engine.new_game(game)
        for action, decision in zip(actions, review["decisions"], strict=True):
            if decision["reason"] is not None:
                view = engine.view_for(state, decision["seat"])
                found = violations(view, decision["played"], decision["best"], decision["reason"])
                assert found == [], (decision["step"], decision["reason"])
                checked += 1
            state = engine.apply_action(state, action)
    assert checked > 10


def _random_game(config: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    state = engine.new_game(config)
    actions: list[dict[str, Any]] = []
    while not engine.is_over(state):
        action = rng.choice(engine.legal_actions(state))
        actions.append(action)
        state = engine.apply_action(state, action)
    return actions


def test_a_challenge_on_an_empty_hand_claims_no_answer_from_unseen_cards() -> None:
    """Bea has played out her hand: nothing she could hold answers a challenge on her Piggy
    Banks, however many Piggy Banks Ann has not seen (the deck holds two). Ann challenges with
    her last card; the reason must not say that unseen cards could answer."""
    state = deal(
        [["piggy_bank", "coins"], []],
        stacks=[[["guitar", "guitar"]], [["coins", "coins"], ["piggy_bank", "piggy_bank"]]],
        deck=["piggy_bank", "gold_bar", "yacht"],
        rules="simple",
    )
    challenge = {
        "type": "challenge",
        "seat": 0,
        "target": 1,
        "depth": 0,
        "cards": [card(state, 0, "piggy_bank")],
    }
    discard = {"type": "discard", "seat": 0, "card": card(state, 0, "coins")}
    view = engine.view_for(state, 0)
    for played, best in ((challenge, discard), (discard, challenge)):
        said = reason(view, played, best)
        assert "you had not seen could answer" not in said, said
        assert violations(view, played, best, said) == []
