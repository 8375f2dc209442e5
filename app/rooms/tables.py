"""The lobby's use cases: a room made, its seats taken and given up, its options, its deals;
each within the limits on rooms waiting and games in play, and committed by the room service."""

from __future__ import annotations

import secrets
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from app.rooms import lobby, play
from app.rooms.credentials import hash_token, new_room_code, new_seat_token
from app.rooms.errors import RoomError
from app.rooms.model import MAX_DEVICES, AiLevel, Room, RoomOptions, Seat
from app.rooms.service import GAMES_IN_PLAY, RoomService
from app.turns.limit import check_turn_seat


class Tables:
    """The lobby's use cases over the room service: each returns the room it committed, for
    its caller to hand to the hub (``Hub.committed``)."""

    def __init__(self, rooms: RoomService) -> None:
        self.rooms = rooms
        """The room service each use case reads and commits through."""

    async def _host_room(self, code: str, token: str) -> Room:
        room = await self.rooms.existing(code)
        seat = room.seat_of(hash_token(token))
        if seat is None:
            raise RoomError("bad_token", "That token does not hold a seat here.", status=401)
        if seat != room.host:
            raise RoomError("not_host", "Only the host can do that.", status=403)
        return room

    async def _host_update(self, code: str, token: str, change: Callable[[Room], Room]) -> Room:
        await self._host_room(code, token)

        def as_host(room: Room) -> Room:
            if room.seat_of(hash_token(token)) != room.host:
                raise RoomError("not_host", "Only the host can do that.", status=403)
            return change(room)

        return await self.rooms.update(code, as_host)

    async def create(
        self,
        *,
        name: str,
        player_id: str | None,
        options: RoomOptions,
        address: str | None = None,
    ) -> tuple[Room, str]:
        """A new room with its creator in seat 0 as host; returns the room and the host's token.

        Refused (``429 too_many_rooms``) while ``max_waiting_rooms`` rooms wait to start, or
        while the client ``address`` (None: not a client's request) has its share of them
        waiting (``waiting_rooms_per_address``)."""
        settings = self.rooms.settings
        await check_turn_seat(
            self.rooms.turns,
            options=options,
            player_id=player_id,
            limit=settings.turn_games_per_player,
        )
        if await self.rooms.store.waiting_rooms() >= settings.max_waiting_rooms:
            raise RoomError(
                "too_many_rooms",
                "Too many rooms are waiting for players; join one or try again later.",
                status=429,
            )
        share = None if address is None else f"waiting:{address}"
        if share is not None and not await self._room_to_spare(
            share, settings.waiting_rooms_per_address, still=lambda room: room.status == "waiting"
        ):
            raise RoomError(
                "too_many_rooms",
                "Your rooms already waiting for players are as many as one address may have; "
                "start one or let one expire.",
                status=429,
            )
        token = new_seat_token()
        host = _person(name, token, player_id)
        while True:
            room = lobby.new_room(code=new_room_code(), options=options, host=host, now=time.time())
            if share is not None:
                await self.rooms.store.hold_place(
                    share, room.code, seconds=self.rooms.ttl_of(room) or 0
                )
            if await self.rooms.commit(room, previous=None):
                return room, token
            if share is not None:
                await self.rooms.store.free_place(share, room.code)

    async def _room_to_spare(self, key: str, limit: int, *, still: Callable[[Room], bool]) -> bool:
        """Whether the rooms held under ``key`` (``RoomStore.places``) are fewer than ``limit``,
        once those no longer ``still`` counted (gone, started, finished) are let go. Rooms
        are read only at the limit, and then at most ``limit`` of them."""
        codes = await self.rooms.store.places(key)
        if len(codes) < limit:
            return True
        counted = 0
        for code in codes:
            room = await self.rooms.load(code)
            if room is None or not still(room):
                await self.rooms.store.free_place(key, code)
            else:
                counted += 1
        return counted < limit

    async def open_room(self, build: Callable[[str], Room], *, address: str | None = None) -> Room:
        """A new room ``build`` makes under a fresh code, such as a table already in play
        (``app.games.practice``): refused (``429 too_many_games``) as ``start`` is, and
        counted as a game the client ``address`` started."""
        await self._check_games_to_spare(address)
        while True:
            room = build(new_room_code())
            if await self.rooms.commit(room, previous=None):
                await self.hold_games(room.code, [address])
                return room

    async def join(self, code: str, *, name: str, player_id: str | None) -> tuple[Room, int, str]:
        """A person sat in the room's first free seat: the room, their seat and its token."""
        token = new_seat_token()
        seat = _person(name, token, player_id)
        taken: list[int] = []
        limit = self.rooms.settings.turn_games_per_player
        options = (await self.rooms.existing(code)).options
        await check_turn_seat(self.rooms.turns, options=options, player_id=player_id, limit=limit)

        def sit(room: Room) -> Room:
            new, index = lobby.take_seat(room, seat)
            taken[:] = [index]
            return new

        room = await self.rooms.update(code, sit)
        return room, taken[0], token

    async def open_on_device(
        self, code: str, *, owns: Callable[[str | None], bool]
    ) -> tuple[Room, int, str]:
        """A token of its own for another device of a seated person: the room, the seat and
        the token. ``owns`` says whether a seat's guest id plays for the account the device
        is signed in to. The seat keeps the token's hash among its devices (``Seat.devices``,
        the one given longest ago dropped past ``MAX_DEVICES``); the seat's own token and
        every other device's still open it. 404 ``no_seat_here`` when no seat is theirs."""
        token = new_seat_token()
        found: list[int] = []

        def hand_over(room: Room) -> Room:
            index = room.seat_of_player(owns)
            if index is None:
                raise RoomError(
                    "no_seat_here", "You have no seat in this room; join it or watch.", status=404
                )
            room = room.clone()
            seat = room.seats[index]
            assert seat is not None
            seat.devices = [*seat.devices, hash_token(token)][-MAX_DEVICES:]
            found[:] = [index]
            return room

        room = await self.rooms.update(code, hand_over, presence=True)
        return room, found[0], token

    async def add_bot(self, code: str, *, token: str, level: AiLevel) -> tuple[Room, int]:
        """An AI player of ``level`` sat in the first free seat: the room and the seat."""
        taken: list[int] = []

        def sit(room: Room) -> Room:
            new, index = lobby.take_seat(room, lobby.bot_seat(room, level))
            taken[:] = [index]
            return new

        room = await self._host_update(code, token, sit)
        return room, taken[0]

    async def remove_seat(self, code: str, *, token: str, seat: int, ai: bool) -> Room:
        return await self._host_update(
            code, token, lambda room: lobby.remove_seat(room, seat, ai=ai)
        )

    async def change_options(self, code: str, *, token: str, changes: dict[str, Any]) -> Room:
        return await self._host_update(
            code, token, lambda room: lobby.change_options(room, changes)
        )

    async def start(self, code: str, *, token: str, address: str | None = None) -> Room:
        def deal(room: Room) -> Room:
            if room.status != "waiting":
                raise RoomError("already_started", "The game in this room has already started.")
            return _deal(room)

        return await self._deal_within_limits(code, token, deal, address=address)

    async def rematch(self, code: str, *, token: str, address: str | None = None) -> Room:
        def deal(room: Room) -> Room:
            if room.status != "finished":
                raise RoomError("not_finished", "A rematch can start once the game is over.")
            return _deal(room)

        return await self._deal_within_limits(code, token, deal, address=address)

    async def games_in_play_at_ceiling(self) -> bool:
        """Whether ``max_games_in_play`` games count as in play over all processes: one count
        in the store, no room read (``_count_toward_ceiling`` says what counts)."""
        counted = await self.rooms.store.count_places(GAMES_IN_PLAY)
        return counted >= self.rooms.settings.max_games_in_play

    async def games_to_spare(self, address: str | None, *, besides: int = 0) -> bool:
        """Whether the client ``address`` (None: not a client's) may have one more game in
        play, ``besides`` others on their way: fewer than ``games_per_address`` of the games
        it started, was seated at by Play now or opened for practice are still in play."""
        if address is None:
            return True
        limit = self.rooms.settings.games_per_address - besides
        return limit > 0 and await self._room_to_spare(_playing(address), limit, still=_in_play)

    async def hold_games(self, code: str, addresses: Iterable[str | None]) -> None:
        """Count the game dealt in room ``code`` as one of each client address's games."""
        for address in set(addresses):
            if address is not None:
                await self.rooms.store.hold_place(
                    _playing(address), code, seconds=self.rooms.settings.room_ttl_seconds
                )

    async def _check_games_to_spare(self, address: str | None) -> None:
        """Refuse (``429 too_many_games``) a new game at the ceiling of games in play, or past
        the client ``address``'s share: games with AI seats take the AI's workers, which
        every room shares."""
        if await self.games_in_play_at_ceiling():
            raise RoomError(
                "too_many_games",
                "Too many games are in play; finish one or try again later.",
                status=429,
            )
        if not await self.games_to_spare(address):
            raise RoomError(
                "too_many_games",
                "Too many games are in play from your address; finish one or try again later.",
                status=429,
            )

    async def _deal_within_limits(
        self, code: str, token: str, deal: Callable[[Room], Room], *, address: str | None
    ) -> Room:
        """Deal a game, unless ``max_games_in_play`` games count as in play over all
        processes, or ``games_per_address`` are in play from the client ``address`` (None:
        not a client's request): ``429 too_many_games``."""
        await self._host_room(code, token)
        await self._check_games_to_spare(address)
        room = await self._host_update(code, token, deal)
        # Held once dealt (a refused deal must not let go of the room's place if it is in
        # play already); two starts at once from one address may both pass the count.
        await self.hold_games(code, [address])
        return room


def _in_play(room: Room) -> bool:
    return room.status == "playing"


def _playing(address: str) -> str:
    """The store's set of games in play from one client address."""
    return f"playing:{address}"


def _person(name: str, token: str, player_id: str | None) -> Seat:
    """A person's seat; not connected until their first WebSocket arrives."""
    return Seat(
        name=name,
        token_hash=hash_token(token),
        player_id=player_id,
        disconnected_at=time.time(),
        unopened=True,
    )


def _deal(room: Room) -> Room:
    """A new game with a fresh secret seed."""
    return play.start(room, seed=secrets.randbits(63), game_id=str(uuid.uuid4()), now=time.time())
