"""Starting a game: validating the configuration and dealing (docs/rules.md §3), custom deals
too."""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping
from typing import Any

from engine.cards import IDS_OF, IS_ACTION, IS_ASSET, KIND_OF, CardId, Kind
from engine.errors import InvalidConfig
from engine.rules import RULE_SETS, card_pool
from engine.state import ROUNDS_MILLION, ROUNDS_TWO_WINS, Config, Rounds, State

PILE_COUNT = 3
PILE_SIZE = 10
CONFIG_KEYS = frozenset({"players", "rules", "draft", "seed", "rounds", "setup", "names"})
SETUP_KEYS = frozenset({"dealer", "hands", "stacks", "discard", "deck", "piles", "rest"})


def round_rng(config: Config, round_number: int) -> random.Random:
    """The shuffle of one round: a pure function of the seed and the round."""
    return random.Random(f"cash-stash/{config.seed}/{round_number}")


def parse_config(raw: Mapping[str, Any]) -> Config:
    if not isinstance(raw, Mapping):
        raise InvalidConfig("bad_config", "A game configuration is a JSON object.")
    unknown = set(raw) - CONFIG_KEYS
    if unknown:
        raise InvalidConfig(
            "bad_config", f"Unknown configuration keys: {', '.join(sorted(unknown))}."
        )
    players = raw.get("players", 4)
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 6:
        raise InvalidConfig("bad_players", "A game has 2 to 6 players.")
    rules = raw.get("rules", "advanced")
    if rules not in RULE_SETS:
        raise InvalidConfig(
            "bad_rules", "The rule set is one of simple, simple_actions or advanced."
        )
    draft = raw.get("draft", False)
    if not isinstance(draft, bool):
        raise InvalidConfig("bad_config", "draft is true or false.")
    if draft and players > 3:
        raise InvalidConfig(
            "draft_needs_two_or_three", "Draft piles are offered only with 2 or 3 players."
        )
    seed = raw.get("seed")
    if seed is None:
        seed = secrets.randbits(63)
    if isinstance(seed, bool) or not isinstance(seed, int | str):
        raise InvalidConfig("bad_config", "The seed is an integer or a string.")
    rounds = _parse_rounds(raw.get("rounds", 1))
    names = raw.get("names")
    if names is not None:
        if (
            not isinstance(names, list | tuple)
            or len(names) != players
            or not all(isinstance(name, str) for name in names)
        ):
            raise InvalidConfig("bad_config", "names lists one display name per seat.")
        names = tuple(names)
    return Config(players, rules, draft, seed, rounds, names)


def _parse_rounds(rounds: Any) -> Rounds:
    if rounds in (ROUNDS_MILLION, ROUNDS_TWO_WINS):
        return str(rounds)
    if isinstance(rounds, int) and not isinstance(rounds, bool) and 1 <= rounds <= 20:
        return rounds
    raise InvalidConfig(
        "bad_rounds", 'rounds is a number of rounds (1 to 20), "million" or "two_round_wins".'
    )


def new_state(config: Config, setup: Mapping[str, Any] | None) -> State:
    """A game's first round dealt (as given by ``setup``, or shuffled); nobody's turn has begun
    yet: ``turns.begin_round`` does that, so that dealing never reaches into the turn order."""
    state = State(
        config=config,
        round=0,
        dealer=0,
        active=0,
        actions_done=0,
        hands=[[] for _ in range(config.players)],
        stacks=[[] for _ in range(config.players)],
        deck=[],
        discard=[],
        out=[],
        piles=[[] for _ in range(PILE_COUNT)] if config.draft else [],
        covered=[False] * PILE_COUNT if config.draft else [],
        barred=[],
        challenge=None,
        pending=None,
        history=[],
        over=False,
        log=[],
    )
    if setup is None:
        deal_round(state)
    else:
        _deal_custom(state, setup)
    return state


def deal_round(state: State) -> None:
    """Shuffle and deal a fresh round; the dealer is random in round 0, then moves one seat.
    The round's first turn is ``turns.begin_round``'s."""
    config = state.config
    rng = round_rng(config, state.round)
    deck = card_pool(config.rule_set, players=config.players, draft=config.draft)
    rng.shuffle(deck)
    if state.round == 0:
        state.dealer = rng.randrange(config.players)
    else:
        state.dealer = (state.dealer + 1) % config.players
    state.hands = [[] for _ in range(config.players)]
    state.stacks = [[] for _ in range(config.players)]
    state.discard, state.out, state.barred = [], [], []
    state.challenge, state.pending = None, None
    state.deck = deck
    if config.draft:
        state.piles = [[] for _ in range(PILE_COUNT)]
        state.covered = [False] * PILE_COUNT
        _deal_piles(state)
    _deal_hands(state)
    _turn_up_discard(state)


