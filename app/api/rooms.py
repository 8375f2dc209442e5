"""``/api/rooms``: create, list, look up, join; and the host's bots, seats, options, start."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request, Response, status

from app.accounts.repository import account_players
from app.accounts.sessions import SignedInDep
from app.api.deps import (
    CountedAttempt,
    CountedCreation,
    HostToken,
    HubDep,
    RoomCode,
    RuntimeDep,
    ServiceDep,
    TablesDep,
    client_address,
    count_attempt,
)
from app.api.errors import Refusal
from app.api.public_lists import PublicLists
from app.api.schemas import (
    BotAdded,
    BotRequest,
    JoinRequest,
    RoomCreate,
    RoomCreated,
    RoomListItem,
    RoomUpdate,
    SeatGranted,
)
from app.db.repository import MAX_OFFSET
from app.db.session import SessionDep
from app.rooms.errors import room_not_found
from app.rooms.model import MAX_SEATS, Room, RoomOptions
from app.rooms.public import RoomPublic, room_public
from app.ws.hub import Hub

LIST_PAGE = 50
"""The most rooms one page of ``GET /api/rooms`` holds."""


def _refusals(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {status: {"model": Refusal} for status in statuses}


router = APIRouter(prefix="/api/rooms", tags=["rooms"], responses=_refusals(404, 409, 429))
_HOST_ONLY = _refusals(401, 403)

Seat = Annotated[int, Path(ge=0, le=MAX_SEATS - 1)]


@router.post("", status_code=status.HTTP_201_CREATED, dependencies=[CountedCreation])
async def create_room(
    body: RoomCreate, tables: TablesDep, hub: HubDep, request: Request
) -> RoomCreated:
    """A new room. Refused past ``CASH_STASH_CREATE_LIMIT`` rooms a minute from one address
    (``429 too_many_rooms_created``), or while ``CASH_STASH_MAX_WAITING_ROOMS`` rooms wait to
    start (``429 too_many_rooms``)."""
    options = RoomOptions(
        room_name=body.room_name or f"{body.name}'s table",
        rules=body.rules,
        draft=body.draft,
        seats=body.seats,
        visibility=body.visibility,
        mode=body.mode,
        turn_seconds=body.turn_seconds,
        move_seconds=body.move_seconds,
        rounds=body.rounds,
        hints=body.hints,
        spectators=body.visibility == "public" if body.spectators is None else body.spectators,
    )
    player_id = None if body.player_id is None else str(body.player_id)
    room, token = await tables.create(
        name=body.name, player_id=player_id, options=options, address=client_address(request)
    )
    hub.committed(room)
    return RoomCreated(code=room.code, seat=room.host, token=token)


@router.get("", response_model=list[RoomListItem])
async def list_rooms(
    request: Request,
    limit: Annotated[int, Query(ge=1, le=LIST_PAGE)] = LIST_PAGE,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET)] = 0,
) -> Response:
    """Public rooms waiting for players, the most recently changed first, a page at a time;
    ``X-Total-Count`` says how many there are in all. Pages are cut from one list shared by
    every reader (``app/api/public_lists.py``)."""
    lists: PublicLists = request.app.state.lists
    rooms = await lists.rooms.get()
    # Each listing is a RoomListItem's JSON as the room's last commit stored it: the page is
    # joined, not decoded and encoded again.
    return Response(
        f"[{','.join(rooms.listings[offset : offset + limit])}]",
        media_type="application/json",
        headers={"X-Total-Count": str(rooms.total)},
    )


@router.get("/{code}")
async def get_room(
    code: RoomCode, service: ServiceDep, request: Request, runtime: RuntimeDep
) -> RoomPublic:
    room = await service.load(code)
    if room is None:
        # Misses count as join attempts, so codes cannot be guessed by looking them up.
        await count_attempt(request, runtime)
        raise room_not_found()
    return room_public(room)


@router.post("/{code}/join", dependencies=[CountedAttempt])
async def join_room(
    code: RoomCode, body: JoinRequest, tables: TablesDep, hub: HubDep
) -> SeatGranted:
    player_id = None if body.player_id is None else str(body.player_id)
    room, seat, token = await tables.join(code, name=body.name, player_id=player_id)
    hub.committed(room)
    return SeatGranted(seat=seat, token=token)


@router.post(
    "/{code}/device",
    dependencies=[CountedAttempt],
    responses=_refusals(status.HTTP_401_UNAUTHORIZED, status.HTTP_403_FORBIDDEN),
)
async def open_on_device(
    code: RoomCode, tables: TablesDep, hub: HubDep, session: SessionDep, signed: SignedInDep
) -> SeatGranted:
    """This device's own token for the seat of a person whose guest plays for the account it
    is signed in to: a table begun on a computer opened on a phone (from a push notification,
    a link, the lobby). Counted as a join attempt, so codes cannot be tried this way either."""
    players = await account_players(session, account_id=signed.account_id)
    room, seat, token = await tables.open_on_device(code, owns=players.plays)
    hub.committed(room)
    return SeatGranted(seat=seat, token=token)


@router.patch("/{code}", responses=_HOST_ONLY)
async def change_room(
    code: RoomCode, body: RoomUpdate, tables: TablesDep, hub: HubDep, token: HostToken
) -> RoomPublic:
    changes = body.model_dump(exclude_unset=True)
    return _handed(hub, await tables.change_options(code, token=token, changes=changes))


@router.post("/{code}/bots", status_code=status.HTTP_201_CREATED, responses=_HOST_ONLY)
async def add_bot(
    code: RoomCode, body: BotRequest, tables: TablesDep, hub: HubDep, token: HostToken
) -> BotAdded:
    room, seat = await tables.add_bot(code, token=token, level=body.level)
    hub.committed(room)
    return BotAdded(seat=seat)


@router.delete("/{code}/bots/{seat}", responses=_HOST_ONLY)
async def remove_bot(
    code: RoomCode, seat: Seat, tables: TablesDep, hub: HubDep, token: HostToken
) -> RoomPublic:
    return _handed(hub, await tables.remove_seat(code, token=token, seat=seat, ai=True))


@router.delete("/{code}/players/{seat}", responses=_HOST_ONLY)
async def remove_player(
    code: RoomCode, seat: Seat, tables: TablesDep, hub: HubDep, token: HostToken
) -> RoomPublic:
    """Remove a person waiting for the start (their token stops working)."""
    return _handed(hub, await tables.remove_seat(code, token=token, seat=seat, ai=False))


@router.post("/{code}/start", responses=_HOST_ONLY)
async def start_game(
    code: RoomCode, tables: TablesDep, hub: HubDep, token: HostToken, request: Request
) -> RoomPublic:
    """Deal the game. Refused ``429 too_many_games`` past ``CASH_STASH_MAX_GAMES_IN_PLAY``
    games in play, or ``CASH_STASH_GAMES_PER_ADDRESS`` started from one address."""
    dealt = await tables.start(code, token=token, address=client_address(request))
    return _handed(hub, dealt)


@router.post("/{code}/rematch", responses=_HOST_ONLY)
async def rematch(
    code: RoomCode, tables: TablesDep, hub: HubDep, token: HostToken, request: Request
) -> RoomPublic:
    """A new game in the same room with the same seats, once the last one is over (within
    the same limits as a start)."""
    dealt = await tables.rematch(code, token=token, address=client_address(request))
    return _handed(hub, dealt)


def _handed(hub: Hub, room: Room) -> RoomPublic:
    """``room``, just committed, handed to the hub (every seat connected here gets it now),
    and described to the host."""
    hub.committed(room)
    return room_public(room)
