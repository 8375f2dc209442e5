"""``/api/friends``: friends, presence and invitations to a table, for a signed-in player.

Every route needs the session cookie (401 without it); every one that changes something also
passes the accounts' cross-site check. Look-ups, friend requests and invitations are counted
per account and per client address, across processes (``docs/security.md``).

The panel is asked for every second by every signed-in page, so a poll that finds nothing new
is cheap: what only the database knows (names, friends, requests, blocks, invitations sent) is
kept per account in this process with the account's mark in the live store (``standing``),
which every change to it, in any process, renews; the friends' whereabouts are one read of the
store; and a page that sends back the ``version`` it was given is answered ``unchanged``.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Path, Query, Request, Response, status
from pydantic import BaseModel, Field
from sqlalchemy.ext.asyncio import AsyncSession

from app.accounts.sessions import SignedIn, account_store, require_signed_in
from app.api.deps import RuntimeDep, client_address
from app.api.errors import Refusal
from app.api.schemas import STRICT
from app.db.session import SessionDep
from app.friends import presence, service
from app.friends.errors import FriendError
from app.friends.presence import Whereabouts
from app.friends.standings import Standing, Standings
from app.rooms.credentials import hash_token, normalize_room_code
from app.rooms.model import Room
from app.runtime import Runtime

router = APIRouter(
    prefix="/api/friends",
    tags=["friends"],
    responses={answer: {"model": Refusal} for answer in (401, 403, 404, 409, 429)},
)

Me = Annotated[SignedIn, Depends(require_signed_in)]
AccountId = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
AccountInPath = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
InvitationInPath = Annotated[str, Path(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")]
SeatToken = Annotated[str, Field(min_length=1, max_length=64)]
CodeText = Annotated[str, Field(min_length=1, max_length=16)]


class PlayerFound(BaseModel):
    """An account as another sees it: an id to ask or invite it by, and its name."""

    id: str
    name: str


class WhereNow(BaseModel):
    online: bool
    at_table: bool
    """At a table (in its waiting room or its game)."""
    code: str | None
    """The table's code: only when it is public, or when you are at it too."""


class Friend(PlayerFound):
    player_id: str
    """Their profile is ``/players/{player_id}`` (``GET /api/players/{player_id}/profile``)."""
    where: WhereNow


class InvitationToMe(BaseModel):
    id: str
    host: PlayerFound
    room_name: str | None
    """None when the table no longer waits for players."""
    expires_at: datetime


class InvitationSent(BaseModel):
    id: str
    guest: PlayerFound
    status: Literal["pending", "accepted", "declined", "expired"]
    expires_at: datetime


class FriendsState(BaseModel):
    """The friends panel: everything it shows, read at once."""

    me: PlayerFound
    friends: list[Friend]
    asked_me: list[PlayerFound]
    """Friend requests waiting for your answer."""
    asked: list[PlayerFound]
    """Friend requests you sent, not answered yet."""
    blocked: list[PlayerFound]
    invited_me: list[InvitationToMe]
    invited: list[InvitationSent]
    """Invitations you sent lately, with what became of each."""
    poll_seconds: float
    """Ask again (``POST /api/friends/presence``) this often to stay shown online."""
    version: str = ""
    """Names this answer: sent back as ``seen``, it is answered ``unchanged`` while the panel
    is the same."""


class FriendsUnchanged(BaseModel):
    """The panel is as the answer named ``version`` showed it."""

    unchanged: Literal[True] = True
    version: str
    poll_seconds: float


class Here(BaseModel):
    """Where the page that says it is: the lobby (no fields), or a table it holds a seat at."""

    model_config = STRICT
    code: CodeText | None = None
    token: SeatToken | None = None
    seen: Annotated[str, Field(max_length=64)] | None = None
    """The ``version`` of the panel this page shows: ``unchanged`` is answered while it is."""


class AskFriend(BaseModel):
    model_config = STRICT
    id: AccountId


