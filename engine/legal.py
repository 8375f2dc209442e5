"""Every action legal now (``legal_actions``, docs/design.md, "Engine contract"), as compact
moves and as JSON actions.

``moves`` lists what is legal as tuples: the action type, the seat, then the action's fields in a
fixed order (the comments on the type names below). They are cheap to build and ``play``
(engine.actions) applies one in place, which is what a search needs. ``legal_actions`` is the
same list in the JSON form of docs/design.md, "Actions", in the same order: one generator
serves both.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from typing import Any

from engine.cards import (
    ACTIONS,
    IS_ACTION,
    IS_ASSET,
    IS_PENNY_JAR,
    IS_WILD,
    KIND_OF,
    MATCHES,
    PAIRS,
    SINGLES,
    WILDS,
    CardId,
    Kind,
    matches,
    set_kind,
)
from engine.state import Seat, State
from engine.turns import piles_of

Action = dict[str, Any]
Move = tuple[Any, ...]
"""A legal action as a tuple: ``(type, seat, *fields)``."""

FORM_SET = "form_set"  # (FORM_SET, seat, card, card)
FORM_SET_DISCARD = "form_set_discard"  # (FORM_SET_DISCARD, seat, card)
DISCARD = "discard"  # (DISCARD, seat, card)
IMPROVE = "improve"  # (IMPROVE, seat, card)
CHALLENGE = "challenge"  # (CHALLENGE, seat, cards, target, depth)
ANSWER = "answer"  # (ANSWER, seat, cards)
CONCEDE = "concede"  # (CONCEDE, seat)
SWAP = "swap"  # (SWAP, seat, card, target)
MOVE = "move"  # (MOVE, seat, card, target, direction)
END_TURN = "end_turn"  # (END_TURN, seat)
DRAFT = "draft"  # (DRAFT, seat, card, piles)
CHOOSE = "choose"  # (CHOOSE, seat, direction)

DIRECTIONS = ("top_to_bottom", "bottom_to_top")


def legal_actions(state: State) -> list[Action]:
    return [_JSON[move[0]](move) for move in moves(state)]


def action_of(move: Move) -> Action:
    """The JSON form of a move (docs/design.md, "Actions")."""
    return _JSON[move[0]](move)


def moves(state: State) -> list[Move]:
    """Every legal action now, as moves, in the order of ``legal_actions``."""
    if state.over:
        return []
    pending = state.pending
    if pending is not None:
        seat = pending.chooser
        return [(CHOOSE, seat, direction) for direction in DIRECTIONS]
    challenge = state.challenge
    if challenge is not None:
        seat = challenge.to_answer
        answers: list[Move] = [
            (ANSWER, seat, cards)
            for cards in weighted_plays(state.hands[seat], challenge.kind, challenge.need)
        ]
        answers.append((CONCEDE, seat))
        return answers
    return _turn_moves(state)


def weighted_plays(hand: list[CardId], kind: Kind, need: int) -> list[tuple[CardId, ...]]:
    """The plays that meet ``need`` with no card more than needed (R-7)."""
    match = MATCHES[kind]
    matching = [card for card in hand if match[card]]
    if need == 1:
        return [SINGLES[card] for card in matching]
    plays: list[tuple[CardId, ...]] = [SINGLES[card] for card in matching if IS_PENNY_JAR[card]]
    plays.extend(combinations([card for card in matching if not IS_PENNY_JAR[card]], 2))
    return plays


def can_meet(hand: list[CardId], kind: Kind, need: int) -> bool:
    """Whether ``weighted_plays(hand, kind, need)`` holds any play, without listing them:
    a matching card for one; a matching Penny Jar, or two other matching cards, for two."""
    match = MATCHES[kind]
    if need == 1:
        return any(match[card] for card in hand)
    others = 0
    for card in hand:
        if match[card]:
            if IS_PENNY_JAR[card]:
                return True
            others += 1
    return others >= 2


def exposed_depths(state: State, seat: Seat) -> range:
    """Depths of ``seat``'s stack a rival may challenge; the bottom set never (R-1)."""
    return range(min(state.rules.exposed_depth, len(state.stacks[seat]) - 1))


def _turn_moves(state: State) -> list[Move]:
    seat = state.active
    hand = state.hands[seat]
    found: list[Move] = [(END_TURN, seat)] if state.actions_done else []
    if not hand:
        return found
    rules = state.config.rule_set
    append = found.append
    kinds = {KIND_OF[card] for card in hand}
    has_wild = not kinds.isdisjoint(WILDS)
    if has_wild or len(kinds) < len(hand):
        found += [(FORM_SET, seat, a, b) for a, b in combinations(hand, 2) if PAIRS[a][b]]
    discard = state.discard
    if discard:
        pairs_with = PAIRS[discard[-1]]
        for card in hand:
            if pairs_with[card]:
                append((FORM_SET_DISCARD, seat, card))
    for card in hand:
        append((DISCARD, seat, card))
    own = state.stacks[seat]
    if own:
        kind = set_kind(own[-1])
        if rules.improve and kind in kinds:
            for card in hand:
                if KIND_OF[card] is kind:
                    append((IMPROVE, seat, card))
        _challenges(state, seat, hand, kinds, has_wild, found)
    if rules.has_actions and not kinds.isdisjoint(ACTIONS):
        _action_cards(state, seat, hand, found)
    if state.config.draft:
        _drafts(state, seat, hand, found)
    return found


