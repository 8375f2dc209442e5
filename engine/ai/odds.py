"""Card counting for one seat: what is still unseen, and how likely a rival holds it.

These read a state the AI built itself (a determinization of its own view), and only what the
seat could see there: its own hand, public zones, and the *number* of hidden cards that match.
The hidden zones of such a state hold exactly the seat's unseen cards, in a sampled order, so
counting them counts the unseen cards and reveals nothing of their arrangement.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb

from engine import State
from engine.cards import IS_WILD, KIND_OF, VALUE_OF, CardId, Kind

Seat = int


def matching(cards: list[CardId], kind: Kind | str) -> list[CardId]:
    """The cards of ``cards`` that match a set of ``kind``: its asset, or any wild."""
    return [card for card in cards if IS_WILD[card] or KIND_OF[card] == kind]


def hidden_from(state: State, seat: Seat) -> list[list[CardId]]:
    """The zones ``seat`` cannot see: other hands, the deck, draft piles below their tops."""
    zones = [hand for other, hand in enumerate(state.hands) if other != seat]
    zones.append(state.deck)
    for pile, covered in zip(state.piles, state.covered, strict=True):
        zones.append(pile if covered else pile[:-1])
    return zones


def unseen_matching(state: State, seat: Seat, kind: Kind | str) -> tuple[int, int]:
    """(unseen cards, unseen cards matching ``kind``) from ``seat``'s point of view."""
    total = hits = 0
    for zone in hidden_from(state, seat):
        total += len(zone)
        for card in zone:
            if IS_WILD[card] or KIND_OF[card] == kind:
                hits += 1
    return total, hits


@lru_cache(maxsize=4096)
def at_least(unseen: int, hits: int, drawn: int, count: int) -> float:
    """P(a hand of ``drawn`` unseen cards holds at least ``count`` of the ``hits``)."""
    if count <= 0:
        return 1.0
    drawn = min(drawn, unseen)
    if count > min(hits, drawn):
        return 0.0
    total = comb(unseen, drawn)
    below = sum(comb(hits, k) * comb(unseen - hits, drawn - k) for k in range(count))
    return 1.0 - below / total


def outlast(rival_hand: int, unseen: int, hits: int, mine: int) -> float:
    """P(a seat playing first with ``mine`` matching cards outlasts a rival in a challenge.

    Plays alternate one card at a time and the side that cannot answer loses, so the seat that
    plays first wins when the rival's ``rival_hand`` unseen cards hold fewer than ``mine`` of
    the ``hits`` matching ones among ``unseen``.
    """
    if mine <= 0:
        return 0.0
    if rival_hand == 0:
        return 1.0
    return 1.0 - at_least(unseen, hits, rival_hand, mine)


def cards_value(cards: list[CardId]) -> int:
    return sum(map(VALUE_OF.__getitem__, cards))
