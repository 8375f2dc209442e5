"""Helpers the engine tests share: custom deals, finding cards by kind, playing random games."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

import engine

RULES = ("simple", "simple_actions", "advanced")
CONFIGS: list[dict[str, Any]] = [
    {"players": players, "rules": rules, "draft": False}
    for players in range(2, 7)
    for rules in RULES
] + [{"players": players, "rules": rules, "draft": True} for players in (2, 3) for rules in RULES]
"""All 21 configurations: 2-6 players in each rule set, plus 2- and 3-player draft."""

Action = dict[str, Any]

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
"""Game and policy seeds for hypothesis."""


def whole_games(examples: int) -> settings:
    """Hypothesis settings for tests that play whole games: few, repeatable examples."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow],
    )


def config_id(config: dict[str, Any]) -> str:
    draft = "-draft" if config["draft"] else ""
    return f"{config['players']}p-{config['rules']}{draft}"


def deal(
    hands: list[list[str]],
    *,
    rules: str = "advanced",
    stacks: list[list[list[str]]] | None = None,
    discard: Sequence[str] | None = (),
    deck: list[str] | None = None,
    piles: list[list[str]] | None = None,
    dealer: int | None = None,
    draft: bool = False,
    rounds: int | str = 1,
    seed: int = 1,
) -> engine.State:
    """A custom deal where exactly the given cards are in play and the rest are out of the game.

    Seat 0 moves first unless ``dealer`` says otherwise; ``discard=None`` turns the discard up
    from the deck as a normal deal does (R-2).
    """
    players = len(hands)
    setup: dict[str, Any] = {
        "hands": hands,
        "dealer": players - 1 if dealer is None else dealer,
        "deck": deck or [],
        "rest": "out",
    }
    if discard is not None:
        setup["discard"] = list(discard)
    if stacks is not None:
        setup["stacks"] = stacks
    if piles is not None:
        setup["piles"] = piles
    config = {
        "players": players,
        "rules": rules,
        "draft": draft,
        "seed": seed,
        "rounds": rounds,
        "setup": setup,
    }
    return engine.new_game(config)


def hand(state: engine.State, seat: int) -> list[dict[str, Any]]:
    return list(engine.view_for(state, seat)["hand"])


def card(state: engine.State, seat: int, kind: str, nth: int = 0) -> int:
    """The id of the ``nth`` card of ``kind`` in ``seat``'s hand."""
    ids = [c["id"] for c in hand(state, seat) if c["kind"] == kind]
    return int(ids[nth])


def hand_kinds(state: engine.State, seat: int) -> list[str]:
    return sorted(c["kind"] for c in hand(state, seat))


def stack_kinds(state: engine.State, seat: int) -> list[list[str]]:
    """A seat's stack, bottom to top, as sorted kinds per set."""
    player = engine.view_for(state, None)["players"][seat]
    return [sorted(c["kind"] for c in cards["cards"]) for cards in player["stack"]]


def act(state: engine.State, kind: str, seat: int, **fields: Any) -> engine.State:
    return engine.apply_action(state, {"type": kind, "seat": seat, **fields})


def legal_of(state: engine.State, kind: str) -> list[Action]:
    return [a for a in engine.legal_actions(state) if a["type"] == kind]


FIELDS = {
    "form_set": ("cards",),
    "form_set_discard": ("card",),
    "discard": ("card",),
    "improve": ("card",),
    "challenge": ("target", "depth", "cards"),
    "answer": ("cards",),
    "concede": (),
    "swap": ("card", "target"),
    "move": ("card", "target", "direction"),
    "draft": ("card", "piles"),
    "choose": ("direction",),
    "end_turn": (),
}
"""The fields each action type reads (docs/design.md, "Actions"); other keys are ignored."""


def canonical(action: Any) -> str:
    """One spelling per action: only its own fields; card and pile lists are sets; a challenge's
    depth defaults to 0."""
    if not isinstance(action, dict):
        return repr(action)
    fields = FIELDS.get(action.get("type"), tuple(action))  # type: ignore[arg-type]
    normal = {k: v for k, v in action.items() if k in ("type", "seat", *fields)}
    for key in ("cards", "piles"):
        value = normal.get(key)
        if isinstance(value, list) and all(type(v) is int for v in value):
            normal[key] = sorted(value)
    if normal.get("type") == "challenge":
        normal.setdefault("depth", 0)
    try:
        return json.dumps(normal, sort_keys=True)
    except TypeError:
        return repr(sorted(normal.items(), key=lambda item: str(item[0])))


def pick(rng: random.Random, legal: list[Action]) -> Action:
    """A random policy that prefers doing something to discarding, conceding or passing."""
    busy = [a for a in legal if a["type"] not in ("discard", "concede", "end_turn")]
    if busy and rng.random() < 0.75:
        return rng.choice(busy)
    return rng.choice(legal)


def play(state: engine.State, rng: random.Random, limit: int = 5000) -> Iterator[engine.State]:
    """Every state of a random game from ``state`` to its end."""
    yield state
    for _ in range(limit):
        if engine.is_over(state):
            return
        state = engine.apply_action(state, pick(rng, engine.legal_actions(state)))
        yield state
    raise AssertionError(f"the game did not end within {limit} actions")


def finish(state: engine.State, rng: random.Random, limit: int = 5000) -> engine.State:
    """The last state of a random game from ``state``."""
    last = state
    for last in play(state, rng, limit):  # noqa: B007
        pass
    return last


def every_card(state: engine.State) -> list[dict[str, Any]]:
    """Every card in the game, wherever it is (the open view shows hidden zones too)."""
    view = engine.open_view(state)
    cards = [c for zone in ("discard", "out", "deck") for c in view[zone]]
    cards += [c for hand in view["hands"] for c in hand]
    cards += [c for pile in view["piles_full"] for c in pile]
    cards += [c for p in view["players"] for s in p["stack"] for c in s["cards"]]
    challenge = view["challenge"]
    if challenge is not None:
        cards += [c for play in challenge["plays"] for c in play["cards"]]
        cards += challenge["claim"] or []
    return cards


def census(state: engine.State) -> list[int]:
    """The id of every card in the game."""
    return [c["id"] for c in every_card(state)]


def pool_size(config: dict[str, Any]) -> int:
    """Cards in play: 110, or 104 without Swap, Move and Penny Jar; 11 fewer in 2-player draft."""
    size = 104 if config["rules"] == "simple" else 110
    if config["draft"] and config["players"] == 2:
        size -= 11
    return size