def _challenges(
    state: State,
    seat: Seat,
    hand: list[CardId],
    kinds: set[Kind],
    has_wild: bool,
    found: list[Move],
) -> None:
    # The plays of ``weighted_plays`` (need 1 on top, 2 below), inlined as plain loops: these
    # lists are short, and this runs at every step of every playout.
    deep = state.config.rule_set.exposed_depth > 1
    barred = state.barred
    append = found.append
    rival = -1
    for stack in state.stacks:
        rival += 1
        if rival == seat or len(stack) < 2 or rival in barred:
            continue
        prize = stack[-1]
        first = prize[0]
        kind = KIND_OF[first] if IS_ASSET[first] else set_kind(prize)
        if has_wild or kind in kinds:
            match = MATCHES[kind]
            for card in hand:
                if match[card]:
                    append((CHALLENGE, seat, SINGLES[card], rival, 0))
        if not deep or len(stack) < 3:
            continue
        prize = stack[-2]  # second from top: two matching cards or a Penny Jar (docs/rules.md §5)
        first = prize[0]
        kind = KIND_OF[first] if IS_ASSET[first] else set_kind(prize)
        if not has_wild and kind not in kinds:
            continue
        match = MATCHES[kind]
        singles = []
        for card in hand:
            if match[card]:
                if IS_PENNY_JAR[card]:
                    append((CHALLENGE, seat, SINGLES[card], rival, 1))
                else:
                    singles.append(card)
        if len(singles) > 1:
            for cards in combinations(singles, 2):
                append((CHALLENGE, seat, cards, rival, 1))


def _action_cards(state: State, seat: Seat, hand: list[CardId], found: list[Move]) -> None:
    stacks = state.stacks
    for card in hand:
        if not IS_ACTION[card]:
            continue
        if KIND_OF[card] is Kind.SWAP:
            if stacks[seat]:
                found += [
                    (SWAP, seat, card, rival)
                    for rival, stack in enumerate(stacks)
                    if rival != seat and stack
                ]
        else:
            found += [
                (MOVE, seat, card, target, direction)
                for target, stack in enumerate(stacks)
                if len(stack) >= 2
                for direction in DIRECTIONS
            ]


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


def _drafts(state: State, seat: Seat, hand: list[CardId], found: list[Move]) -> None:
    tops = draft_tops(state, seat)
    groups = (
        [g for size in range(1, len(tops) + 1) for g in combinations(tops, size)]
        if state.config.players == 2
        else [(p,) for p in tops]
    )
    for card in hand:
        if IS_ACTION[card]:
            continue
        for piles in groups:
            if claim_kind([card, *[state.piles[p][-1] for p in piles]]) is not None:
                found.append((DRAFT, seat, card, piles))


_JSON: dict[str, Callable[[Move], Action]] = {
    FORM_SET: lambda m: {"type": FORM_SET, "seat": m[1], "cards": [m[2], m[3]]},
    FORM_SET_DISCARD: lambda m: {"type": FORM_SET_DISCARD, "seat": m[1], "card": m[2]},
    DISCARD: lambda m: {"type": DISCARD, "seat": m[1], "card": m[2]},
    IMPROVE: lambda m: {"type": IMPROVE, "seat": m[1], "card": m[2]},
    CHALLENGE: lambda m: {
        "type": CHALLENGE,
        "seat": m[1],
        "target": m[3],
        "depth": m[4],
        "cards": list(m[2]),
    },
    ANSWER: lambda m: {"type": ANSWER, "seat": m[1], "cards": list(m[2])},
    CONCEDE: lambda m: {"type": CONCEDE, "seat": m[1]},
    SWAP: lambda m: {"type": SWAP, "seat": m[1], "card": m[2], "target": m[3]},
    MOVE: lambda m: {
        "type": MOVE,
        "seat": m[1],
        "card": m[2],
        "target": m[3],
        "direction": m[4],
    },
    END_TURN: lambda m: {"type": END_TURN, "seat": m[1]},
    DRAFT: lambda m: {"type": DRAFT, "seat": m[1], "card": m[2], "piles": list(m[3])},
    CHOOSE: lambda m: {"type": CHOOSE, "seat": m[1], "direction": m[2]},
}
"""Each move type's JSON form, keys in the order the contract shows them."""


__all__ = ["Action", "Move", "action_of", "legal_actions", "matches", "moves", "weighted_plays"]
