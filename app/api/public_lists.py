"""The public lists the lobby pages through, built once and shared by every reader.

A page of ``GET /api/lobby`` or ``GET /api/rooms`` was read from the store on every request
(sorting every game in memory, or 16 bucket reads of ``offset + limit`` entries on Redis): its
cost grew with the page asked for and with the readers. Now each list is rebuilt whole at most
every ``CASH_STASH_LOBBY_CACHE_MS``, one build shared by the readers who arrive meanwhile, and
a page is a slice of it: the same cost whatever the page, the store read once per period
however many read."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from app.matchmaking.running import Lobby
from app.store.base import RoomStore

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class LiveList:
    """Every public game in play, the most recently active first."""

    listings: list[str]
    """Each game's ``LiveGame`` JSON."""
    live_total: int
    """How many public games are in play (more than ``listings`` past the furthest page)."""
    playing: int
    """Games in play, public or not."""
    online: int
    """Players connected, over every process."""


@dataclass(frozen=True, slots=True)
class RoomList:
    """Every public room waiting for players, the most recently changed first."""

    listings: list[str]
    """Each room's ``RoomListItem`` JSON."""
    total: int


class Shared(Generic[T]):
    """A value ``build`` makes, made again once it is ``seconds`` old and someone asks."""

    def __init__(
        self,
        build: Callable[[], Awaitable[T]],
        *,
        seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._build = build
        self._seconds = seconds
        self._clock = clock
        self._value: tuple[float, T] | None = None
        self._building: asyncio.Future[T] | None = None
        self.builds = 0
        """How many times it was built."""

    async def get(self) -> T:
        if self._value is not None and self._clock() - self._value[0] < self._seconds:
            return self._value[1]
        if self._building is None:
            self._building = asyncio.ensure_future(self._rebuild())
        # Shielded: a reader that goes away does not cancel the build the others wait for.
        return await asyncio.shield(self._building)

    async def _rebuild(self) -> T:
        try:
            started = self._clock()
            value = await self._build()
            self.builds += 1
            self._value = (started, value)
            return value
        finally:
            self._building = None


class PublicLists:
    """``live``: the games to watch (``GET /api/lobby``); ``rooms``: the rooms to join
    (``GET /api/rooms``). Each holds as many entries as the furthest page can reach."""

    def __init__(
        self,
        *,
        store: RoomStore,
        lobby: Lobby,
        seconds: float,
        live_entries: int,
        room_entries: int,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        async def live() -> LiveList:
            listings, live_total, playing = await lobby.live_games(offset=0, limit=live_entries)
            return LiveList(
                listings=listings,
                live_total=live_total,
                playing=playing,
                online=await lobby.online(),
            )

        async def rooms() -> RoomList:
            listings, total = await store.listed_rooms(offset=0, limit=room_entries)
            return RoomList(listings=listings, total=total)

        self.live = Shared(live, seconds=seconds, clock=clock)
        self.rooms = Shared(rooms, seconds=seconds, clock=clock)
