"""What a notification may say: a closed set of kinds, each carrying only public facts.

A notice leaves the server for a push service and a lock screen, so it never holds hidden
information. That is structural: every field is a name, a room code, a set's public name or a
place — no type here can hold a card, a hand, the deck or the seed — and
``tests/app/push/test_notices.py`` checks each kind's fields against that list.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import ClassVar
from urllib.parse import quote

from engine.cards import INFO, Kind


@dataclass(frozen=True, slots=True)
class YourMove:
    """It is the player's move at a table."""

    kind: ClassVar[str] = "your_move"
    host: str
    """The table host's display name (shown to everyone at the table)."""
    room_code: str
    """The room the table is in: the notification opens it."""


@dataclass(frozen=True, slots=True)
class Challenged:
    """Someone challenges one of the player's sets, and the player must answer."""

    kind: ClassVar[str] = "challenged"
    by: str
    """The challenger's display name."""
    set_kind: Kind
    """The challenged set's kind: a stack on the table, seen by all."""
    room_code: str


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game at a table ended."""

    kind: ClassVar[str] = "game_over"
    place: int
    """The player's place in the final totals (1 for the winner)."""
    room_code: str


Notice = YourMove | Challenged | GameOver
"""Every kind of notification the server sends."""


@dataclass(frozen=True, slots=True)
class Rendered:
    """A notice as the service worker shows it."""

    title: str
    body: str
    url: str
    """The page the notification opens: the table's own address."""
    tag: str
    """Notifications with the same tag replace each other (one per table)."""

    def payload(self) -> str:
        """The JSON the service worker reads (``static/sw.js``)."""
        return json.dumps(
            {"title": self.title, "body": self.body, "url": self.url, "tag": self.tag},
            separators=(",", ":"),
        )


def _ordinal(place: int) -> str:
    if 10 <= place % 100 <= 20:
        return f"{place}th"
    return f"{place}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(place % 10, 'th') }"


def render(notice: Notice) -> Rendered:
    """A notice's short title, body and table address."""
    url = f"/room/{quote(notice.room_code, safe='')}"
    tag = f"table:{notice.room_code}"
    match notice:
        case YourMove(host=host):
            return Rendered("Your move", f"Your move at {host}'s table", url, tag)
        case Challenged(by=by, set_kind=set_kind):
            body = f"{by} challenges your {INFO[set_kind].name} set"
            return Rendered("Challenged", body, url, tag)
        case GameOver(place=place):
            return Rendered("Game over", f"Game over: you came {_ordinal(place)}", url, tag)
