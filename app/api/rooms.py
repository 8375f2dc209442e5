"""``/api/rooms``: create, list, look up, join; and the host's bots, seats, options, start."""

from __future__ import annotations

from fastapi import APIRouter, Request, status

from app.api.deps import (
    CountedAttempt,
    HostToken,
    RoomCode,
    RuntimeDep,
    ServiceDep,
    count_attempt,
)
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
from app.rooms.errors import room_not_found
from app.rooms.model import RoomOptions
from app.rooms.public import RoomPublic, room_public

router = APIRouter(prefix="/api/rooms", tags=["rooms"])


@router.post("", status_code=status.HTTP_201_CREATED)
async def create_room(body: RoomCreate, service: ServiceDep) -> RoomCreated:
    options = RoomOptions(
        room_name=body.room_name or f"{body.name}'s table",
        rules=body.rules,
        draft=body.draft,
        seats=body.seats,
        visibility=body.visibility,
        turn_seconds=body.turn_seconds,
        rounds=body.rounds,
    )
    player_id = None if body.player_id is None else str(body.player_id)
    room, token = await service.create(name=body.name, player_id=player_id, options=options)
    return RoomCreated(code=room.code, seat=room.host, token=token)


@router.get("")
async def list_rooms(service: ServiceDep) -> list[RoomListItem]:
    """Public rooms waiting for players."""
    items = []
    for code in await service.store.listed_rooms():
        room = await service.load(code)
        if room is None:
            await service.store.forget(code)
            continue
        if not room.listed():
            continue
        host = room.seats[room.host]
        items.append(
            RoomListItem(
                code=room.code,
                room_name=room.options.room_name,
                rules=room.options.rules,
                draft=room.options.draft,
                seats=room.options.seats,
                open_seats=room.options.seats - room.occupied(),
                turn_seconds=room.options.turn_seconds,
                rounds=room.options.rounds,
                host_name=host.name if host is not None else "",
            )
        )
    return items


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
async def join_room(code: RoomCode, body: JoinRequest, service: ServiceDep) -> SeatGranted:
    player_id = None if body.player_id is None else str(body.player_id)
    seat, token = await service.join(code, name=body.name, player_id=player_id)
    return SeatGranted(seat=seat, token=token)


@router.patch("/{code}")
async def change_room(
    code: RoomCode, body: RoomUpdate, service: ServiceDep, token: HostToken
) -> RoomPublic:
    changes = body.model_dump(exclude_unset=True)
    return room_public(await service.change_options(code, token=token, changes=changes))


@router.post("/{code}/bots", status_code=status.HTTP_201_CREATED)
async def add_bot(
    code: RoomCode, body: BotRequest, service: ServiceDep, token: HostToken
) -> BotAdded:
    return BotAdded(seat=await service.add_bot(code, token=token, level=body.level))


@router.delete("/{code}/bots/{seat}")
async def remove_bot(
    code: RoomCode, seat: int, service: ServiceDep, token: HostToken
) -> RoomPublic:
    return room_public(await service.remove_seat(code, token=token, seat=seat, ai=True))


@router.delete("/{code}/players/{seat}")
async def remove_player(
    code: RoomCode, seat: int, service: ServiceDep, token: HostToken
) -> RoomPublic:
    """Remove a person waiting for the start (their token stops working)."""
    return room_public(await service.remove_seat(code, token=token, seat=seat, ai=False))


@router.post("/{code}/start")
async def start_game(code: RoomCode, service: ServiceDep, token: HostToken) -> RoomPublic:
    return room_public(await service.start(code, token=token))


@router.post("/{code}/rematch")
async def rematch(code: RoomCode, service: ServiceDep, token: HostToken) -> RoomPublic:
    """A new game in the same room with the same seats, once the last one is over."""
    return room_public(await service.rematch(code, token=token))
