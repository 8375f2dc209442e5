from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from alembic import command
from scratch_databases import KINDS, scratch_database
from sqlalchemy import inspect, text
from sqlalchemy.ext.asyncio import create_async_engine

from app.db.migrate import alembic_config, downgrade, upgrade
from app.db.repository import public_player_id

TABLES = {
    "games",
    "game_seats",
    "players",
    "game_reviews",
    "push_subscriptions",
    "push_keys",
    "accounts",
    "passkeys",
    "friendships",
    "blocks",
    "friend_links",
    "invitations",
    "turn_games",
    "turn_players",
    "account_guests",
}


@pytest.fixture(params=KINDS)
async def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    async with scratch_database(request.param, tmp_path) as url:
        yield url


async def table_names(url: str) -> set[str]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            return set(await connection.run_sync(lambda sync: inspect(sync).get_table_names()))
    finally:
        await engine.dispose()


async def test_migrations_go_up_and_down_from_empty(empty_url: str) -> None:
    assert not await table_names(empty_url) & TABLES

    await asyncio.to_thread(upgrade, empty_url)
    assert await table_names(empty_url) >= TABLES

    await asyncio.to_thread(downgrade, empty_url)
    assert not await table_names(empty_url) & TABLES

    await asyncio.to_thread(upgrade, empty_url)
    assert await table_names(empty_url) >= TABLES


async def test_models_match_the_migrations(empty_url: str) -> None:
    await asyncio.to_thread(upgrade, empty_url)
    # Raises if autogenerate would write a new migration: the models drifted from migrations/.
    await asyncio.to_thread(command.check, alembic_config(empty_url))


async def test_reviews_and_hints_come_and_go_with_revision_0003(empty_url: str) -> None:
    await asyncio.to_thread(upgrade, empty_url, "0002")
    assert "game_reviews" not in await table_names(empty_url)

    await asyncio.to_thread(upgrade, empty_url)
    assert "game_reviews" in await table_names(empty_url)
    assert "hints" in await column_names(empty_url, "game_seats")

    await asyncio.to_thread(downgrade, empty_url, "0002")
    assert "game_reviews" not in await table_names(empty_url)
    assert "hints" not in await column_names(empty_url, "game_seats")


async def test_accounts_and_passkeys_come_and_go_with_revision_0004(empty_url: str) -> None:
    await asyncio.to_thread(upgrade, empty_url, "0003")
    assert not await table_names(empty_url) & {"accounts", "passkeys"}

    await asyncio.to_thread(upgrade, empty_url)
    assert await table_names(empty_url) >= {"accounts", "passkeys"}
    assert "name_key" in await column_names(empty_url, "accounts")

    await asyncio.to_thread(downgrade, empty_url, "0003")
    assert not await table_names(empty_url) & {"accounts", "passkeys"}
    assert "game_reviews" in await table_names(empty_url)


async def column_names(url: str, table: str) -> set[str]:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            columns = await connection.run_sync(lambda sync: inspect(sync).get_columns(table))
            return {column["name"] for column in columns}
    finally:
        await engine.dispose()


async def test_push_subscriptions_come_and_go_with_revision_0006(empty_url: str) -> None:
    await asyncio.to_thread(upgrade, empty_url, "0005")
    assert not await table_names(empty_url) & {"push_subscriptions", "push_keys"}

    await asyncio.to_thread(upgrade, empty_url)
    assert await table_names(empty_url) >= {"push_subscriptions", "push_keys"}

    await asyncio.to_thread(downgrade, empty_url, "0005")
    assert not await table_names(empty_url) & {"push_subscriptions", "push_keys"}
    assert {"game_reviews", "accounts", "friendships"} <= await table_names(empty_url)


async def test_turn_games_come_and_go_with_revision_0007(empty_url: str) -> None:
    await asyncio.to_thread(upgrade, empty_url, "0006")
    assert not await table_names(empty_url) & {"turn_games", "turn_players"}

    await asyncio.to_thread(upgrade, empty_url)
    assert await table_names(empty_url) >= {"turn_games", "turn_players"}

    await asyncio.to_thread(downgrade, empty_url, "0006")
    assert not await table_names(empty_url) & {"turn_games", "turn_players"}
    assert {"push_subscriptions", "invitations"} <= await table_names(empty_url)


async def test_revision_0008_keeps_an_account_s_guest_by_its_digest_only(empty_url: str) -> None:
    await asyncio.to_thread(upgrade, empty_url, "0006")
    guest = "6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b"
    engine = create_async_engine(empty_url)
    try:
        async with engine.begin() as connection:
            await connection.execute(
                text(
                    "INSERT INTO accounts (id, name, name_key, player_id, guest_id, created_at)"
                    " VALUES ('a1', 'Ann', 'ann', :player, :guest, CURRENT_TIMESTAMP)"
                ),
                {"player": public_player_id(guest), "guest": guest},
            )

        await asyncio.to_thread(upgrade, empty_url)
        assert "guest_id" not in await column_names(empty_url, "accounts")
        async with engine.connect() as connection:
            joined = (await connection.execute(text("SELECT * FROM account_guests"))).all()
        assert [(row.player_id, row.account_id) for row in joined] == [
            (public_player_id(guest), "a1")
        ]
        assert guest not in repr(joined)

        await asyncio.to_thread(downgrade, empty_url, "0006")
        assert "account_guests" not in await table_names(empty_url)
        assert "guest_id" in await column_names(empty_url, "accounts")
    finally:
        await engine.dispose()
