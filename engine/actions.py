"""Making an action (``apply_action``, docs/design.md, "Engine contract"): check it precisely,
then play it on a copy.

Every action type has a check, which reads the JSON action, raises ``IllegalAction`` with the
first rule it breaks and returns the action as a move (engine.legal), and a play, which applies
a legal move to a state in place. ``apply_action`` is check, copy, play; a search plays the
moves of ``engine.legal.moves`` on a copy of its own without the checks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeGuard

from engine.cards import (
    INFO,
    IS_ACTION,
    IS_ASSET,
    IS_PENNY_JAR,
    KIND_OF,
    CardId,
    Kind,
    matches,
    pair_kind,
    set_kind,
)
from engine.errors import IllegalAction
from engine.legal import (
    ANSWER,
    CHALLENGE,
    CHOOSE,
    CONCEDE,
    DIRECTIONS,
    DISCARD,
    DRAFT,
    END_TURN,
    FORM_SET,
    FORM_SET_DISCARD,
    IMPROVE,
    MOVE,
    SWAP,
    Move,
    claim_kind,
    exposed_depths,
)
from engine.state import Challenge, Pending, Seat, State
from engine.turns import (
    after_action,
    draw_up,
    end_turn,
    log,
    move_stack,
    name,
    piles_of,
    reveal_piles,
    settle_challenge,
)

Check = Callable[[State, Seat, Mapping[str, Any]], Move]
Play = Callable[[State, Move], None]
ANSWERS = frozenset({ANSWER, CONCEDE})


def apply_action(state: State, action: Mapping[str, Any]) -> State:
    move = check_action(state, action)
    new = state.copy()
    PLAYS[move[0]](new, move)
    return new


def play(state: State, move: Move) -> None:
    """Apply a move of ``moves(state)`` to ``state`` in place, unchecked."""
    PLAYS[move[0]](state, move)


def check_action(state: State, action: Mapping[str, Any]) -> Move:
    """The action as a move, or ``IllegalAction`` for the first rule it breaks."""
    if not isinstance(action, Mapping):
        raise IllegalAction("bad_action", "An action is a JSON object with a type and a seat.")
    kind = action.get("type")
    check = CHECKS.get(kind) if isinstance(kind, str) else None
    if check is None:
        raise IllegalAction("unknown_action", f"There is no action called {kind!r}.")
    seat = action.get("seat")
    if not _is_int(seat) or not 0 <= seat < state.config.players:
        raise IllegalAction("bad_seat", "The action must name a seat of this game.")
    if state.over:
        raise IllegalAction("game_over", "The game is over.")
    if seat not in state.to_act():
        raise IllegalAction("not_your_turn", "It is not your turn to act.")
    if state.pending is not None and kind != CHOOSE:
        raise IllegalAction("choice_pending", "First choose which way the Move goes.")
    if state.challenge is not None and kind not in ANSWERS:
        raise IllegalAction("challenge_open", "A challenge is open: answer it or concede.")
    if state.challenge is None and kind in ANSWERS:
        raise IllegalAction("no_challenge", "There is no challenge to answer.")
    if state.pending is None and kind == CHOOSE:
        raise IllegalAction("no_choice", "There is no choice to make.")
    return check(state, seat, action)


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _card(state: State, seat: Seat, action: Mapping[str, Any], key: str = "card") -> CardId:
    card = action.get(key)
    if not _is_int(card):
        raise IllegalAction("bad_action", f"This action needs a card id in {key!r}.")
    if card not in state.hands[seat]:
        raise IllegalAction("card_not_in_hand", "That card is not in your hand.")
    return int(card)


def _cards(state: State, seat: Seat, action: Mapping[str, Any]) -> tuple[CardId, ...]:
    cards = action.get("cards")
    if not isinstance(cards, list) or not cards or not all(_is_int(c) for c in cards):
        raise IllegalAction("bad_action", "This action needs a list of card ids in 'cards'.")
    if len(set(cards)) != len(cards):
        raise IllegalAction("bad_action", "A card can be played only once.")
    hand = state.hands[seat]
    if any(card not in hand for card in cards):
        raise IllegalAction("card_not_in_hand", "That card is not in your hand.")
    return tuple(int(card) for card in cards)


def _target(state: State, action: Mapping[str, Any]) -> Seat:
    target = action.get("target")
    if not _is_int(target) or not 0 <= target < state.config.players:
        raise IllegalAction("bad_target", "The target must be a seat of this game.")
    return int(target)


def _direction(action: Mapping[str, Any]) -> str:
    direction = action.get("direction")
    if direction not in DIRECTIONS:
        raise IllegalAction("bad_direction", 'direction is "top_to_bottom" or "bottom_to_top".')
    return str(direction)


def _kind_name(kind: Kind) -> str:
    return INFO[kind].name


def _cards_text(cards: list[CardId] | tuple[CardId, ...]) -> str:
    return " and ".join(_kind_name(KIND_OF[card]) for card in cards)


# --- form a set -------------------------------------------------------------------------------


def _check_form_set(state: State, seat: Seat, action: Mapping[str, Any]) -> Move:
    cards = _cards(state, seat, action)
    if len(cards) != 2:
        raise IllegalAction("bad_set", "A set is formed from exactly two cards.")
    if pair_kind(*cards) is None:
        problem = _pair_problem(cards)
        raise IllegalAction(problem, _PAIR_MESSAGES[problem])
    return (FORM_SET, seat, *cards)


def _play_form_set(state: State, move: Move) -> None:
    _, seat, a, b = move
    hand = state.hands[seat]
    hand.remove(a)
    hand.remove(b)
    state.stacks[seat].append([a, b])
    if state.log_enabled:
        text = f"{name(state, seat)} forms a set: {_cards_text([a, b])}."
        log(state, FORM_SET, seat, text, cards=[a, b])
    after_action(state)


def _pair_problem(cards: tuple[CardId, ...]) -> str:
    if any(IS_ACTION[card] for card in cards):
        return "action_card_in_set"
    if not any(IS_ASSET[card] for card in cards):
        return "two_wilds"
    return "not_a_set"


_PAIR_MESSAGES = {
    "action_card_in_set": "Action cards are never part of a set.",
    "two_wilds": "Two wild cards never make a set: a set needs at least one asset.",
    "not_a_set": "A set is two of the same asset, or one asset and one wild.",
}


def _check_form_set_discard(state: State, seat: Seat, action: Mapping[str, Any]) -> Move:
    card = _card(state, seat, action)
    if not state.discard:
        raise IllegalAction("discard_empty", "The discard pile is empty.")
    top = state.discard[-1]
    if pair_kind(top, card) is None:
        problem = _pair_problem((top, card))
        raise IllegalAction(
            problem, _PAIR_MESSAGES[problem].replace("A set is", "With the top discard, a set is")
        )
    return (FORM_SET_DISCARD, seat, card)


def _play_form_set_discard(state: State, move: Move) -> None:
    _, seat, card = move
    state.hands[seat].remove(card)
    top = state.discard.pop()
    state.stacks[seat].append([top, card])
    if state.log_enabled:
        text = (
            f"{name(state, seat)} completes a set with the top discard: {_cards_text([top, card])}."
        )
        log(state, FORM_SET_DISCARD, seat, text, cards=[top, card])
    after_action(state)


# --- discard and improve ----------------------------------------------------------------------


def _check_discard(state: State, seat: Seat, action: Mapping[str, Any]) -> Move:
    return (DISCARD, seat, _card(state, seat, action))


def _play_discard(state: State, move: Move) -> None:
    _, seat, card = move
    state.hands[seat].remove(card)
    if IS_ACTION[card]:
        state.out.append(card)
    else:
        state.discard.append(card)
    if state.log_enabled:
        what = _kind_name(KIND_OF[card])
        text = (
            f"{name(state, seat)} discards a {what}; it leaves the game."
            if IS_ACTION[card]
            else f"{name(state, seat)} discards a {what}."
        )
        log(state, DISCARD, seat, text, card=card)
    if state.actions_done == 0 and state.config.rule_set.actions_per_turn > 1:
        draw_up(state, seat)
    after_action(state)


def _check_improve(state: State, seat: Seat, action: Mapping[str, Any]) -> Move:
    if not state.rules.improve:
        raise IllegalAction("not_in_rules", "Improve a Set is an Advanced rule.")
    card = _card(state, seat, action)
    stack = state.stacks[seat]
    if not stack:
        raise IllegalAction("no_set", "You need a set of your own to improve.")
    if not IS_ASSET[card]:
        raise IllegalAction("improve_needs_asset", "Only an asset improves a set, never a wild.")
    kind = set_kind(stack[-1])
    if KIND_OF[card] is not kind:
        raise IllegalAction(
            "improve_wrong_kind",
            f"Your top set is {_kind_name(kind)}: improve it with the same asset.",
        )
    return (IMPROVE, seat, card)


def _play_improve(state: State, move: Move) -> None:
    _, seat, card = move
    state.hands[seat].remove(card)
    stack = state.stacks[seat]
    stack[-1] = [*stack[-1], card]  # sets are never changed in place: states share them
    if state.log_enabled:
        what = _kind_name(KIND_OF[card])
        log(state, IMPROVE, seat, f"{name(state, seat)} improves their {what} set.", card=card)
    after_action(state)


# --- challenges -------------------------------------------------------------------------------


def check_weight(
    cards: tuple[CardId, ...], kind: Kind, need: int, *, opening_depth: int | None = None
) -> None:
    """A play meets its weight with no card more than needed (docs/rules.md §5, R-7)."""
    if not all(matches(card, kind) for card in cards):
        raise IllegalAction(
            "card_does_not_match", f"Only {_kind_name(kind)} or wild cards match this set."
        )
    if need == 1:
        if len(cards) != 1:
            raise IllegalAction("too_many_cards", "One card is needed here: play exactly one.")
        return
    jars = sum(1 for card in cards if IS_PENNY_JAR[card])
    if (len(cards) == 1 and jars == 1) or (len(cards) == 2 and jars == 0):
        return
    if len(cards) == 1:
        if opening_depth == 1:
            raise IllegalAction(
                "needs_two_cards",
                "A second-from-top challenge needs two matching cards or a Penny Jar.",
            )
        raise IllegalAction(
            "needs_two_cards",
            "A Penny Jar was played: answer with two matching cards or a Penny Jar.",
        )
    raise IllegalAction(
        "too_many_cards", "Play a Penny Jar alone or two other matching cards, no more."
    )


def _check_challenge(state: State, seat: Seat, action: Mapping[str, Any]) -> Move:
    target = _target(state, action)
    depth = action.get("depth", 0)
    if depth not in (0, 1) or not _is_int(depth):
        raise IllegalAction("bad_depth", "depth is 0 for a top set or 1 for second-from-top.")
    cards = _cards(state, seat, action)
    if target == seat:
        raise IllegalAction("challenge_self", "You cannot challenge your own set.")
    if not state.stacks[seat]:
        raise IllegalAction(
            "no_set_of_your_own", "You need a set of your own before you can challenge."
        )
    if target in state.barred:
        raise IllegalAction(
            "lost_challenge_this_turn",
            "You lost a challenge against that player this turn: challenge them again next turn.",
        )
    stack = state.stacks[target]
    if depth >= state.rules.exposed_depth:
        raise IllegalAction(
            "set_not_exposed", "Only a rival's top set can be challenged in these rules."
        )
    if depth not in exposed_depths(state, target):
        if not stack:
            raise IllegalAction("no_set_to_challenge", "That player has no sets.")
        raise IllegalAction("set_protected", "The bottom set of a stack is always protected.")
    check_weight(cards, set_kind(stack[-1 - depth]), 2 if depth else 1, opening_depth=depth)
    return (CHALLENGE, seat, cards, target, int(depth))


def _play_challenge(state: State, move: Move) -> None:
    _, seat, cards, target, depth = move
    hand = state.hands[seat]
    for card in cards:
        hand.remove(card)
    kind = set_kind(state.stacks[target][-1 - depth])
    state.challenge = Challenge(
        challenger=seat,
        defender=target,
        kind=kind,
        target=target,
        depth=depth,
        plays=[(seat, list(cards))],
        to_answer=target,
        need=1 if depth else _need_after(cards),
    )
    if state.log_enabled:
        where = "top" if depth == 0 else "second-from-top"
        log(
            state,
            CHALLENGE,
            seat,
            f"{name(state, seat)} challenges {name(state, target)}'s {where} "
            f"{_kind_name(kind)} set with {_cards_text(cards)}.",
            target=target,
            depth=depth,
            cards=list(cards),
        )


def _need_after(cards: tuple[CardId, ...]) -> int:
    return 2 if any(IS_PENNY_JAR[card] for card in cards) else 1


def _check_answer(state: State, seat: Seat, action: Mapping[str, Any]) -> Move:
    challenge = state.challenge
    assert challenge is not None
    cards = _cards(state, seat, action)
    check_weight(cards, challenge.kind, challenge.need)
    return (ANSWER, seat, cards)


def _play_answer(state: State, move: Move) -> None:
    _, seat, cards = move
    challenge = state.challenge
    assert challenge is not None
    hand = state.hands[seat]
    for card in cards:
        hand.remove(card)
    challenge.plays.append((seat, list(cards)))
    challenge.need = _need_after(cards)
    challenge.to_answer = (
        challenge.defender if seat == challenge.challenger else challenge.challenger
    )
    if state.log_enabled:
        verb = (
            "contests the claim"
            if challenge.claim is not None and len(challenge.plays) == 1
            else "answers"
        )
        text = f"{name(state, seat)} {verb} with {_cards_text(cards)}."
        log(state, ANSWER, seat, text, cards=list(cards))


def _check_concede(state: State, seat: Seat, action: Mapping[str, Any]) -> Move:
    return (CONCEDE, seat)


def _play_concede(state: State, move: Move) -> None:
    seat = move[1]
    if state.log_enabled:
        log(state, CONCEDE, seat, f"{name(state, seat)} concedes.")
    settle_challenge(state)


# --- action cards -----------------------------------------------------------------------------


def _check_swap(state: State, seat: Seat, action: Mapping[str, Any]) -> Move:
    card = _card(state, seat, action)
    if KIND_OF[card] is not Kind.SWAP:
        raise IllegalAction("not_a_swap", "That card is not a Swap.")
    target = _target(state, action)
    if target == seat:
        raise IllegalAction("swap_self", "Swap trades your top set with a rival's: pick a rival.")
    if not state.stacks[seat]:
        raise IllegalAction("no_set_of_your_own", "Swap needs a set of your own.")
    if not state.stacks[target]:
        raise IllegalAction("no_set_to_swap", "That player has no set to swap.")
    return (SWAP, seat, card, target)


def _play_swap(state: State, move: Move) -> None:
    _, seat, card, target = move
    state.hands[seat].remove(card)
    state.out.append(card)
    stacks = state.stacks
    stacks[seat][-1], stacks[target][-1] = stacks[target][-1], stacks[seat][-1]
    if state.log_enabled:
        log(
            state,
            SWAP,
            seat,
            f"{name(state, seat)} plays a Swap: their top set trades places with "
            f"{name(state, target)}'s.",
            card=card,
            target=target,
        )
    after_action(state)


def _check_move(state: State, seat: Seat, action: Mapping[str, Any]) -> Move:
    card = _card(state, seat, action)
    if KIND_OF[card] is not Kind.MOVE:
        raise IllegalAction("not_a_move", "That card is not a Move.")
    target = _target(state, action)
    direction = _direction(action)
    if len(state.stacks[target]) < 2:
        raise IllegalAction("move_needs_two_sets", "Move needs a stack of at least two sets (R-4).")
    return (MOVE, seat, card, target, direction)


def _play_move(state: State, move: Move) -> None:
    _, seat, card, target, direction = move
    state.hands[seat].remove(card)
    state.out.append(card)
    move_stack(state.stacks[target], direction)
    if state.log_enabled:
        how = (
            "its top set to the bottom"
            if direction == "top_to_bottom"
            else "its bottom set to the top"
        )
        whose = "their own" if target == seat else f"{name(state, target)}'s"
        log(
            state,
            MOVE,
            seat,
            f"{name(state, seat)} plays a Move on {whose} stack: {how}.",
            card=card,
            target=target,
            direction=direction,
        )
    after_action(state)


# --- the turn's end, drafts and choices --------------------------------------------------------


def _check_end_turn(state: State, seat: Seat, action: Mapping[str, Any]) -> Move:
    if state.actions_done == 0:
        raise IllegalAction("take_an_action_first", "Take an action before you end your turn.")
    return (END_TURN, seat)


def _play_end_turn(state: State, move: Move) -> None:
    seat = move[1]
    if state.log_enabled:
        log(state, END_TURN, seat, f"{name(state, seat)} ends the turn.")
    end_turn(state)


def _check_draft(state: State, seat: Seat, action: Mapping[str, Any]) -> Move:
    if not state.config.draft:
        raise IllegalAction("no_draft_piles", "This game has no draft piles.")
    card = _card(state, seat, action)
    piles = action.get("piles")
    if (
        not isinstance(piles, list)
        or not piles
        or not all(_is_int(p) and 0 <= p < 3 for p in piles)
        or len(set(piles)) != len(piles)
    ):
        raise IllegalAction("bad_action", "A draft names one or more piles, numbered 0 to 2.")
    if state.config.players == 3 and len(piles) > 1:
        raise IllegalAction(
            "one_pile_at_a_time", "With three players you draft from one pile at a time."
        )
    reachable = piles_of(state, seat)
    if any(p not in reachable for p in piles):
        raise IllegalAction("pile_not_touching", "That pile doesn't touch your seat.")
    if any(not state.piles[p] or state.covered[p] for p in piles):
        raise IllegalAction("pile_empty", "That pile shows no card to draft.")
    if claim_kind([card, *[state.piles[p][-1] for p in piles]]) is None:
        raise IllegalAction(
            "draft_not_a_set",
            "No set: a claim needs an asset, all assets of one kind, and at most one wild.",
        )
    return (DRAFT, seat, card, tuple(int(p) for p in piles))


def _play_draft(state: State, move: Move) -> None:
    _, seat, card, piles = move
    tops = [state.piles[p][-1] for p in piles]
    kind = claim_kind([card, *tops])
    assert kind is not None
    state.hands[seat].remove(card)
    for p in piles:
        state.piles[p].pop()
        state.covered[p] = True
    contester = _contester(state, seat, piles[0])
    state.challenge = Challenge(
        challenger=contester,
        defender=seat,
        kind=kind,
        target=None,
        depth=0,
        to_answer=contester,
        need=1,
        claim=[card, *tops],
        piles=sorted(piles),
    )
    if state.log_enabled:
        log(
            state,
            DRAFT,
            seat,
            f"{name(state, seat)} drafts {_cards_text([card, *tops])}; "
            f"{name(state, contester)} may contest the claim.",
            cards=[card, *tops],
            piles=sorted(piles),
            contester=contester,
        )


def _contester(state: State, seat: Seat, pile: int) -> Seat:
    if state.config.players == 2:
        return 1 - seat
    a, b = pile, (pile + 1) % 3
    return b if seat == a else a


def _check_choose(state: State, seat: Seat, action: Mapping[str, Any]) -> Move:
    return (CHOOSE, seat, _direction(action))


def _play_choose(state: State, move: Move) -> None:
    _, seat, direction = move
    pending = state.pending
    assert pending is not None
    move_stack(state.stacks[pending.target], direction)
    if state.log_enabled:
        how = "top set to the bottom" if direction == "top_to_bottom" else "bottom set to the top"
        log(
            state,
            CHOOSE,
            seat,
            f"{name(state, seat)} moves {name(state, pending.target)}'s {how}.",
            target=pending.target,
            direction=direction,
        )
    if pending.queue:
        chooser, target = pending.queue[0]
        state.pending = Pending(chooser, target, pending.queue[1:], pending.piles)
        return
    state.pending = None
    if not reveal_piles(state, pending.piles):
        after_action(state)


CHECKS: dict[str, Check] = {
    FORM_SET: _check_form_set,
    FORM_SET_DISCARD: _check_form_set_discard,
    DISCARD: _check_discard,
    IMPROVE: _check_improve,
    CHALLENGE: _check_challenge,
    ANSWER: _check_answer,
    CONCEDE: _check_concede,
    SWAP: _check_swap,
    MOVE: _check_move,
    END_TURN: _check_end_turn,
    DRAFT: _check_draft,
    CHOOSE: _check_choose,
}
PLAYS: dict[str, Play] = {
    FORM_SET: _play_form_set,
    FORM_SET_DISCARD: _play_form_set_discard,
    DISCARD: _play_discard,
    IMPROVE: _play_improve,
    CHALLENGE: _play_challenge,
    ANSWER: _play_answer,
    CONCEDE: _play_concede,
    SWAP: _play_swap,
    MOVE: _play_move,
    END_TURN: _play_end_turn,
    DRAFT: _play_draft,
    CHOOSE: _play_choose,
}
