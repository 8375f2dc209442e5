"""Every action legal now (DESIGN.md: ``legal_actions``)."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from engine.cards import (
    IS_ACTION,
    IS_ASSET,
    IS_PENNY_JAR,
    IS_WILD,
    KIND_OF,
    PAIRS,
    WILDS,
    CardId,
    Kind,
    matches,
    set_kind,
)
from engine.state import Seat, State
from engine.turns import piles_of

Action = dict[str, Any]
DIRECTIONS = ("top_to_bottom", "bottom_to_top")


def legal_actions(state: State) -> list[Action]:
    if state.over:
        return []
    if state.pending is not None:
        seat = state.pending.chooser
        return [{"type": "choose", "seat": seat, "direction": d} for d in DIRECTIONS]
    if state.challenge is not None:
        return _answers(state)
    return _turn_actions(state)


def weighted_plays(hand: list[CardId], kind: Kind, need: int) -> list[list[CardId]]:
    """The plays that meet ``need`` with no card more than needed (R-7)."""
    matching = [card for card in hand if IS_WILD[card] or KIND_OF[card] is kind]
    if need == 1:
        return [[card] for card in matching]
    plays = [[card] for card in matching if IS_PENNY_JAR[card]]
    singles = [card for card in matching if not IS_PENNY_JAR[card]]
    plays.extend([a, b] for a, b in combinations(singles, 2))
    return plays


def _answers(state: State) -> list[Action]:
    challenge = state.challenge
    assert challenge is not None
    seat = challenge.to_answer
    actions: list[Action] = [
        {"type": "answer", "seat": seat, "cards": cards}
        for cards in weighted_plays(state.hands[seat], challenge.kind, challenge.need)
    ]
    actions.append({"type": "concede", "seat": seat})
    return actions


def exposed_depths(state: State, seat: Seat) -> range:
    """Depths of ``seat``'s stack a rival may challenge; the bottom set never (R-1)."""
    return range(min(state.rules.exposed_depth, len(state.stacks[seat]) - 1))


def _turn_actions(state: State) -> list[Action]:
    seat = state.active
    hand = state.hands[seat]
    rules = state.rules
    actions: list[Action] = []
    if state.actions_done > 0:
        actions.append({"type": "end_turn", "seat": seat})
    if not hand:
        return actions
    actions.extend(
        [
            {"type": "form_set", "seat": seat, "cards": [a, b]}
            for i, a in enumerate(hand)
            for b in hand[i + 1 :]
            if PAIRS[a][b]
        ]
    )
    if state.discard:
        pairs_with = PAIRS[state.discard[-1]]
        actions.extend(
            [{"type": "form_set_discard", "seat": seat, "card": c} for c in hand if pairs_with[c]]
        )
    actions.extend([{"type": "discard", "seat": seat, "card": card} for card in hand])
    own = state.stacks[seat]
    if rules.improve and own:
        kind = set_kind(own[-1])
        actions.extend(
            [
                {"type": "improve", "seat": seat, "card": card}
                for card in hand
                if IS_ASSET[card] and KIND_OF[card] is kind
            ]
        )
    if own:
        _challenges(state, seat, hand, actions)
    _action_cards(state, seat, hand, actions)
    if state.config.draft:
        _drafts(state, seat, hand, actions)
    return actions


def _challenges(state: State, seat: Seat, hand: list[CardId], actions: list[Action]) -> None:
    exposed_depth = state.rules.exposed_depth
    in_hand = {KIND_OF[card] for card in hand}
    has_wild = not in_hand.isdisjoint(WILDS)
    barred = state.barred
    for rival, stack in enumerate(state.stacks):
        if len(stack) < 2 or rival == seat or rival in barred:
            continue
        for depth in range(exposed_depth if len(stack) > exposed_depth else len(stack) - 1):
            kind = set_kind(stack[-1 - depth])
            if not has_wild and kind not in in_hand:
                continue
            for cards in weighted_plays(hand, kind, 2 if depth else 1):
                actions.append(
                    {
                        "type": "challenge",
                        "seat": seat,
                        "target": rival,
                        "depth": depth,
                        "cards": cards,
                    }
                )


def _action_cards(state: State, seat: Seat, hand: list[CardId], actions: list[Action]) -> None:
    if not state.rules.has_actions:
        return
    stacks = state.stacks
    for card in hand:
        if not IS_ACTION[card]:
            continue
        if KIND_OF[card] is Kind.SWAP:
            if stacks[seat]:
                for rival, stack in enumerate(stacks):
                    if rival != seat and stack:
                        actions.append(
                            {"type": "swap", "seat": seat, "card": card, "target": rival}
                        )
        else:
            for target, stack in enumerate(stacks):
                if len(stack) >= 2:
                    for direction in DIRECTIONS:
                        actions.append(
                            {
                                "type": "move",
                                "seat": seat,
                                "card": card,
                                "target": target,
                                "direction": direction,
                            }
                        )


def claim_kind(cards: list[CardId]) -> Kind | None:
    """The kind of a draft claim: an asset, every asset of one kind, at most one wild (R-10)."""
    kind: Kind | None = None
    wilds = 0
    for card in cards:
        if IS_ACTION[card]:
            return None
        if IS_WILD[card]:
            wilds += 1
        elif kind is None:
            kind = KIND_OF[card]
        elif KIND_OF[card] is not kind:
            return None
    return kind if wilds <= 1 else None


def draft_tops(state: State, seat: Seat) -> list[int]:
    """Piles this seat may draft from that show a top card now."""
    return [p for p in piles_of(state, seat) if state.piles[p] and not state.covered[p]]


def _drafts(state: State, seat: Seat, hand: list[CardId], actions: list[Action]) -> None:
    tops = draft_tops(state, seat)
    groups = (
        [list(g) for size in range(1, len(tops) + 1) for g in combinations(tops, size)]
        if state.config.players == 2
        else [[p] for p in tops]
    )
    for card in hand:
        if IS_ACTION[card]:
            continue
        for piles in groups:
            if claim_kind([card, *(state.piles[p][-1] for p in piles)]) is not None:
                actions.append({"type": "draft", "seat": seat, "card": card, "piles": piles})


__all__ = ["Action", "legal_actions", "matches", "weighted_plays"]
