"""Accounts and sessions made directly, without a passkey ceremony, for tests of what a
signed-in player may do."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import httpx
from fastapi import FastAPI
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.accounts.repository import create_account
from app.accounts.sessions import SESSION_COOKIE, open_session
from app.accounts.store import AccountStore
from app.db.repository import public_player_id
from app.settings import Settings

BASE_URL = "http://test"


@dataclass
class AccountsApi:
    """A running app, a client of it, and its database's sessions."""

    client: httpx.AsyncClient
    app: FastAPI
    sessions: async_sessionmaker[AsyncSession]
    transport: httpx.ASGITransport

    def device(
        self, base_url: str = BASE_URL, *, cookies: dict[str, str] | None = None
    ) -> httpx.AsyncClient:
        """Another browser: the same app, cookies of its own (``cookies`` to begin with)."""
        return httpx.AsyncClient(transport=self.transport, base_url=base_url, cookies=cookies)

    @property
    def store(self) -> AccountStore:
        store: AccountStore = self.app.state.accounts
        return store

    @property
    def settings(self) -> Settings:
        settings: Settings = self.app.state.runtime.settings
        return settings


@dataclass(frozen=True, slots=True)
class TestAccount:
    """An account a test made, with a session open for it."""

    __test__ = False

    account_id: str
    name: str
    guest_id: str
    """The guest id that made the account (the test knows it; the server keeps its digest)."""
    player_id: str
    """Its public player id."""
    token: str
    """The session cookie's value."""

    @property
    def cookies(self) -> dict[str, str]:
        """The cookie to send (``httpx.AsyncClient(cookies=...)``)."""
        return {SESSION_COOKIE: self.token}


async def make_account(
    sessions: async_sessionmaker[AsyncSession],
    store: AccountStore,
    *,
    name: str,
    guest_id: str | None = None,
    session_seconds: int = 3600,
) -> TestAccount:
    """An account in the database named ``name`` (taking over ``guest_id``, a new guest's by
    default) and a session for it in ``store``."""
    guest = guest_id or str(uuid.uuid4())
    async with sessions() as session:
        account = await create_account(session, name=name, player_id=public_player_id(guest))
        await session.commit()
    token = await open_session(store, account_id=account.id, seconds=session_seconds)
    return TestAccount(
        account_id=account.id,
        name=account.name,
        guest_id=guest,
        player_id=account.player_id,
        token=token,
    )


def app_account_store(app: FastAPI) -> AccountStore:
    """The running app's account store (its lifespan must have started)."""
    store: AccountStore = app.state.accounts
    return store


def same_site(base_url: str = "http://test") -> dict[str, str]:
    """The ``Origin`` header of a page of the site at ``base_url``, which every call that
    changes something on a session's authority must carry."""
    return {"origin": base_url}
