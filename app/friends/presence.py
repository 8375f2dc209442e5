"""Where a signed-in player is, in the live store: online in the lobby, or at a table.

A page says where it is every ``friends_poll_seconds``; each saying holds a record (the
accounts' store's ``hold``, in memory, Redis or a Redis Cluster) for ``friends_presence_seconds``:
one for the lobby, one for a table. So a player's arrival reaches a friend at that friend's
next poll, whichever processes serve the two, and a player whose page closed is gone once the
hold runs out. Nothing is announced: a friend's poll reads the holds of all its friends in one
call to the store (``whereabouts``), at most ``max_friends`` of them."""

from __future__ import annotations

from dataclasses import dataclass

from app.accounts.store import AccountStore
from app.rooms.model import Visibility


@dataclass(frozen=True, slots=True)
class Whereabouts:
    """Where a player is now, as far as their pages have said."""

    online: bool
    code: str | None = None
    """The table's code, when they are at one."""
    public: bool = False
    """The table is public (listed in the lobby)."""


OFFLINE = Whereabouts(online=False)
ONLINE = Whereabouts(online=True)


def _lobby(account_id: str) -> str:
    return f"presence:{account_id}:lobby"


def _table(account_id: str) -> str:
    return f"presence:{account_id}:table"


async def say_in_lobby(store: AccountStore, account_id: str, *, seconds: float) -> None:
    await store.hold(_lobby(account_id), "here", seconds=seconds)


async def say_at_table(
    store: AccountStore, account_id: str, *, code: str, visibility: Visibility, seconds: float
) -> None:
    """A table said wins over the lobby while it is held; of two tables, the one said last."""
    await store.hold(_table(account_id), f"{visibility}:{code}", seconds=seconds)


def _whereabouts(lobby: str | None, table: str | None) -> Whereabouts:
    if table is not None:
        visibility, _, code = table.partition(":")
        return Whereabouts(online=True, code=code, public=visibility == "public")
    return OFFLINE if lobby is None else ONLINE


async def whereabouts(store: AccountStore, account_ids: list[str]) -> dict[str, Whereabouts]:
    """Where each of these accounts is, read all at once (one call to the store)."""
    keys = [key for account in account_ids for key in (_lobby(account), _table(account))]
    found = await store.held(keys)
    return {
        account: _whereabouts(found[2 * index], found[2 * index + 1])
        for index, account in enumerate(account_ids)
    }


def _mark(account_id: str) -> str:
    return f"friends:{account_id}"


async def panel_version(store: AccountStore, account_id: str) -> str:
    """The mark of what the account's panel shows from the database: it moves with every
    ``panel_changed``, whichever process says it."""
    return await store.version(_mark(account_id))


async def panel_changed(store: AccountStore, *account_ids: str) -> None:
    """Say that these accounts' panels changed (a friendship, a block, an invitation, a name),
    after the change is committed: every process reads their standing anew at their next poll."""
    for account_id in account_ids:
        await store.change(_mark(account_id))
