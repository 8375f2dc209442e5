"""Fairness (issue 4): an AI decides from its view alone, never from hidden cards."""

from __future__ import annotations

import ast
import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import engine
import engine.ai
from engine.cards import IDS_OF, Kind

Positions = Callable[[dict[str, Any], int, int], Iterator[engine.State]]
Redeal = Callable[[engine.State, int, random.Random], engine.State]

CONFIGS: list[dict[str, Any]] = [
    {"players": 2, "rules": "advanced"},
    {"players": 4, "rules": "simple_actions"},
    {"players": 3, "rules": "advanced", "draft": True},
]
LEVELS = {"easy": {}, "medium": {}, "hard": {"iterations": 5}}


def config_id(config: dict[str, Any]) -> str:
    return "-".join(f"{key}={value}" for key, value in config.items())


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_a_decision_is_unchanged_when_the_hidden_cards_are_redealt(
    config: dict[str, Any], positions: Positions, redeal: Redeal
) -> None:
    rng = random.Random(5)
    for index, state in enumerate(positions(config, 6, 31)):
        seat = state.to_act()[0]
        other = redeal(state, seat, rng)
        for level, options in LEVELS.items():
            ai = engine.ai.player(level, **options)
            first = ai.decide(engine.view_for(state, seat), random.Random(index))
            second = ai.decide(engine.view_for(other, seat), random.Random(index))
            assert first == second, level


def shown_ids(value: Any) -> set[int]:
    """Every card id anywhere in a view: card objects, and card fields of log entries."""
    found: set[int] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("id", "card") and isinstance(item, int):
                found.add(item)
            elif key == "cards" and isinstance(item, list):
                found.update(card for card in item if isinstance(card, int))
            found |= shown_ids(item)
    elif isinstance(value, list):
        for item in value:
            found |= shown_ids(item)
    return found


def poisoned(state: engine.State, seat: int) -> tuple[engine.State, set[int]]:
    """``state`` with the Gold Bars it hides from ``seat`` moved into a rival's hand and the deck.

    The markers trade places with other hidden cards, so every zone keeps its size.
    """
    new = state.copy()
    rival = (seat + 1) % new.config.players
    zones = [new.hands[rival], new.deck]
    hidden = [card for zone in zones for card in zone]
    markers = {card for card in IDS_OF[Kind.GOLD_BAR] if card in hidden}
    order = sorted(hidden, key=lambda card: (card not in markers, card))
    for zone in zones:
        size = len(zone)
        zone[:] = order[:size]
        del order[:size]
    return new, markers


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_marker_cards_in_hidden_zones_never_reach_what_an_ai_reads(
    config: dict[str, Any], positions: Positions
) -> None:
    for index, state in enumerate(positions(config, 8, 41)):
        seat = state.to_act()[0]
        marked, markers = poisoned(state, seat)
        view = engine.view_for(marked, seat)
        assert not shown_ids(view) & markers
        assert view == {**engine.view_for(state, seat), "log": view["log"]}
        sample = engine.determinize(view, random.Random(index))
        clean = engine.determinize(engine.view_for(state, seat), random.Random(index))
        assert (sample.hands, sample.deck, sample.piles) == (clean.hands, clean.deck, clean.piles)


def test_marker_cards_land_in_a_rival_hand_no_more_often_than_chance() -> None:
    state = engine.new_game({"players": 2, "seed": 17})
    marked, markers = poisoned(state, 0)
    assert markers and all(card in marked.hands[1] for card in markers)
    view = engine.view_for(marked, 0)
    sampler = engine.Sampler(view)
    rng = random.Random(3)
    draws = 800
    hits = sum(card in sampler.sample(rng).hands[1] for _ in range(draws) for card in markers) / (
        draws * len(markers)
    )
    chance = len(marked.hands[1]) / len(sampler.unseen)
    assert abs(hits - chance) < 0.035


ALLOWED = {"engine", "engine.cards"}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_the_ai_package_imports_only_the_public_engine() -> None:
    package = Path(engine.ai.__file__).parent
    for path in sorted(package.glob("*.py")):
        for name in imports_of(path):
            top = name.split(".")[0]
            if top != "engine":
                assert top in sys.stdlib_module_names, (path.name, name)
            else:
                assert name in ALLOWED or name.startswith("engine.ai"), (path.name, name)