class Invite(BaseModel):
    """Invite friend ``id`` to the table ``code``, where ``token`` holds a seat."""

    model_config = STRICT
    id: AccountId
    code: CodeText
    token: SeatToken


class Asked(BaseModel):
    friends: bool
    """True when the other had asked you too: you are friends now."""


class Accepted(BaseModel):
    code: str
    """The table's code: join it through ``POST /api/rooms/{code}/join``."""


async def _count(
    runtime: Runtime, request: Request, me: str, *, what: str, per_account: int, per_address: int
) -> None:
    """Count one ``what`` against the account's and the address's limits (a minute each)."""
    store = runtime.service.store
    address_ok = await store.hit(
        f"{what}:address:{client_address(request)}", limit=per_address, window_seconds=60
    )
    account_ok = await store.hit(f"{what}:account:{me}", limit=per_account, window_seconds=60)
    if not (address_ok and account_ok):
        raise FriendError(
            f"too_many_{what}", "Too many in a minute; wait a minute and try again.", status=429
        )


async def _count_lookup(runtime: Runtime, request: Request, me: str) -> None:
    """Count one lookup of a player (by name or by friend link): both share one limit."""
    settings = runtime.settings
    await _count(
        runtime,
        request,
        me,
        what="lookups",
        per_account=settings.friend_lookups_per_minute,
        per_address=settings.friend_lookups_per_address,
    )


async def _seated(runtime: Runtime, code: str, token: str) -> Room:
    """The room ``code`` where ``token`` holds a seat; one refusal for every other case."""
    normalized = normalize_room_code(code)
    room = None if normalized is None else await runtime.service.load(normalized)
    if room is None or room.seat_of(hash_token(token)) is None:
        raise FriendError("not_at_table", "You hold no seat at that table.", status=403)
    return room


def where_now(found: Whereabouts, mine: Whereabouts) -> WhereNow:
    """Where ``found`` is, as someone at ``mine`` may see it: a table's code only when it is
    public or theirs too."""
    shown = found.code if found.public or (found.code and found.code == mine.code) else None
    return WhereNow(online=found.online, at_table=found.code is not None, code=shown)


def _standings(request: Request) -> Standings:
    standings: Standings = request.app.state.friend_standings
    return standings


async def _standing(request: Request, session: AsyncSession, runtime: Runtime, me: str) -> Standing:
    """The account's standing: kept, unless its mark moved or its time passed."""
    recent = runtime.settings.invitation_seconds
    version = await presence.panel_version(account_store(request), me)
    kept = _standings(request)
    now = datetime.now(UTC)
    standing = kept.current(me, version=version, now=now)
    if standing is not None:
        return standing
    found_me = await service.someone(session, me)
    if found_me is None:
        raise FriendError("no_account", "Your account is gone; sign in again.", status=401)
    circle = await service.circle(session, me=me)
    incoming, sent = await service.invitations(session, me=me, recent_seconds=recent)
    until = min(
        [
            *(invitation.expires_at for invitation, _ in incoming),
            *(invitation.created_at + timedelta(seconds=recent) for invitation, _ in sent),
        ],
        default=now + timedelta(days=1),
    )
    standing = Standing(
        version=version, me=found_me, circle=circle, incoming=incoming, sent=sent, until=until
    )
    kept.put(me, standing)
    return standing


