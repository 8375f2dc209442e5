"""Why a player cannot do something now, in their words (``blocked_actions``, docs/design.md,
"Blocked actions")."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from engine.cards import INFO, IS_ACTION, IS_ASSET, KIND_OF, PAIRS, CardId, Kind, set_kind
from engine.legal import can_meet, claim_kind, exposed_depths
from engine.state import Seat, State
from engine.turns import name, piles_of

Blocked = dict[str, Any]
TURN_KINDS = ("form_set", "form_set_discard", "discard", "improve", "challenge", "swap", "move")


def _entry(kind: str, code: str, reason: str, **where: Any) -> Blocked:
    return {"type": kind, "code": code, "reason": reason, **where}


def blocked_actions(state: State, seat: Seat) -> list[Blocked]:
    if state.over:
        return [_entry("any", "game_over", "The game is over.")]
    if seat not in state.to_act():
        return _waiting_blocks(state)
    if state.pending is not None:
        return []
    if state.challenge is not None:
        return _answer_blocks(state, seat)
    return _turn_blocks(state, seat)


def blocked_for(state: State) -> dict[Seat, list[Blocked]]:
    """``blocked_actions`` of every seat at once. The seats waiting for others share one
    list (their reasons do not depend on who asks): read it, never change it."""
    to_act = state.to_act()
    if state.over or len(to_act) == state.config.players:
        return {seat: blocked_actions(state, seat) for seat in range(state.config.players)}
    waiting = _waiting_blocks(state)
    return {
        seat: blocked_actions(state, seat) if seat in to_act else waiting
        for seat in range(state.config.players)
    }


def _waiting_blocks(state: State) -> list[Blocked]:
    """What a seat that is not to act cannot do: everything, whoever it is."""
    waiting = ", ".join(name(state, s) for s in state.to_act())
    reason = f"It is not your turn: waiting for {waiting}."
    return [_entry(kind, "not_your_turn", reason) for kind in _kinds(state)]


def _kinds(state: State) -> tuple[str, ...]:
    if state.pending is not None:
        return ("choose",)
    if state.challenge is not None:
        return ("answer", "concede")
    kinds = TURN_KINDS + (("draft",) if state.config.draft else ())
    return kinds + (("end_turn",) if state.rules.actions_per_turn > 1 else ())


def _kind_name(kind: Kind | str) -> str:
    return INFO[Kind(kind)].name


def _answer_blocks(state: State, seat: Seat) -> list[Blocked]:
    challenge = state.challenge
    assert challenge is not None
    if can_meet(state.hands[seat], challenge.kind, challenge.need):
        return []
    what = _kind_name(challenge.kind)
    if challenge.need == 2:
        reason = (
            f"A Penny Jar was played: answering needs two {what} or wild cards, or a Penny Jar."
        )
        code = "needs_two_cards"
    else:
        reason = f"You have no {what} or wild card to answer with: you can only concede."
        code = "no_matching_card"
    return [_entry("answer", code, reason)]


def _turn_blocks(state: State, seat: Seat) -> list[Blocked]:
    hand = state.hands[seat]
    rules = state.rules
    blocks: list[Blocked] = []
    if not hand:
        reason = "Your hand is empty: you can only end your turn."
        return [_entry(kind, "hand_empty", reason) for kind in _kinds(state) if kind != "end_turn"]
    if not any(PAIRS[a][b] for a, b in combinations(hand, 2)):
        blocks.append(
            _entry(
                "form_set",
                "no_pair",
                "No two cards in your hand make a set: you need two of one asset, "
                "or an asset and a wild.",
            )
        )
    if not state.discard:
        blocks.append(_entry("form_set_discard", "discard_empty", "The discard pile is empty."))
    elif not any(PAIRS[state.discard[-1]][card] for card in hand):
        top = _kind_name(KIND_OF[state.discard[-1]])
        blocks.append(
            _entry(
                "form_set_discard",
                "no_match",
                f"No card in your hand makes a set with the {top} on the discard pile.",
            )
        )
    own = state.stacks[seat]
    if not rules.improve:
        blocks.append(_entry("improve", "not_in_rules", "Improve a Set is an Advanced rule."))
    elif not own:
        blocks.append(_entry("improve", "no_set", "You need a set of your own to improve."))
    else:
        kind = set_kind(own[-1])
        if not any(IS_ASSET[c] and KIND_OF[c] is kind for c in hand):
            blocks.append(
                _entry(
                    "improve",
                    "no_matching_asset",
                    f"Improving your top set needs a {_kind_name(kind)} (wilds can't improve).",
                )
            )
    blocks.extend(_challenge_blocks(state, seat, hand))
    blocks.extend(_action_card_blocks(state, seat, hand))
    if state.config.draft:
        blocks.extend(_draft_blocks(state, seat, hand))
    if rules.actions_per_turn > 1 and state.actions_done == 0:
        blocks.append(
            _entry("end_turn", "take_an_action_first", "Take an action before you end your turn.")
        )
    return blocks


def _challenge_blocks(state: State, seat: Seat, hand: list[CardId]) -> list[Blocked]:
    if not state.stacks[seat]:
        return [
            _entry(
                "challenge",
                "no_set_of_your_own",
                "You need a set of your own before you can challenge.",
            )
        ]
    blocks = []
    for rival, stack in enumerate(state.stacks):
        if rival == seat:
            continue
        exposed = exposed_depths(state, rival)
        for depth in range(state.rules.exposed_depth):
            where = {"target": rival, "depth": depth}
            label = "top" if depth == 0 else "second-from-top"
            if len(stack) <= depth:
                reason = f"{name(state, rival)} has no {label} set."
                blocks.append(_entry("challenge", "no_set_to_challenge", reason, **where))
            elif depth not in exposed:
                reason = "The bottom set of a stack is always protected."
                blocks.append(_entry("challenge", "set_protected", reason, **where))
            elif rival in state.barred:
                reason = (
                    f"You lost a challenge against {name(state, rival)} this turn: "
                    "try again next turn."
                )
                blocks.append(_entry("challenge", "lost_challenge_this_turn", reason, **where))
            else:
                kind = set_kind(stack[-1 - depth])
                if can_meet(hand, kind, 2 if depth else 1):
                    continue
                if depth == 0:
                    reason = f"You have no {_kind_name(kind)} or wild card to challenge that set."
                    blocks.append(_entry("challenge", "no_matching_card", reason, **where))
                else:
                    reason = "A second-from-top challenge needs two matching cards or a Penny Jar."
                    blocks.append(_entry("challenge", "needs_two_cards", reason, **where))
    return blocks


def _action_card_blocks(state: State, seat: Seat, hand: list[CardId]) -> list[Blocked]:
    if not state.rules.has_actions:
        reason = "Swap and Move are not in the Simple rules."
        return [_entry("swap", "not_in_rules", reason), _entry("move", "not_in_rules", reason)]
    blocks = []
    has = {KIND_OF[c] for c in hand if IS_ACTION[c]}
    if Kind.SWAP not in has:
        blocks.append(_entry("swap", "no_swap_card", "You have no Swap card."))
    elif not state.stacks[seat]:
        blocks.append(_entry("swap", "no_set_of_your_own", "Swap needs a set of your own."))
    else:
        for rival, stack in enumerate(state.stacks):
            if rival != seat and not stack:
                reason = f"{name(state, rival)} has no set to swap."
                blocks.append(_entry("swap", "no_set_to_swap", reason, target=rival))
    if Kind.MOVE not in has:
        blocks.append(_entry("move", "no_move_card", "You have no Move card."))
    else:
        for target, stack in enumerate(state.stacks):
            if len(stack) < 2:
                reason = (
                    f"Move needs a stack of at least two sets; "
                    f"{name(state, target)} has {len(stack)}."
                )
                blocks.append(_entry("move", "move_needs_two_sets", reason, target=target))
    return blocks


def _draft_blocks(state: State, seat: Seat, hand: list[CardId]) -> list[Blocked]:
    blocks = []
    reachable = piles_of(state, seat)
    for pile in range(3):
        where = {"piles": [pile]}
        if pile not in reachable:
            blocks.append(
                _entry("draft", "pile_not_touching", "That pile doesn't touch your seat.", **where)
            )
        elif not state.piles[pile] or state.covered[pile]:
            blocks.append(
                _entry("draft", "pile_empty", "That pile shows no card to draft.", **where)
            )
        elif not any(claim_kind([c, state.piles[pile][-1]]) for c in hand):
            top = _kind_name(KIND_OF[state.piles[pile][-1]])
            reason = f"No card in your hand makes a set with the {top} on that pile."
            blocks.append(_entry("draft", "no_match", reason, **where))
    if state.config.players == 3:
        blocks.append(
            _entry(
                "draft",
                "one_pile_at_a_time",
                "With three players you draft from one pile at a time.",
            )
        )
    return blocks
