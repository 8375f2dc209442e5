"""What one seat may see (docs/rules.md §9): the only door out of the engine."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.cards import IS_ASSET, KIND_NAME, VALUE_OF, card_json, cards_json
from engine.legal import exposed_depths
from engine.state import Seat, State
from engine.turns import standings


def _players(state: State) -> list[dict[str, Any]]:
    """Each seat's public entry: hand size, stack (bottom→top) and stash. A set's kind is
    that of its first asset (``set_kind``); its cards, value and kind come from one pass over
    it, written out: a view holds every set on the table, built at every move."""
    names = state.config.names
    players = []
    for player, stack in enumerate(state.stacks):
        first_exposed = len(stack) - len(exposed_depths(state, player))
        sets = []
        stash = 0
        for index, cards in enumerate(stack):
            value = 0
            kind = None
            shown = []
            for card in cards:
                value += VALUE_OF[card]
                if kind is None and IS_ASSET[card]:
                    kind = KIND_NAME[card]
                shown.append({"id": card, "kind": KIND_NAME[card]})
            if kind is None:
                raise ValueError("a set without an asset")
            stash += value
            sets.append(
                {"kind": kind, "cards": shown, "value": value, "exposed": index >= first_exposed}
            )
        entry: dict[str, Any] = {
            "seat": player,
            "hand_size": len(state.hands[player]),
            "stack": sets,
            "stash": stash,
        }
        if names:
            entry["name"] = names[player]
        players.append(entry)
    return players


def _check_seat(state: State, seat: Seat | None) -> None:
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < state.config.players):
        raise ValueError(f"no seat {seat!r} in this game")


def view_for(state: State, seat: Seat | None) -> dict[str, Any]:
    """Every public zone, plus the viewer's own hand; ``None`` views as a spectator."""
    _check_seat(state, seat)
    config = state.config
    players = _players(state)
    challenge = state.challenge
    return {
        "seat": seat,
        "rules": config.rules,
        "draft": config.draft,
        "players_count": config.players,
        "hand_size_limit": config.hand_size,
        "round": state.round,
        "dealer": state.dealer,
        "active": state.active,
        "actions_done": state.actions_done,
        "actions_per_turn": state.rules.actions_per_turn,
        "hand": [] if seat is None else cards_json(state.hands[seat]),
        "deck_size": len(state.deck),
        "discard": cards_json(state.discard),
        "out": cards_json(state.out),
        "piles": [
            {
                "top": None if state.covered[p] or not pile else card_json(pile[-1]),
                "size": len(pile),
            }
            for p, pile in enumerate(state.piles)
        ],
        "players": players,
        "to_act": state.to_act(),
        "barred": list(state.barred),
        "challenge": None
        if challenge is None
        else {
            "challenger": challenge.challenger,
            "defender": challenge.defender,
            "kind": str(challenge.kind),
            "target": challenge.target,
            "depth": challenge.depth,
            "claim": None if challenge.claim is None else cards_json(challenge.claim),
            "piles": challenge.piles,
            "plays": [{"seat": s, "cards": cards_json(cards)} for s, cards in challenge.plays],
            "to_answer": challenge.to_answer,
            "need": challenge.need,
        },
        "pending": None
        if state.pending is None
        else {
            "type": "choose",
            "chooser": state.pending.chooser,
            "target": state.pending.target,
            "options": ["top_to_bottom", "bottom_to_top"],
            "queue": [[chooser, target] for chooser, target in state.pending.queue],
            "piles": list(state.pending.piles),
        },
        "rounds": {"condition": config.rounds, **standings(state)},
        "over": state.over,
        "log": state.entries(),
    }


def views_for(
    state: State, seats: Iterable[Seat | None] | None = None
) -> dict[Seat | None, dict[str, Any]]:
    """``view_for`` of each of ``seats`` at once (by default the spectators' and every
    seat's). Only ``seat`` and ``hand`` differ from seat to seat, so the rest is built once and
    shared between the views: read them, never change them."""
    public = view_for(state, None)
    views: dict[Seat | None, dict[str, Any]] = {}
    seat: Seat | None
    for seat in [None, *range(state.config.players)] if seats is None else seats:
        _check_seat(state, seat)
        if seat is None:
            views[seat] = public
        else:
            views[seat] = {**public, "seat": seat, "hand": cards_json(state.hands[seat])}
    return views


def open_view(state: State) -> dict[str, Any]:
    """The spectator view with every hand and the deck shown: for finished games and replays."""
    view = view_for(state, None)
    view["hands"] = [cards_json(hand) for hand in state.hands]
    view["deck"] = cards_json(list(reversed(state.deck)))
    view["piles_full"] = [cards_json(pile) for pile in state.piles]
    return view
