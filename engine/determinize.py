"""Hypothetical full states built from one seat's view, for AI search (docs/design.md,
"Layering").

A view shows every public zone and the viewer's own hand. Every other card of the pool is
unseen: it sits in another hand, in the deck, or in a draft pile below its top. A sample shuffles
the unseen cards and deals them into those zones by their public sizes, always in the same
order, so it depends on the view and the random generator only — never on where the hidden
cards really are.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any

from engine.cards import KIND_OF, CardId, Kind
from engine.rules import RULE_SETS, card_pool
from engine.state import Challenge, Config, Pending, Seat, State


def _ids(cards: Iterable[Mapping[str, Any]]) -> list[CardId]:
    return [int(card["id"]) for card in cards]


class Sampler:
    """Parses a view once; ``sample`` then deals as many hypothetical states as wanted."""

    def __init__(self, view: Mapping[str, Any]) -> None:
        players = int(view["players_count"])
        rounds_info = view["rounds"]
        names = [entry.get("name") for entry in view["players"]]
        self._rules = str(view["rules"])
        self._players = players
        self._draft = bool(view["draft"])
        self._rounds = rounds_info["condition"]
        self._names = tuple(str(n) for n in names) if all(names) else None
        self.seat: Seat | None = view["seat"]
        self._hands: list[list[CardId] | None] = [None] * players
        if self.seat is not None:
            self._hands[self.seat] = _ids(view["hand"])
        self._hand_sizes = [int(entry["hand_size"]) for entry in view["players"]]
        self._stacks = [
            [_ids(cards["cards"]) for cards in entry["stack"]] for entry in view["players"]
        ]
        self._discard = _ids(view["discard"])
        self._out = _ids(view["out"])
        self._tops: list[CardId | None] = [
            None if pile["top"] is None else int(pile["top"]["id"]) for pile in view["piles"]
        ]
        self._pile_sizes = [int(pile["size"]) for pile in view["piles"]]
        self._deck_size = int(view["deck_size"])
        self._challenge = view["challenge"]
        self._pending = view["pending"]
        self._history = [list(scores) for scores in rounds_info["rounds"]]
        self._round = int(view["round"])
        self._dealer = int(view["dealer"])
        self._active = int(view["active"])
        self._actions_done = int(view["actions_done"])
        self._over = bool(view["over"])
        self._barred = [int(seat) for seat in view["barred"]]
        seen = set(self._discard) | set(self._out)
        seen.update(card for card in self._tops if card is not None)
        seen.update(card for stack in self._stacks for cards in stack for card in cards)
        if self.seat is not None:
            seen.update(self._hands[self.seat] or [])
        if self._challenge is not None:
            seen.update(_ids(self._challenge["claim"] or []))
            for play in self._challenge["plays"]:
                seen.update(_ids(play["cards"]))
        pool = card_pool(RULE_SETS[self._rules], players=players, draft=self._draft)
        self.unseen: list[CardId] = [card for card in pool if card not in seen]
        """The cards this seat has not seen, ascending: the same for every hidden arrangement."""
        hidden = self._deck_size + sum(self._hidden_pile_sizes())
        hidden += sum(size for s, size in enumerate(self._hand_sizes) if s != self.seat)
        if hidden != len(self.unseen):
            raise ValueError(
                f"the view hides {hidden} cards but {len(self.unseen)} are unseen: not a view"
            )

    def _hidden_pile_sizes(self) -> list[int]:
        """Cards below each pile's top; all of a covered pile (a pending claim took its top)."""
        return [
            size if top is None else size - 1
            for top, size in zip(self._tops, self._pile_sizes, strict=True)
        ]

    def sample(
        self, rng: random.Random, *, lacking: Mapping[Seat, Iterable[Kind]] | None = None
    ) -> State:
        """One hypothetical state, consistent with the view, with ``log_enabled=False``.

        ``lacking`` names kinds a seat is believed not to hold; cards of those kinds are kept
        out of that hand as far as the unseen cards allow (a soft inference: the caller decides
        when to use it). It names public facts only, so the sample still ignores hidden ones.
        """
        unseen = list(self.unseen)
        rng.shuffle(unseen)
        hands: list[list[CardId] | None] = [
            None if hand is None else list(hand) for hand in self._hands
        ]
        for seat, kinds in sorted((lacking or {}).items()):
            if hands[seat] is not None:
                continue
            size, avoid = self._hand_sizes[seat], frozenset(kinds)
            hand = [card for card in unseen if KIND_OF[card] not in avoid][:size]
            hand += [card for card in unseen if KIND_OF[card] in avoid][: size - len(hand)]
            taken = set(hand)
            unseen = [card for card in unseen if card not in taken]
            hands[seat] = hand
        for seat, size in enumerate(self._hand_sizes):
            if hands[seat] is None:
                hands[seat] = unseen[:size]
                del unseen[:size]
        piles = []
        for top, below in zip(self._tops, self._hidden_pile_sizes(), strict=True):
            pile = unseen[:below]
            del unseen[:below]
            if top is not None:
                pile.append(top)
            piles.append(pile)
        deck = unseen
        config = Config(
            self._players,
            self._rules,
            self._draft,
            rng.getrandbits(63),
            self._rounds,
            self._names,
        )
        return State(
            config=config,
            round=self._round,
            dealer=self._dealer,
            active=self._active,
            actions_done=self._actions_done,
            hands=[list(hand or []) for hand in hands],
            stacks=[[list(cards) for cards in stack] for stack in self._stacks],
            deck=deck,
            discard=list(self._discard),
            out=list(self._out),
            piles=piles,
            covered=[
                top is None and size > 0
                for top, size in zip(self._tops, self._pile_sizes, strict=True)
            ],
            barred=list(self._barred),
            challenge=self._make_challenge(),
            pending=self._make_pending(),
            history=[list(scores) for scores in self._history],
            over=self._over,
            log=[],
            log_enabled=False,
        )

    def _make_challenge(self) -> Challenge | None:
        raw = self._challenge
        if raw is None:
            return None
        return Challenge(
            challenger=raw["challenger"],
            defender=raw["defender"],
            kind=Kind(raw["kind"]),
            target=raw["target"],
            depth=raw["depth"],
            plays=[(play["seat"], _ids(play["cards"])) for play in raw["plays"]],
            to_answer=raw["to_answer"],
            need=raw["need"],
            claim=None if raw["claim"] is None else _ids(raw["claim"]),
            piles=None if raw["piles"] is None else list(raw["piles"]),
        )

    def _make_pending(self) -> Pending | None:
        raw = self._pending
        if raw is None:
            return None
        return Pending(
            raw["chooser"],
            raw["target"],
            [(chooser, target) for chooser, target in raw["queue"]],
            list(raw["piles"]),
        )


def determinize(
    view: Mapping[str, Any],
    rng: random.Random,
    *,
    lacking: Mapping[Seat, Iterable[Kind]] | None = None,
) -> State:
    """A full state consistent with ``view``: the unseen cards dealt at random (see module)."""
    return Sampler(view).sample(rng, lacking=lacking)
