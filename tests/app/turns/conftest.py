"""Turn-based games on a room store (memory, then a real Redis) and a database (SQLite, then
a real Postgres), with a clock the test moves."""

from __future__ import annotations

import random
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import pytest
import redis
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

import engine
from app.rooms.ai import AiRunner
from app.rooms.credentials import hash_token
from app.rooms.model import Room, RoomOptions
from app.rooms.service import RoomService
from app.rooms.tables import Tables
from app.runtime import store_for
from app.settings import Settings
from app.store.base import RoomStore
from app.turns.database import DatabaseTurnArchive
from app.turns.keeper import TurnKeeper
from tests.app.clock import Clock
from tests.app.conftest import MakeSettings, base_settings
from tests.app.db.scratch_databases import emptied, sessions_on
from tests.app.live import ListRecorder
from tests.redis_cluster import RedisCluster

MOVE_SECONDS = 3600
PARK_AFTER = 300.0


@dataclass
class Hub:
    """Where a keeper's wakes send the rooms they commit."""

    rooms: list[Room] = field(default_factory=list)

    def committed(self, room: Room) -> None:
        self.rooms.append(room)


@dataclass
class Process:
    """One server process's room service and turn-based keeper."""

    service: RoomService
    keeper: TurnKeeper
    hub: Hub


@dataclass
class World:
    """A store and a database shared by any number of processes (``process``)."""

    settings: Settings
    sessions: async_sessionmaker[AsyncSession]
    clock: Clock
    recorder: ListRecorder = field(default_factory=ListRecorder)
    stores: list[RoomStore] = field(default_factory=list)
    shared_store: RoomStore | None = None
    """The memory store, which is one process's: every process of the test shares it."""

    @property
    def archive(self) -> DatabaseTurnArchive:
        return DatabaseTurnArchive(self.sessions)

    async def process(self, *, archived: bool = True) -> Process:
        """A fresh process on the same store and database (``archived`` False: one that
        writes nothing to the database, as a process killed before its writes)."""
        if self.settings.redis_url:
            store = store_for(self.settings)
            await store.start()
            self.stores.append(store)
        else:
            if self.shared_store is None:
                self.shared_store = store_for(self.settings)
            store = self.shared_store
        archive = self.archive
        service = RoomService(
            store=store,
            settings=self.settings,
            recorder=self.recorder,
            ai=AiRunner(0),
            turns=archive if archived else None,
        )
        return Process(service, TurnKeeper(service, archive), Hub())

    def flush_store(self) -> None:
        """The store lost whole: every key of the test's prefix deleted from Redis (the keys
        other tests and workers keep in the same database stay), or the memory store dropped."""
        if self.settings.redis_url:
            with redis.Redis.from_url(self.settings.redis_url) as client:
                keys = list(client.scan_iter(f"{self.settings.redis_prefix}*"))
                if keys:
                    client.delete(*keys)
        else:
            self.shared_store = None


@asynccontextmanager
async def world_on(
    settings: Settings, shared_url: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[World]:
    """A ``World`` with ``settings`` on the emptied database; its processes' stores closed
    after."""
    async with sessions_on(await emptied(shared_url)) as sessions:
        made = World(settings, sessions, Clock(monkeypatch))
        try:
            yield made
        finally:
            for store in made.stores:
                await store.close()


@pytest.fixture
async def world(
    make_settings: MakeSettings, shared_url: str, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[World]:
    settings = make_settings(park_after_seconds=PARK_AFTER, turn_games_per_player=3)
    async with world_on(settings, shared_url, monkeypatch) as made:
        yield made


@pytest.fixture
async def cluster_world(
    redis_cluster: RedisCluster,
    cluster_prefix: str,
    shared_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[World]:
    """``world`` on the session's Redis Cluster."""
    settings = base_settings(
        redis_url=redis_cluster.url,
        redis_prefix=cluster_prefix,
        redis_cluster=True,
        park_after_seconds=PARK_AFTER,
    )
    async with world_on(settings, shared_url, monkeypatch) as made:
        yield made


def guest(name: str) -> str:
    """A player id (a guest id) per name, the same in every test."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"turns/{name}"))


@dataclass(frozen=True)
class Table:
    code: str
    tokens: list[str]
    """Each seat's token, by seat."""


async def turn_table(
    service: RoomService, *, host: str = "Ann", guests: tuple[str, ...] = ("Bea",)
) -> Table:
    """A turn-based table (simple rules, an hour to move) its people sat at and dealt."""
    options = RoomOptions(
        room_name="Slow",
        rules="simple",
        seats=1 + len(guests),
        mode="turn",
        move_seconds=MOVE_SECONDS,
    )
    room, token = await Tables(service).create(name=host, player_id=guest(host), options=options)
    tokens = [token]
    for name in guests:
        _, _, seat_token = await Tables(service).join(room.code, name=name, player_id=guest(name))
        tokens.append(seat_token)
    await Tables(service).start(room.code, token=token)
    return Table(room.code, tokens)


async def move(
    service: RoomService, table: Table, rng: random.Random, *, version: int | None = None
) -> Room:
    """The seat to act plays a legal move (chosen by ``rng``), as of ``version`` (the
    room's own by default)."""
    room = await service.load(table.code)
    assert room is not None
    return await act_in(service, table, room, rng, version=version)


async def act_in(
    service: RoomService,
    table: Table,
    room: Room,
    rng: random.Random,
    *,
    version: int | None = None,
) -> Room:
    """The seat to act in ``room`` (as a client last saw it) sends a legal move, chosen by
    ``rng``, as of ``version`` (the room's by default)."""
    assert room.game is not None
    seat = room.game.to_act[0]
    legal = [a for a in engine.legal_actions(room.engine_state()) if a["seat"] == seat]
    acted = await service.act(
        table.code,
        token_hash=hash_token(table.tokens[seat]),
        ref=uuid.uuid4().hex,
        version=room.version if version is None else version,
        action=rng.choice(legal),
    )
    return acted.room


async def play_to_the_end(service: RoomService, table: Table, rng: random.Random) -> Room:
    room = await service.load(table.code)
    assert room is not None
    for _ in range(5000):
        if room.status != "playing":
            return room
        room = await move(service, table, rng)
    raise AssertionError("the game never ended")
