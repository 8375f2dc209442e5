"""Issue 44: the lobby's lists are read from the store once per period, however many read
them and whatever page they ask for; a page is a slice of the one list."""

from __future__ import annotations

import asyncio

import pytest
from fastapi.testclient import TestClient

from app.api.public_lists import Shared
from app.main import create_app
from app.matchmaking.store import MemoryMatchStore
from app.store.memory import MemoryRoomStore
from tests.app.conftest import base_settings
from tests.app.live import ListRecorder


class CountingStore(MemoryRoomStore):
    def __init__(self) -> None:
        super().__init__()
        self.listed_reads = 0

    async def listed_rooms(self, *, offset: int, limit: int) -> tuple[list[str], int]:
        self.listed_reads += 1
        return await super().listed_rooms(offset=offset, limit=limit)


def test_every_page_of_the_lobby_comes_from_one_read_of_the_store(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    live_reads: list[int] = []
    read_live_games = MemoryMatchStore.live_games

    async def counted(
        self: MemoryMatchStore, *, offset: int, limit: int, since: float
    ) -> tuple[list[str], int, int]:
        live_reads.append(offset)
        return await read_live_games(self, offset=offset, limit=limit, since=since)

    monkeypatch.setattr(MemoryMatchStore, "live_games", counted)
    store = CountingStore()
    app = create_app(base_settings(lobby_cache_ms=60_000), store=store, recorder=ListRecorder())
    with TestClient(app) as client:
        for page in range(100):
            rooms = client.get("/api/rooms", params={"offset": page * 50, "limit": 50})
            lobby = client.get("/api/lobby", params={"offset": page * 20, "limit": 20})
            assert rooms.status_code == lobby.status_code == 200
    assert store.listed_reads == 1
    assert live_reads == [0]


class Clock:
    def __init__(self) -> None:
        self.now = 10.0

    def __call__(self) -> float:
        return self.now


async def test_a_shared_list_is_built_once_per_period_for_every_reader() -> None:
    clock = Clock()
    started = asyncio.Event()
    release = asyncio.Event()

    async def build() -> list[int]:
        started.set()
        await release.wait()
        return list(range(100))

    shared = Shared(build, seconds=1.0, clock=clock)
    readers = [asyncio.create_task(shared.get()) for _ in range(50)]
    await started.wait()
    readers[0].cancel()  # a reader that leaves does not take the build with it
    release.set()
    lists = await asyncio.gather(*readers[1:])
    assert all(got == list(range(100)) for got in lists)
    clock.now += 0.99
    await shared.get()
    assert shared.builds == 1
    clock.now += 0.01
    await shared.get()
    assert shared.builds == 2