async def _state(
    request: Request, session: AsyncSession, runtime: Runtime, me: str
) -> FriendsState:
    settings = runtime.settings
    standing = await _standing(request, session, runtime, me)
    circle = standing.circle
    places = await presence.whereabouts(
        account_store(request), [me, *(friend.id for friend in circle.friends)]
    )
    invited_me = []
    for invitation, host in standing.incoming:
        room = (
            None
            if invitation.room_code is None
            else await runtime.service.load(invitation.room_code)
        )
        waiting = room is not None and room.status == "waiting"
        invited_me.append(
            InvitationToMe(
                id=invitation.id,
                host=PlayerFound(id=host.id, name=host.name),
                room_name=room.options.room_name if waiting and room else None,
                expires_at=invitation.expires_at,
            )
        )
    state = FriendsState(
        me=PlayerFound(id=standing.me.id, name=standing.me.name),
        friends=[
            Friend(
                id=friend.id,
                name=friend.name,
                player_id=friend.player_id or "",
                where=where_now(places[friend.id], places[me]),
            )
            for friend in circle.friends
        ],
        asked_me=[PlayerFound(id=one.id, name=one.name) for one in circle.asked_me],
        asked=[PlayerFound(id=one.id, name=one.name) for one in circle.asked],
        blocked=[PlayerFound(id=one.id, name=one.name) for one in circle.blocked],
        invited_me=invited_me,
        invited=[
            InvitationSent(
                id=invitation.id,
                guest=PlayerFound(id=guest.id, name=guest.name),
                status=service.status_now(invitation),
                expires_at=invitation.expires_at,
            )
            for invitation, guest in standing.sent
        ],
        poll_seconds=settings.friends_poll_seconds,
    )
    state.version = hashlib.sha256(state.model_dump_json().encode()).hexdigest()[:24]
    return state


@router.get("")
async def read_friends(
    me: Me, session: SessionDep, runtime: RuntimeDep, request: Request
) -> FriendsState:
    """The panel, without saying where you are."""
    return await _state(request, session, runtime, me.account_id)


@router.post("/presence")
async def say_where(
    body: Here, me: Me, session: SessionDep, runtime: RuntimeDep, request: Request
) -> FriendsState | FriendsUnchanged:
    """Say you are in the lobby (``{}``) or at a table you hold a seat at, for
    ``friends_presence_seconds``; answered with the panel, or ``unchanged`` when it is the
    one ``seen`` names."""
    store = account_store(request)
    seconds = runtime.settings.friends_presence_seconds
    if body.code is None and body.token is None:
        await presence.say_in_lobby(store, me.account_id, seconds=seconds)
    elif body.code is None or body.token is None:
        raise FriendError(
            "code_and_token", "Send a table's code with your seat's token.", status=422
        )
    else:
        room = await _seated(runtime, body.code, body.token)
        await presence.say_at_table(
            store,
            me.account_id,
            code=room.code,
            visibility=room.options.visibility,
            seconds=seconds,
        )
    state = await _state(request, session, runtime, me.account_id)
    if body.seen is not None and body.seen == state.version:
        return FriendsUnchanged(version=state.version, poll_seconds=state.poll_seconds)
    return state


@router.get("/find")
async def find_player(
    name: Annotated[str, Query(min_length=1, max_length=60)],
    me: Me,
    session: SessionDep,
    runtime: RuntimeDep,
    request: Request,
) -> PlayerFound:
    """The player whose display name is exactly ``name``."""
    await _count_lookup(runtime, request, me.account_id)
    found = await service.find_by_name(session, me=me.account_id, name=name)
    return PlayerFound(id=found.id, name=found.name)


@router.get("/link")
async def my_link(me: Me, session: SessionDep) -> dict[str, str]:
    """Your friend link's code: ``/friend/<code>`` finds you."""
    return {"code": await service.link_code(session, me=me.account_id)}


