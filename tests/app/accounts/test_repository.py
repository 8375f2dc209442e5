"""Accounts in the database (SQLite and Postgres): one per look-alike name, one per guest."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.accounts.errors import AccountError
from app.accounts.repository import create_account, get_account
from app.db.repository import public_player_id
from app.db.session import create_engine, create_session_factory
from app.text import TextRefused
from tests.app.db.scratch_databases import KINDS, emptied, shared_migrated_database


@pytest.fixture(scope="module", params=KINDS)
def shared_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    with shared_migrated_database(request.param, tmp_path_factory.mktemp("db")) as url:
        yield url


@pytest.fixture
async def sessions(shared_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = create_engine(await emptied(shared_url))
    yield create_session_factory(engine)
    await engine.dispose()


async def test_an_account_takes_over_its_guest(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    guest = str(uuid.uuid4())
    async with sessions() as session:
        made = await create_account(session, name="  Ann  ", guest_id=guest)
        await session.commit()
    async with sessions() as session:
        account = await get_account(session, account_id=made.id)
    assert account is not None
    assert account.name == "Ann"
    assert account.player_id == public_player_id(guest)
    assert account.guest_id == guest
    assert len(account.id) == 32


@pytest.mark.parametrize("look_alike", ["Ann", "ANN", "\uff21\uff4e\uff4e", "Ann\u200b", " a n n "])
async def test_a_name_is_one_account_s_under_the_look_alike_rules(
    sessions: async_sessionmaker[AsyncSession], look_alike: str
) -> None:
    async with sessions() as session:
        await create_account(session, name="Ann", guest_id=uuid.uuid4())
        await session.commit()
    async with sessions() as session:
        if look_alike == " a n n ":
            # Spaces inside a name make another name ("a n n" is not "ann").
            await create_account(session, name=look_alike, guest_id=uuid.uuid4())
            return
        with pytest.raises(AccountError) as refused:
            await create_account(session, name=look_alike, guest_id=uuid.uuid4())
    assert refused.value.code == "name_taken"


async def test_a_guest_makes_one_account_only(sessions: async_sessionmaker[AsyncSession]) -> None:
    guest = uuid.uuid4()
    async with sessions() as session:
        await create_account(session, name="Ann", guest_id=guest)
        await session.commit()
    async with sessions() as session:
        with pytest.raises(AccountError) as refused:
            await create_account(session, name="Bob", guest_id=guest)
    assert refused.value.code == "guest_has_account"


@pytest.mark.parametrize("name", ["", "   ", "\u202eevil", "a\nb", "x" * 31])
async def test_a_name_no_one_may_see_is_refused(
    sessions: async_sessionmaker[AsyncSession], name: str
) -> None:
    async with sessions() as session:
        with pytest.raises(TextRefused):
            await create_account(session, name=name, guest_id=uuid.uuid4())
