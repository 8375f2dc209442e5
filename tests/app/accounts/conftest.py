"""An app with accounts for the tests here: its sessions in memory, then on a real Redis;
its accounts in a SQLite file migrated to the latest revision."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from app.db.session import create_engine, create_session_factory
from app.main import create_app
from app.turns.database import DatabaseTurnArchive
from tests.app.accounts.helpers import BASE_URL, AccountsApi
from tests.app.conftest import MakeSettings
from tests.app.db.scratch_databases import emptied, serve_sessions, shared_migrated_database


@pytest.fixture(scope="module")
def accounts_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with shared_migrated_database("sqlite", tmp_path_factory.mktemp("accounts")) as url:
        yield url


@pytest.fixture
async def accounts_api(
    make_settings: MakeSettings, accounts_database: str, tmp_path: Path
) -> AsyncIterator[AccountsApi]:
    engine = create_engine(await emptied(accounts_database))
    sessions = create_session_factory(engine)

    app = create_app(
        make_settings(database_url=accounts_database),
        sessions=sessions,
        turns=DatabaseTurnArchive(sessions),
    )
    serve_sessions(app, sessions)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url=BASE_URL) as client,
    ):
        yield AccountsApi(client=client, app=app, sessions=sessions, transport=transport)
    await engine.dispose()