def _deal_piles(state: State) -> None:
    """Three piles of ten; an action card turned up while dealing leaves the game (R-13)."""
    for pile in state.piles:
        pile.extend(state.deck.pop() for _ in range(min(PILE_SIZE, len(state.deck))))
        while pile and IS_ACTION[pile[-1]]:
            state.out.append(pile.pop())


def _deal_hands(state: State) -> None:
    size = state.config.hand_size
    for _ in range(size):
        for seat in range(state.config.players):
            if state.deck:
                state.hands[seat].append(state.deck.pop())


def _turn_up_discard(state: State) -> None:
    """Turn up the deck's top; an action card goes out and the next is turned (R-2)."""
    while state.deck:
        card = state.deck.pop()
        if IS_ACTION[card]:
            state.out.append(card)
            continue
        state.discard.append(card)
        return


def _deal_custom(state: State, setup: Mapping[str, Any]) -> None:
    """A custom deal: given zones exactly, the rest as in a normal deal (docs/design.md,
    "Config")."""
    config = state.config
    if not isinstance(setup, Mapping) or set(setup) - SETUP_KEYS:
        raise InvalidConfig("bad_setup", f"setup takes only {', '.join(sorted(SETUP_KEYS))}.")
    rng = round_rng(config, 0)
    pool = card_pool(config.rule_set, players=config.players, draft=config.draft)
    available: dict[Kind, list[CardId]] = {kind: [] for kind in IDS_OF}
    for card in pool:
        available[KIND_OF[card]].append(card)
    for ids in available.values():
        rng.shuffle(ids)  # ids within a kind are drawn at random: they reveal nothing

    def take(kinds: Any, zone: str) -> list[CardId]:
        if not isinstance(kinds, list):
            raise InvalidConfig("bad_setup", f"setup {zone} is a list of card kinds.")
        cards = []
        for name in kinds:
            try:
                kind = Kind(name)
            except ValueError:
                raise InvalidConfig("bad_setup", f"Unknown card kind {name!r} in {zone}.") from None
            if not available[kind]:
                raise InvalidConfig(
                    "bad_setup", f"setup uses more {kind.value} cards than this game has."
                )
            cards.append(available[kind].pop())
        return cards

    players = config.players
    dealer = setup.get("dealer")
    if dealer is not None and (not isinstance(dealer, int) or not 0 <= dealer < players):
        raise InvalidConfig("bad_setup", "setup dealer is a seat number.")
    # Public zones first, then private ones, so visible ids never depend on hidden cards.
    if "stacks" in setup:
        stacks = setup["stacks"]
        if not isinstance(stacks, list) or len(stacks) != players:
            raise InvalidConfig("bad_setup", "setup stacks lists one stack per seat.")
        for seat, stack in enumerate(stacks):
            if not isinstance(stack, list):
                raise InvalidConfig("bad_setup", "A stack is a list of sets.")
            for cards in stack:
                state.stacks[seat].append(take(cards, "stacks"))
                _check_set(state.stacks[seat][-1])
    if "discard" in setup:
        state.discard = take(setup["discard"], "discard")
        if any(IS_ACTION[card] for card in state.discard):
            raise InvalidConfig("bad_setup", "Action cards never sit on the discard pile.")
    given_piles = "piles" in setup
    if given_piles:
        piles = setup["piles"]
        if not config.draft or not isinstance(piles, list) or len(piles) != PILE_COUNT:
            raise InvalidConfig("bad_setup", "setup piles lists three piles, in a draft game.")
        state.piles = [take(pile, "piles") for pile in piles]
    given_hands = "hands" in setup
    if given_hands:
        hands = setup["hands"]
        if not isinstance(hands, list) or len(hands) != players:
            raise InvalidConfig("bad_setup", "setup hands lists one hand per seat.")
        state.hands = [take(hand, "hands") for hand in hands]
    given_deck = take(setup.get("deck", []), "deck")
    rest = setup.get("rest", "deck")
    if rest not in ("deck", "out"):
        raise InvalidConfig("bad_setup", 'setup rest is "deck" or "out".')
    remaining = sorted(card for ids in available.values() for card in ids)
    rng.shuffle(remaining)
    state.deck = remaining  # dealt from the end, like a normal deal
    if config.draft and not given_piles:
        _deal_piles(state)
    if not given_hands:
        _deal_hands(state)
    if rest == "out":
        state.out.extend(state.deck)
        state.deck = []
    state.deck.extend(reversed(given_deck))  # the given deck's first card is drawn first
    if "discard" not in setup:
        _turn_up_discard(state)
    state.dealer = rng.randrange(players) if dealer is None else dealer


def _check_set(cards: list[CardId]) -> None:
    asset_kinds = {KIND_OF[card] for card in cards if IS_ASSET[card]}
    if len(cards) < 2 or len(asset_kinds) != 1 or any(IS_ACTION[card] for card in cards):
        raise InvalidConfig(
            "bad_setup", "Each set in a stack has at least two cards and assets of one kind."
        )
