"""An app with accounts for the friends tests: presence in memory, then on a real Redis;
accounts and friends in a SQLite file migrated to the latest revision. Each player is a client
of their own, signed in by a session made directly (no passkey)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.session import create_engine, create_session_factory
from app.main import create_app
from app.settings import Settings
from tests.app.accounts.helpers import TestAccount, app_account_store, make_account, same_site
from tests.app.conftest import MakeSettings
from tests.app.db.scratch_databases import emptied, serve_sessions, shared_migrated_database

BASE_URL = "http://test"


@dataclass
class Player:
    """A signed-in player's own client."""

    account: TestAccount
    client: httpx.AsyncClient

    @property
    def id(self) -> str:
        return self.account.account_id

    @property
    def name(self) -> str:
        return self.account.name

    async def call(self, method: str, path: str, **options: Any) -> httpx.Response:
        return await self.client.request(method, path, **options)

    async def ok(self, method: str, path: str, **options: Any) -> Any:
        response = await self.client.request(method, path, **options)
        assert response.is_success, response.text
        return response.json() if response.content else None

    async def panel(self, **here: str) -> dict[str, Any]:
        """Say where this player is (the lobby unless ``code`` and ``token``): the panel."""
        answer: dict[str, Any] = await self.ok("POST", "/api/friends/presence", json=here)
        return answer

    async def befriend(self, other: Player) -> None:
        await self.ok("POST", "/api/friends/requests", json={"id": other.id})
        await other.ok("POST", f"/api/friends/requests/{self.id}/accept")

    async def table(self, **options: Any) -> dict[str, str]:
        """A room this player creates and hosts: its code and the host's token."""
        created = await self.ok("POST", "/api/rooms", json={"name": self.name, **options})
        return {"code": created["code"], "token": created["token"]}


@dataclass
class FriendsApi:
    app: FastAPI
    sessions: async_sessionmaker[AsyncSession]
    transport: httpx.ASGITransport
    players: list[Player] = field(default_factory=list)

    @property
    def settings(self) -> Settings:
        settings: Settings = self.app.state.runtime.settings
        return settings

    async def player(self, name: str) -> Player:
        account = await make_account(self.sessions, app_account_store(self.app), name=name)
        client = httpx.AsyncClient(
            transport=self.transport,
            base_url=BASE_URL,
            cookies=account.cookies,
            headers=same_site(BASE_URL),
        )
        player = Player(account, client)
        self.players.append(player)
        return player

    def stranger(self) -> httpx.AsyncClient:
        """A client with no session."""
        return httpx.AsyncClient(transport=self.transport, base_url=BASE_URL)


@pytest.fixture(scope="module")
def friends_database(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with shared_migrated_database("sqlite", tmp_path_factory.mktemp("friends")) as url:
        yield url


@pytest.fixture
async def friends_api(
    make_settings: MakeSettings, friends_database: str
) -> AsyncIterator[FriendsApi]:
    engine = create_engine(await emptied(friends_database))
    sessions = create_session_factory(engine)

    app = create_app(make_settings(database_url=friends_database))
    serve_sessions(app, sessions)
    api = FriendsApi(app, sessions, httpx.ASGITransport(app=app))
    async with app.router.lifespan_context(app):
        try:
            yield api
        finally:
            for player in api.players:
                await player.client.aclose()
    await engine.dispose()
