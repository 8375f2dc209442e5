"""Reading and writing accounts and passkeys.

As in ``app.db.repository``, functions take the session and keyword arguments and never
commit: the caller owns the transaction.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.errors import AccountError
from app.db.models import Account, AccountGuest, Passkey
from app.db.repository import merge_player, public_player_id
from app.text import clean_text, folded_name

NAME_LENGTH = 30
"""The longest display name, as a seat's."""


def new_account_id() -> str:
    return secrets.token_hex(16)


def name_taken() -> AccountError:
    return AccountError(
        "name_taken", "That name, or one that looks just like it, is taken; choose another."
    )


def account_name(name: str) -> tuple[str, str]:
    """The name as it is kept, and its look-alike key; ``TextRefused`` when no one may see it."""
    cleaned = clean_text(name, what="A name", max_length=NAME_LENGTH)
    return cleaned, folded_name(cleaned)


async def create_account(
    session: AsyncSession, *, name: str, player_id: str, account_id: str | None = None
) -> Account:
    """A new account that takes over the history of the guest whose public id is
    ``player_id`` (that player is the account's); flushed, not committed.

    Refused when the name (or a look-alike) is another account's (``name_taken``), or when
    the guest plays for an account already (``guest_has_account``): a guest's history becomes
    one account's, once."""
    cleaned, key = account_name(name)
    await check_new_account(session, name_key=key, player_id=player_id)
    now = datetime.now(UTC)
    account = Account(
        id=account_id or new_account_id(),
        name=cleaned,
        name_key=key,
        player_id=player_id,
        created_at=now,
    )
    try:
        async with session.begin_nested():
            session.add(account)
            await session.flush()
            session.add(AccountGuest(player_id=player_id, account_id=account.id, joined_at=now))
            await session.flush()
    except IntegrityError:
        # Another request took the name (or the guest) between the look and the write.
        raise name_taken() from None
    return account


async def check_new_account(session: AsyncSession, *, name_key: str, player_id: str) -> None:
    """Refuse a new account whose name (by its look-alike key) is another's, or whose guest
    (by its public id) plays for an account already."""
    if await session.scalar(select(Account.id).where(Account.name_key == name_key)) is not None:
        raise name_taken()
    if await session.get(AccountGuest, player_id) is not None:
        raise AccountError(
            "guest_has_account",
            "This browser's player already has an account: sign in to it instead.",
        )


async def join_guest(session: AsyncSession, *, account: Account, player_id: str) -> bool:
    """Make the guest whose public id is ``player_id`` play for ``account`` (a device signed
    in under it): the games, rating and reviews recorded under the guest become the account's
    (``merge_player``), and so does what it plays from now on. Once: a guest that plays for
    another account is left as it is (False), and one that plays for this account already
    brings nothing twice; but a game it finished while it was joining, recorded under the
    guest after the move, is moved at its next sign-in. True when anything joined or moved.
    Flushed, not committed."""
    try:
        async with session.begin_nested():
            session.add(
                AccountGuest(
                    player_id=player_id, account_id=account.id, joined_at=datetime.now(UTC)
                )
            )
            await session.flush()
        joined = True
    except IntegrityError:
        owner = await session.scalar(
            select(AccountGuest.account_id).where(AccountGuest.player_id == player_id)
        )
        if owner != account.id:
            return False
        joined = False
    moved = await merge_player(session, source=player_id, into=account.player_id)
    return joined or moved


async def get_account(session: AsyncSession, *, account_id: str) -> Account | None:
    return await session.get(Account, account_id)


async def passkey_count(session: AsyncSession, *, account_id: str) -> int:
    count = await session.scalar(
        select(func.count()).select_from(Passkey).where(Passkey.account_id == account_id)
    )
    return count or 0


async def rename_account(session: AsyncSession, *, account: Account, name: str) -> None:
    """Give the account another name (``name_taken`` when another account's looks like it);
    flushed, not committed."""
    cleaned, key = account_name(name)
    taken = await session.scalar(
        select(Account.id).where(Account.name_key == key, Account.id != account.id)
    )
    if taken is not None:
        raise name_taken()
    account.name, account.name_key = cleaned, key
    try:
        async with session.begin_nested():
            await session.flush()
    except IntegrityError:
        raise name_taken() from None


async def account_passkeys(session: AsyncSession, *, account_id: str) -> list[Passkey]:
    """The account's passkeys, oldest first."""
    rows = await session.scalars(
        select(Passkey)
        .where(Passkey.account_id == account_id)
        .order_by(Passkey.created_at, Passkey.id)
    )
    return list(rows)


async def add_passkey(session: AsyncSession, *, passkey: Passkey) -> None:
    """Keep a new passkey; ``passkey_not_made`` if its credential is kept already."""
    try:
        async with session.begin_nested():
            session.add(passkey)
            await session.flush()
    except IntegrityError:
        raise AccountError(
            "passkey_not_made", "That passkey is already in use; try another.", status=400
        ) from None


async def remove_passkey(session: AsyncSession, *, account_id: str, passkey_id: str) -> None:
    """Remove one of the account's passkeys, never its last (``last_passkey``: once this
    device's session ends it would be the only way in); ``passkey_not_found`` for a passkey
    that is not the account's."""
    # The account's row locked (Postgres) so that two removals at once cannot both leave one.
    await session.execute(select(Account.id).where(Account.id == account_id).with_for_update())
    passkey = await session.get(Passkey, passkey_id)
    if passkey is None or passkey.account_id != account_id:
        raise AccountError("passkey_not_found", "Your account has no such passkey.", status=404)
    if await passkey_count(session, account_id=account_id) <= 1:
        raise AccountError(
            "last_passkey",
            "This is your account's only passkey: add another before removing it.",
        )
    await session.delete(passkey)
    await session.flush()


@dataclass(frozen=True)
class AccountPlayers:
    """The public player ids that play for an account: its own, and the guest of each device
    that signed in to it (``join_guest``)."""

    public_ids: frozenset[str]

    def plays(self, guest_id: str | None) -> bool:
        """Whether a seat's guest id, as its room keeps it, plays for the account."""
        return guest_id is not None and public_player_id(guest_id) in self.public_ids


async def account_players(session: AsyncSession, *, account_id: str) -> AccountPlayers:
    account = await session.get(Account, account_id)
    if account is None:
        return AccountPlayers(frozenset())
    guests = await session.scalars(
        select(AccountGuest.player_id).where(AccountGuest.account_id == account_id)
    )
    return AccountPlayers(frozenset({account.player_id, *guests}))
