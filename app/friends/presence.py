"""Where a signed-in player is, in the live store: online in the lobby, or at a table.

A page says where it is every ``friends_poll_seconds``; each saying holds a place (the store's
``hold_place``, in memory, Redis or a Redis Cluster) for ``friends_presence_seconds``. So a
player's arrival reaches a friend at that friend's next poll, whichever processes serve the
two, and a player whose page closed is gone once the hold runs out. Nothing is announced: a
friend's poll reads the holds of its friends, at most ``max_friends`` of them."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from app.rooms.model import Visibility
from app.store.base import RoomStore

LOBBY = "lobby"


@dataclass(frozen=True, slots=True)
class Whereabouts:
    """Where a player is now, as far as their pages have said."""

    online: bool
    code: str | None = None
    """The table's code, when they are at one."""
    public: bool = False
    """The table is public (listed in the lobby)."""


OFFLINE = Whereabouts(online=False)


def _key(account_id: str) -> str:
    return f"presence:{account_id}"


async def say_in_lobby(store: RoomStore, account_id: str, *, seconds: float) -> None:
    await store.hold_place(_key(account_id), LOBBY, seconds=seconds)


async def say_at_table(
    store: RoomStore, account_id: str, *, code: str, visibility: Visibility, seconds: float
) -> None:
    await store.hold_place(_key(account_id), f"table:{visibility}:{code}", seconds=seconds)


def _whereabouts(places: list[str]) -> Whereabouts:
    """A table said wins over the lobby; of two tables, either (a player rarely has two open)."""
    if not places:
        return OFFLINE
    for place in sorted(places):
        kind, _, rest = place.partition(":")
        if kind == "table":
            visibility, _, code = rest.partition(":")
            return Whereabouts(online=True, code=code, public=visibility == "public")
    return Whereabouts(online=True)


async def whereabouts(store: RoomStore, account_ids: list[str]) -> dict[str, Whereabouts]:
    """Where each of these accounts is, read all at once (one store call each, concurrent)."""
    found = await asyncio.gather(*(store.places(_key(account)) for account in account_ids))
    return {
        account: _whereabouts(places) for account, places in zip(account_ids, found, strict=True)
    }