@router.get("/links/{code}")
async def follow_link(
    code: Annotated[str, Path(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")],
    me: Me,
    session: SessionDep,
    runtime: RuntimeDep,
    request: Request,
) -> PlayerFound:
    """The player whose friend link this is."""
    await _count_lookup(runtime, request, me.account_id)
    found = await service.find_by_link(session, me=me.account_id, code=code)
    return PlayerFound(id=found.id, name=found.name)


@router.post("/requests", status_code=status.HTTP_201_CREATED)
async def ask_friend(
    body: AskFriend, me: Me, session: SessionDep, runtime: RuntimeDep, request: Request
) -> Asked:
    settings = runtime.settings
    await _count(
        runtime,
        request,
        me.account_id,
        what="friend_requests",
        per_account=settings.friend_requests_per_minute,
        per_address=settings.friend_requests_per_address,
    )
    made = await service.ask(
        session, me=me.account_id, other=body.id, max_friends=settings.max_friends
    )
    await presence.panel_changed(account_store(request), me.account_id, body.id)
    return Asked(friends=made)


@router.post("/requests/{account}/accept", status_code=status.HTTP_204_NO_CONTENT)
async def accept_friend(
    account: AccountInPath, me: Me, session: SessionDep, runtime: RuntimeDep, request: Request
) -> Response:
    await service.accept(
        session, me=me.account_id, other=account, max_friends=runtime.settings.max_friends
    )
    await presence.panel_changed(account_store(request), me.account_id, account)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete("/{account}", status_code=status.HTTP_204_NO_CONTENT)
async def part_with(
    account: AccountInPath, me: Me, session: SessionDep, request: Request
) -> Response:
    """Remove a friend, decline their request, or withdraw yours."""
    await service.part(session, me=me.account_id, other=account)
    await presence.panel_changed(account_store(request), me.account_id, account)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/blocks", status_code=status.HTTP_204_NO_CONTENT)
async def block_player(body: AskFriend, me: Me, session: SessionDep, request: Request) -> Response:
    await service.block(session, me=me.account_id, other=body.id)
    await presence.panel_changed(account_store(request), me.account_id, body.id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete("/blocks/{account}", status_code=status.HTTP_204_NO_CONTENT)
async def unblock_player(
    account: AccountInPath, me: Me, session: SessionDep, request: Request
) -> Response:
    await service.unblock(session, me=me.account_id, other=account)
    await presence.panel_changed(account_store(request), me.account_id, account)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/invitations", status_code=status.HTTP_201_CREATED)
async def invite_friend(
    body: Invite, me: Me, session: SessionDep, runtime: RuntimeDep, request: Request
) -> InvitationSent:
    """Invite a friend to the table you sit at, while it waits for players."""
    settings = runtime.settings
    await _count(
        runtime,
        request,
        me.account_id,
        what="invitations",
        per_account=settings.invitations_per_minute,
        per_address=settings.invitations_per_address,
    )
    room = await _seated(runtime, body.code, body.token)
    if room.status != "waiting" or room.occupied() >= len(room.seats):
        raise FriendError("table_not_waiting", "Your table has no open seat to invite to.")
    guest = await service.visible(session, me=me.account_id, other=body.id)
    invitation = await service.invite(
        session,
        host=me.account_id,
        guest=guest.id,
        code=room.code,
        seconds=settings.invitation_seconds,
    )
    await presence.panel_changed(account_store(request), me.account_id, guest.id)
    return InvitationSent(
        id=invitation.id,
        guest=PlayerFound(id=guest.id, name=guest.name),
        status="pending",
        expires_at=invitation.expires_at,
    )


@router.post("/invitations/{invitation}/accept")
async def accept_invitation(
    invitation: InvitationInPath, me: Me, session: SessionDep, request: Request
) -> Accepted:
    """The table's code, to join it by the usual path; the host sees it accepted."""
    code = await _answer(invitation, me, session, request, accept=True)
    return Accepted(code=code)


@router.post("/invitations/{invitation}/decline", status_code=status.HTTP_204_NO_CONTENT)
async def decline_invitation(
    invitation: InvitationInPath, me: Me, session: SessionDep, request: Request
) -> Response:
    await _answer(invitation, me, session, request, accept=False)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


async def _answer(
    invitation: str, me: SignedIn, session: AsyncSession, request: Request, *, accept: bool
) -> str:
    """Answer an invitation addressed to ``me`` and show the host the answer; the table's code."""
    code, host = await service.answer(
        session, me=me.account_id, invitation_id=invitation, accept=accept
    )
    await presence.panel_changed(account_store(request), me.account_id, host)
    return code
