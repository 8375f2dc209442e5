"""Soft inference from the public log: a seat that conceded probably held no matching asset."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.cards import IS_ASSET, KIND_OF, Kind

SETTLED = frozenset({"challenge_won", "claim_won"})


@dataclass(slots=True)
class Guess:
    """Kinds a seat declined to match, and how many cards it has drawn since."""

    kinds: set[Kind] = field(default_factory=set)
    drawn: int = 0


def guesses(view: Mapping[str, Any]) -> dict[int, Guess]:
    """Per rival: the asset kinds it conceded challenges over this round, and draws since.

    A concede is followed by the settling entry, which lists the won set's cards; its asset kind
    is the kind the conceder declined to match. Cards drawn afterwards are unconstrained, so the
    guess weakens as the hand refills.
    """
    found: dict[int, Guess] = {}
    conceder: int | None = None
    for entry in view.get("log", []):
        event = entry.get("event")
        seat = entry.get("seat")
        if event == "concede" and isinstance(seat, int):
            conceder = seat
        elif event in SETTLED and conceder is not None:
            kinds = [KIND_OF[card] for card in entry.get("cards", []) if IS_ASSET[card]]
            if kinds and conceder != view.get("seat"):
                found[conceder] = Guess({kinds[0]}, 0)
            conceder = None
        elif event == "draw" and seat in found:
            found[seat].drawn += int(entry.get("count", 0))
        elif event == "deal":
            found.clear()
    return found
