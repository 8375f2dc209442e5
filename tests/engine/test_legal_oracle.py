"""``legal_actions`` against an independent reading of docs/rules.md, from the acting seat's view.

The oracle below knows only what the seat to act sees, so agreeing with it also shows that the
legal actions depend on nothing hidden from that seat.
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import pytest
from gameplay import CONFIGS, Action, canonical, config_id, pick
from hypothesis import given, settings
from hypothesis import strategies as st

import engine

ASSETS = {
    "piggy_bank",
    "coins",
    "guitar",
    "jewelry",
    "stocks",
    "sports_car",
    "racehorse",
    "fine_art",
    "yacht",
    "mansion",
}
WILDS = {"silver_bar", "gold_bar", "penny_jar"}
DIRECTIONS = ("top_to_bottom", "bottom_to_top")
Card = dict[str, Any]


def is_set(kinds: list[str]) -> bool:
    """Two cards: two of one asset, or an asset and a wild (§4)."""
    a, b = kinds
    return (a in ASSETS and (a == b or b in WILDS)) or (a in WILDS and b in ASSETS)


def is_claim(kinds: list[str]) -> bool:
    """A draft claim: an asset, every asset of one kind, at most one wild (R-10)."""
    assets = {k for k in kinds if k in ASSETS}
    wilds = [k for k in kinds if k in WILDS]
    playable = all(k in ASSETS or k in WILDS for k in kinds)
    return playable and len(assets) == 1 and len(wilds) <= 1


def plays(hand: list[Card], kind: str, need: int) -> list[list[int]]:
    """Plays of weight ``need`` that use no card more than needed (§5, R-7)."""
    matching = [c for c in hand if c["kind"] == kind or c["kind"] in WILDS]
    if need == 1:
        return [[c["id"]] for c in matching]
    jars = [[c["id"]] for c in matching if c["kind"] == "penny_jar"]
    others = [c["id"] for c in matching if c["kind"] != "penny_jar"]
    return jars + [list(pair) for pair in combinations(others, 2)]


def oracle(view: dict[str, Any]) -> list[Action]:
    if view["over"]:
        return []
    seat = view["to_act"][0]
    if view["pending"]:
        return [{"type": "choose", "seat": seat, "direction": d} for d in DIRECTIONS]
    hand: list[Card] = view["hand"]
    if view["challenge"]:
        challenge = view["challenge"]
        answers: list[Action] = [
            {"type": "answer", "seat": seat, "cards": cards}
            for cards in plays(hand, challenge["kind"], challenge["need"])
        ]
        return [*answers, {"type": "concede", "seat": seat}]
    advanced = view["rules"] == "advanced"
    actions: list[Action] = []
    if view["actions_done"]:
        actions.append({"type": "end_turn", "seat": seat})
    if not hand:
        return actions
    stacks = [p["stack"] for p in view["players"]]
    own = stacks[seat]
    for a, b in combinations(hand, 2):
        if is_set([a["kind"], b["kind"]]):
            actions.append({"type": "form_set", "seat": seat, "cards": [a["id"], b["id"]]})
    for c in hand:
        if view["discard"] and is_set([view["discard"][-1]["kind"], c["kind"]]):
            actions.append({"type": "form_set_discard", "seat": seat, "card": c["id"]})
        actions.append({"type": "discard", "seat": seat, "card": c["id"]})
        if advanced and own and c["kind"] == own[-1]["kind"]:
            actions.append({"type": "improve", "seat": seat, "card": c["id"]})
        if c["kind"] == "swap" and own:
            for rival, stack in enumerate(stacks):
                if rival != seat and stack:
                    actions.append({"type": "swap", "seat": seat, "card": c["id"], "target": rival})
        if c["kind"] == "move":
            for target, stack in enumerate(stacks):
                if len(stack) >= 2:
                    actions += [
                        {
                            "type": "move",
                            "seat": seat,
                            "card": c["id"],
                            "target": target,
                            "direction": d,
                        }
                        for d in DIRECTIONS
                    ]
    for rival, stack in enumerate(stacks):
        if not own or rival == seat or rival in view["barred"]:
            continue
        for depth in range(min(2 if advanced else 1, len(stack) - 1)):  # never the bottom
            for cards in plays(hand, stack[-1 - depth]["kind"], 1 + depth):
                actions.append(
                    {
                        "type": "challenge",
                        "seat": seat,
                        "target": rival,
                        "depth": depth,
                        "cards": cards,
                    }
                )
    if view["draft"]:
        actions += drafts(view, seat, hand)
    return actions


def drafts(view: dict[str, Any], seat: int, hand: list[Card]) -> list[Action]:
    three = view["players_count"] == 3
    reachable = [seat, (seat - 1) % 3] if three else [0, 1, 2]
    shown = [p for p in sorted(reachable) if view["piles"][p]["top"]]
    groups = (
        [[p] for p in shown]
        if three
        else [list(g) for n in (1, 2, 3) for g in combinations(shown, n)]
    )
    actions = []
    for c in hand:
        for piles in groups:
            tops = [view["piles"][p]["top"]["kind"] for p in piles]
            if is_claim([c["kind"], *tops]):
                actions.append({"type": "draft", "seat": seat, "card": c["id"], "piles": piles})
    return actions


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
@settings(max_examples=4, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_legal_actions_follow_the_rules(config: dict[str, Any], seed: int) -> None:
    rng = random.Random(seed)
    state = engine.new_game({**config, "seed": seed})
    while True:
        legal = engine.legal_actions(state)
        acting = engine.to_act(state)
        view = engine.view_for(state, acting[0] if acting else None)
        assert sorted(map(canonical, legal)) == sorted(map(canonical, oracle(view)))
        if engine.is_over(state):
            return
        state = engine.apply_action(state, pick(rng, legal))
