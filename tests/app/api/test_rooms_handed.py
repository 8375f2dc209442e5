"""A seat taken in the lobby reaches the hub the way a move does: the use case returns the room
it committed and its route hands that room to the hub (``Hub.committed``), not left to the
store's announcement (issue 40)."""

from __future__ import annotations

from typing import cast

from app.api import rooms as routes
from app.api.schemas import BotRequest, JoinRequest
from app.rooms.ai import AiRunner
from app.rooms.model import Room, RoomOptions
from app.rooms.service import RoomService
from app.rooms.tables import Tables
from app.store.memory import MemoryRoomStore
from app.ws.hub import Hub
from tests.app.conftest import base_settings
from tests.app.live import ListRecorder


class HandedRooms:
    """Stands in for the hub: the rooms handed to it, in order."""

    def __init__(self) -> None:
        self.rooms: list[Room] = []

    def committed(self, room: Room) -> None:
        self.rooms.append(room)


async def _waiting_room() -> tuple[RoomService, Tables, str, str]:
    service = RoomService(
        store=MemoryRoomStore(), settings=base_settings(), recorder=ListRecorder(), ai=AiRunner(0)
    )
    tables = Tables(service)
    room, host = await tables.create(
        name="Ann", player_id=None, options=RoomOptions(room_name="Table", seats=3)
    )
    return service, tables, room.code, host


async def test_a_join_hands_the_room_with_the_new_seat_to_the_hub() -> None:
    service, tables, code, _ = await _waiting_room()
    hub = HandedRooms()
    granted = await routes.join_room(code, JoinRequest(name="Bob"), tables, cast(Hub, hub))
    stored = await service.load(code)
    assert stored is not None
    assert [room.version for room in hub.rooms] == [stored.version]
    seat = hub.rooms[0].seats[granted.seat]
    assert seat is not None and seat.name == "Bob"


async def test_a_bot_added_hands_the_room_with_its_seat_to_the_hub() -> None:
    service, tables, code, host = await _waiting_room()
    hub = HandedRooms()
    added = await routes.add_bot(code, BotRequest(level="easy"), tables, cast(Hub, hub), host)
    stored = await service.load(code)
    assert stored is not None
    assert [room.version for room in hub.rooms] == [stored.version]
    seat = hub.rooms[0].seats[added.seat]
    assert seat is not None and seat.level == "easy"
