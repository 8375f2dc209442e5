"""Soft inference from the public log: a seat that conceded probably held no matching asset."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.cards import IS_ASSET, KIND_OF, Kind

SETTLED = frozenset({"challenge_won", "claim_won"})


def lacking(view: Mapping[str, Any]) -> dict[int, set[Kind]]:
    """Kinds each seat conceded a challenge over and has not drawn a card since.

    A concede is followed by the settling entry, which lists the won set's cards; its asset kind
    is the kind the conceder declined to match. A draw refreshes the hand and drops the guess.
    """
    guesses: dict[int, set[Kind]] = {}
    conceder: int | None = None
    for entry in view.get("log", []):
        event = entry.get("event")
        seat = entry.get("seat")
        if event == "concede" and isinstance(seat, int):
            conceder = seat
        elif event in SETTLED and conceder is not None:
            kinds = [KIND_OF[card] for card in entry.get("cards", []) if IS_ASSET[card]]
            if kinds and conceder != view.get("seat"):
                guesses.setdefault(conceder, set()).add(kinds[0])
            conceder = None
        elif event == "draw" and isinstance(seat, int):
            guesses.pop(seat, None)
        elif event == "deal":
            guesses.clear()
    return guesses
