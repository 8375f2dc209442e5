"""Friendships, blocks, friend links and invitations, in the database.

Every function takes the request's session and commits what it changed. Who may see or ask
whom is decided here, in one place: a block (either way) hides each from the other's asking
and inviting; only friends are invited.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from sqlalchemy import and_, delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Account, Block, FriendLink, Friendship, Invitation
from app.friends.errors import FriendError, no_such_player

LINK_BYTES = 12
"""96 random bits per friend link: it cannot be guessed, and look-ups are limited."""
INVITATION_BYTES = 12


@dataclass(frozen=True, slots=True)
class Someone:
    """An account as another account sees it: its id and display name, nothing else."""

    id: str
    name: str
    player_id: str | None = None
    """Its public player id (its profile's), given for friends."""


@dataclass(frozen=True, slots=True)
class Circle:
    """Everyone an account is linked to, each list by name."""

    friends: list[Someone]
    asked_me: list[Someone]
    """Requests waiting for this account's answer."""
    asked: list[Someone]
    """Requests this account sent, not yet answered."""
    blocked: list[Someone]


def _now() -> datetime:
    return datetime.now(UTC)


def _pair(one: str, other: str) -> tuple[str, str]:
    return (one, other) if one < other else (other, one)


async def someone(session: AsyncSession, account_id: str) -> Someone | None:
    row = await session.execute(select(Account.id, Account.name).where(Account.id == account_id))
    found = row.first()
    return None if found is None else Someone(id=found[0], name=found[1])


async def _blocked_either_way(session: AsyncSession, one: str, other: str) -> bool:
    found = await session.scalar(
        select(func.count())
        .select_from(Block)
        .where(
            or_(
                and_(Block.blocker_id == one, Block.blocked_id == other),
                and_(Block.blocker_id == other, Block.blocked_id == one),
            )
        )
    )
    return bool(found)


async def _friendship(session: AsyncSession, one: str, other: str) -> Friendship | None:
    low, high = _pair(one, other)
    return await session.get(Friendship, (low, high))


async def visible(session: AsyncSession, *, me: str, other: str) -> Someone:
    """``other`` as ``me`` may see it, or ``no_such_player`` (no such account, themselves, or
    a block between them: the same answer for each)."""
    if other == me or await _blocked_either_way(session, me, other):
        raise no_such_player()
    found = await someone(session, other)
    if found is None:
        raise no_such_player()
    return found


async def find_by_name(session: AsyncSession, *, me: str, name: str) -> Someone:
    """The account whose display name is exactly ``name``."""
    found = await session.scalar(select(Account.id).where(Account.name == name))
    if found is None:
        raise no_such_player()
    return await visible(session, me=me, other=found)


async def find_by_link(session: AsyncSession, *, me: str, code: str) -> Someone:
    found = await session.scalar(select(FriendLink.account_id).where(FriendLink.code == code))
    if found is None:
        raise no_such_player()
    return await visible(session, me=me, other=found)


async def link_code(session: AsyncSession, *, me: str) -> str:
    """The code of ``me``'s friend link, made on first asking."""
    link = await session.get(FriendLink, me)
    if link is None:
        link = FriendLink(account_id=me, code=secrets.token_urlsafe(LINK_BYTES), created_at=_now())
        session.add(link)
        await session.commit()
    return link.code


async def _links(session: AsyncSession, me: str) -> int:
    """Friends and requests sent: what ``max_friends`` bounds."""
    count = await session.scalar(
        select(func.count())
        .select_from(Friendship)
        .where(
            or_(Friendship.low_id == me, Friendship.high_id == me),
            or_(Friendship.accepted_at.is_not(None), Friendship.requested_by == me),
        )
    )
    return int(count or 0)


async def ask(session: AsyncSession, *, me: str, other: str, max_friends: int) -> bool:
    """Ask ``other`` to be friends; True when that made them friends (they had asked too)."""
    await visible(session, me=me, other=other)
    existing = await _friendship(session, me, other)
    if existing is not None and existing.accepted_at is not None:
        raise FriendError("already_friends", "You are friends already.")
    if existing is not None and existing.requested_by == me:
        raise FriendError("already_asked", "You have asked already; wait for an answer.")
    if await _links(session, me) >= max_friends:
        raise FriendError(
            "too_many_friends",
            f"You have {max_friends} friends and requests; remove some to ask more.",
            status=429,
        )
    if existing is not None:
        existing.accepted_at = _now()
        await session.commit()
        return True
    low, high = _pair(me, other)
    session.add(Friendship(low_id=low, high_id=high, requested_by=me, created_at=_now()))
    await session.commit()
    return False


async def accept(session: AsyncSession, *, me: str, other: str, max_friends: int) -> None:
    """Accept ``other``'s request."""
    existing = await _friendship(session, me, other)
    if existing is None or existing.accepted_at is not None or existing.requested_by == me:
        raise FriendError("no_request", "That player has not asked you.", status=404)
    if await _links(session, me) >= max_friends:
        raise FriendError(
            "too_many_friends",
            f"You have {max_friends} friends and requests; remove some first.",
            status=429,
        )
    existing.accepted_at = _now()
    await session.commit()


async def part(session: AsyncSession, *, me: str, other: str) -> None:
    """End whatever is between ``me`` and ``other``: a friendship, a request either way (a
    decline or a withdrawal), and the invitations still waiting between them."""
    low, high = _pair(me, other)
    removed = await session.execute(
        delete(Friendship).where(Friendship.low_id == low, Friendship.high_id == high)
    )
    if not removed.rowcount:  # type: ignore[attr-defined]
        raise FriendError("not_friends", "There is no friendship or request to end.", status=404)
    await _expire_between(session, me, other)
    await session.commit()


async def _expire_between(session: AsyncSession, one: str, other: str) -> None:
    await session.execute(
        update(Invitation)
        .where(
            Invitation.status == "pending",
            or_(
                and_(Invitation.host_id == one, Invitation.guest_id == other),
                and_(Invitation.host_id == other, Invitation.guest_id == one),
            ),
        )
        .values(status="expired", room_code=None)
    )


async def block(session: AsyncSession, *, me: str, other: str) -> None:
    """Block ``other``: any friendship or request between them ends, and so do invitations."""
    if other == me or await someone(session, other) is None:
        raise no_such_player()
    if await session.get(Block, (me, other)) is None:
        session.add(Block(blocker_id=me, blocked_id=other, created_at=_now()))
    low, high = _pair(me, other)
    await session.execute(
        delete(Friendship).where(Friendship.low_id == low, Friendship.high_id == high)
    )
    await _expire_between(session, me, other)
    await session.commit()


async def unblock(session: AsyncSession, *, me: str, other: str) -> None:
    removed = await session.execute(
        delete(Block).where(Block.blocker_id == me, Block.blocked_id == other)
    )
    if not removed.rowcount:  # type: ignore[attr-defined]
        raise FriendError("not_blocked", "That player is not blocked.", status=404)
    await session.commit()


async def circle(session: AsyncSession, *, me: str) -> Circle:
    """``me``'s friends, requests both ways, and the accounts ``me`` blocked."""
    rows = await session.execute(
        select(Friendship, Account.id, Account.name, Account.player_id)
        .join(
            Account,
            or_(
                and_(Friendship.low_id == me, Account.id == Friendship.high_id),
                and_(Friendship.high_id == me, Account.id == Friendship.low_id),
            ),
        )
        .order_by(Account.name)
    )
    friends: list[Someone] = []
    asked_me: list[Someone] = []
    asked: list[Someone] = []
    for friendship, account_id, name, player_id in rows:
        someone = Someone(id=account_id, name=name)
        if friendship.accepted_at is not None:
            friends.append(Someone(id=account_id, name=name, player_id=player_id))
        elif friendship.requested_by == me:
            asked.append(someone)
        else:
            asked_me.append(someone)
    blocked = await session.execute(
        select(Account.id, Account.name)
        .join(Block, Block.blocked_id == Account.id)
        .where(Block.blocker_id == me)
        .order_by(Account.name)
    )
    return Circle(
        friends=friends,
        asked_me=asked_me,
        asked=asked,
        blocked=[Someone(id=account_id, name=name) for account_id, name in blocked],
    )


async def are_friends(session: AsyncSession, *, me: str, other: str) -> bool:
    existing = await _friendship(session, me, other)
    return existing is not None and existing.accepted_at is not None


async def invite(
    session: AsyncSession, *, host: str, guest: str, code: str, seconds: int
) -> Invitation:
    """Invite ``guest`` (a friend) to table ``code``; a waiting invitation to the same table is
    sent again with a new expiry rather than twice."""
    if not await are_friends(session, me=host, other=guest):
        raise FriendError("not_friends", "You can invite only your friends.", status=403)
    if await _blocked_either_way(session, host, guest):
        raise no_such_player()
    await expire_due(session)
    now = _now()
    waiting = await session.scalar(
        select(Invitation).where(
            Invitation.host_id == host,
            Invitation.guest_id == guest,
            Invitation.room_code == code,
            Invitation.status == "pending",
        )
    )
    if waiting is None:
        waiting = Invitation(
            id=secrets.token_urlsafe(INVITATION_BYTES),
            host_id=host,
            guest_id=guest,
            room_code=code,
            status="pending",
            created_at=now,
        )
        session.add(waiting)
    waiting.expires_at = now + timedelta(seconds=seconds)
    await session.commit()
    return waiting


async def expire_due(session: AsyncSession) -> None:
    """Mark every invitation whose time ran out as expired, its code cleared: run when an
    invitation is sent (a limited call), so that no table's code stays kept for long."""
    await session.execute(
        update(Invitation)
        .where(Invitation.status == "pending", Invitation.expires_at <= _now())
        .values(status="expired", room_code=None)
    )


async def invitations(
    session: AsyncSession, *, me: str, recent_seconds: int
) -> tuple[list[tuple[Invitation, Someone]], list[tuple[Invitation, Someone]]]:
    """The invitations waiting for ``me``'s answer (each with its host), and those ``me``
    sent in the last ``recent_seconds`` (each with its guest), whatever became of them (one
    still ``pending`` past its ``expires_at`` has expired). Only reads: it runs every poll."""
    now = _now()
    incoming = await session.execute(
        select(Invitation, Account.id, Account.name)
        .join(Account, Account.id == Invitation.host_id)
        .where(
            Invitation.guest_id == me,
            Invitation.status == "pending",
            Invitation.expires_at > now,
        )
        .order_by(Invitation.created_at)
    )
    since = now - timedelta(seconds=recent_seconds)
    outgoing = await session.execute(
        select(Invitation, Account.id, Account.name)
        .join(Account, Account.id == Invitation.guest_id)
        .where(Invitation.host_id == me, Invitation.created_at >= since)
        .order_by(Invitation.created_at)
    )
    return (
        [(row, Someone(id=i, name=n)) for row, i, n in incoming],
        [(row, Someone(id=i, name=n)) for row, i, n in outgoing],
    )


def status_now(invitation: Invitation) -> Literal["pending", "accepted", "declined", "expired"]:
    """The invitation's status as of now: a pending one past its time has expired."""
    if invitation.status == "pending" and invitation.expires_at <= _now():
        return "expired"
    if invitation.status in ("pending", "accepted", "declined"):
        return invitation.status  # type: ignore[return-value]
    return "expired"


async def answer(
    session: AsyncSession, *, me: str, invitation_id: str, accept: bool
) -> tuple[str, str]:
    """Accept or decline an invitation to ``me``; the table's code, and the host."""
    found = await session.get(Invitation, invitation_id)
    if found is None or found.guest_id != me:
        raise FriendError("no_invitation", "There is no such invitation.", status=404)
    if found.status != "pending" or found.expires_at <= _now() or found.room_code is None:
        raise FriendError("invitation_over", "This invitation has expired or was answered.")
    code = found.room_code
    found.status = "accepted" if accept else "declined"
    found.answered_at = _now()
    found.room_code = None
    await session.commit()
    return code, found.host_id


async def linked(session: AsyncSession, *, me: str) -> set[str]:
    """Every account whose panel shows ``me``: friends and requests either way, accounts
    that blocked ``me``, and those of invitations either way."""
    partners = await session.execute(
        select(Friendship.low_id, Friendship.high_id).where(
            or_(Friendship.low_id == me, Friendship.high_id == me)
        )
    )
    blockers = await session.scalars(select(Block.blocker_id).where(Block.blocked_id == me))
    invited = await session.execute(
        select(Invitation.host_id, Invitation.guest_id).where(
            or_(Invitation.host_id == me, Invitation.guest_id == me)
        )
    )
    found = {account for pair in (*partners, *invited) for account in pair}
    found.update(blockers)
    found.discard(me)
    return found
