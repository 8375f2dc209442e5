"""A database outage delays recording a finished game; it never loses it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from finished_games import person, scored_game
from scratch_databases import KINDS, migrated_database
from sqlalchemy import exc
from sqlalchemy.engine import make_url

from app.db import repository
from app.db.migrate import upgrade
from app.db.recorder import DatabaseRecorder
from app.db.retry import Backoff, is_transient, retry_with_backoff
from app.db.session import create_engine, create_session_factory
from tests.ports import free_port

FAST = Backoff(first_delay=0.01, max_delay=0.05, attempts=None)


@dataclass
class Outage:
    """A database that cannot be reached until ``end`` brings it back."""

    url: str
    end: Callable[[], Awaitable[None]]
    failures: list[BaseException] = field(default_factory=list)
    failed: asyncio.Event = field(default_factory=asyncio.Event)

    def on_retry(self, attempt: int, error: BaseException) -> None:
        self.failures.append(error)
        if attempt >= 2:
            self.failed.set()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()


@contextlib.asynccontextmanager
async def sqlite_outage(tmp_path: Path) -> AsyncIterator[Outage]:
    # The database file's folder does not exist yet: every connection fails until it does.
    url = f"sqlite+aiosqlite:///{tmp_path / 'not-mounted-yet' / 'games.db'}"

    async def end() -> None:
        (tmp_path / "not-mounted-yet").mkdir()
        await asyncio.to_thread(upgrade, url)

    yield Outage(url=url, end=end)


@contextlib.asynccontextmanager
async def postgres_outage(tmp_path: Path) -> AsyncIterator[Outage]:
    # The recorder reaches Postgres through a port where nothing listens (connection refused)
    # until a forwarding proxy starts there.
    async with migrated_database("postgres", tmp_path) as real_url:
        real = make_url(real_url)
        port = free_port()
        servers: list[asyncio.Server] = []

        async def forward(client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
            server_r, server_w = await asyncio.open_connection(real.host, real.port or 5432)
            await asyncio.gather(_pipe(client_r, server_w), _pipe(server_r, client_w))

        async def end() -> None:
            servers.append(await asyncio.start_server(forward, "127.0.0.1", port))

        try:
            yield Outage(
                url=real.set(host="127.0.0.1", port=port).render_as_string(hide_password=False),
                end=end,
            )
        finally:
            for server in servers:
                server.close()


@pytest.fixture(params=KINDS)
async def outage(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Outage]:
    down = sqlite_outage if request.param == "sqlite" else postgres_outage
    async with down(tmp_path) as outage:
        yield outage


async def stored_games(url: str, game_id: str) -> int:
    engine = create_engine(url)
    try:
        async with create_session_factory(engine)() as session:
            return int(await repository.get_game(session, game_id=game_id) is not None)
    finally:
        await engine.dispose()


async def test_a_recorder_waits_out_an_outage_and_then_stores_the_game(outage: Outage) -> None:
    game = scored_game([person(0, "Ann"), person(1, "Bea")], [9, 4])
    engine = create_engine(outage.url)
    recorder = DatabaseRecorder(
        create_session_factory(engine), backoff=FAST, on_retry=outage.on_retry
    )
    try:
        recording = asyncio.create_task(recorder.record(game))
        await asyncio.wait_for(outage.failed.wait(), timeout=10)
        assert not recording.done()
        assert all(is_transient(error) for error in outage.failures)

        await outage.end()
        await asyncio.wait_for(recording, timeout=10)
    finally:
        await engine.dispose()

    assert await stored_games(outage.url, game.game_id) == 1


async def test_a_recorder_that_gives_up_raises_so_the_room_calls_again(outage: Outage) -> None:
    game = scored_game([person(0, "Ann"), person(1, "Bea")], [9, 4])
    engine = create_engine(outage.url)
    recorder = DatabaseRecorder(
        create_session_factory(engine),
        backoff=Backoff(first_delay=0.01, max_delay=0.02, attempts=3),
        on_retry=outage.on_retry,
    )
    try:
        with pytest.raises((exc.DBAPIError, OSError)):
            await recorder.record(game)
        assert len(outage.failures) == 2

        await outage.end()
        await recorder.record(game)
    finally:
        await engine.dispose()

    assert await stored_games(outage.url, game.game_id) == 1


async def test_a_mistake_is_not_retried() -> None:
    calls = 0

    async def broken() -> None:
        nonlocal calls
        calls += 1
        raise exc.IntegrityError("INSERT …", {}, ValueError("duplicate key"))

    with pytest.raises(exc.IntegrityError):
        await retry_with_backoff(broken, backoff=FAST)
    assert calls == 1


def test_backoff_grows_to_its_ceiling() -> None:
    backoff = Backoff(first_delay=1.0, factor=2.0, max_delay=5.0)
    delays = [backoff.delay(attempt) for attempt in range(1, 6)]
    ceilings = [1.0, 2.0, 4.0, 5.0, 5.0]
    assert all(c / 2 <= d <= c for d, c in zip(delays, ceilings, strict=True))
