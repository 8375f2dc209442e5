"""Accounts in the database (SQLite and Postgres): one per look-alike name, one per guest; a
guest id kept by its public digest only; a guest signing in brings its history, once."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.accounts.errors import AccountError
from app.accounts.repository import create_account, get_account, join_guest
from app.db import repository
from app.db.models import Account, AccountGuest, Game, GameSeat, Player
from app.db.recorder import DatabaseRecorder
from app.db.repository import public_player_id
from app.text import TextRefused
from tests.app.db.finished_games import START, bot, person, played_game
from tests.app.db.scratch_databases import emptied, sessions_on


@pytest.fixture
async def sessions(shared_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    async with sessions_on(await emptied(shared_url)) as sessions:
        yield sessions


async def ann_on_two_devices(
    sessions: async_sessionmaker[AsyncSession],
) -> tuple[Account, str, str]:
    """Ann's account, made on her laptop's guest and joined by her phone's: (the account, the
    laptop's guest id, the phone's)."""
    laptop, phone = str(uuid.uuid4()), str(uuid.uuid4())
    async with sessions() as session:
        account = await create_account(session, name="Ann", player_id=public_player_id(laptop))
        assert await join_guest(session, account=account, player_id=public_player_id(phone))
        await session.commit()
    return account, laptop, phone


async def test_an_account_takes_over_its_guest(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    guest = str(uuid.uuid4())
    async with sessions() as session:
        made = await create_account(session, name="  Ann  ", player_id=public_player_id(guest))
        await session.commit()
    async with sessions() as session:
        account = await get_account(session, account_id=made.id)
        joined = await session.get(AccountGuest, public_player_id(guest))
    assert account is not None
    assert account.name == "Ann"
    assert account.player_id == public_player_id(guest)
    assert joined is not None and joined.account_id == account.id
    assert len(account.id) == 32


@pytest.mark.parametrize("look_alike", ["Ann", "ANN", "\uff21\uff4e\uff4e", "Ann\u200b", " a n n "])
async def test_a_name_is_one_account_s_under_the_look_alike_rules(
    sessions: async_sessionmaker[AsyncSession], look_alike: str
) -> None:
    async with sessions() as session:
        await create_account(session, name="Ann", player_id=public_player_id(str(uuid.uuid4())))
        await session.commit()
    async with sessions() as session:
        if look_alike == " a n n ":
            # Spaces inside a name make another name ("a n n" is not "ann").
            await create_account(
                session, name=look_alike, player_id=public_player_id(str(uuid.uuid4()))
            )
            return
        with pytest.raises(AccountError) as refused:
            await create_account(
                session, name=look_alike, player_id=public_player_id(str(uuid.uuid4()))
            )
    assert refused.value.code == "name_taken"


async def test_a_guest_makes_one_account_only(sessions: async_sessionmaker[AsyncSession]) -> None:
    guest = public_player_id(str(uuid.uuid4()))
    async with sessions() as session:
        await create_account(session, name="Ann", player_id=guest)
        await session.commit()
    async with sessions() as session:
        with pytest.raises(AccountError) as refused:
            await create_account(session, name="Bob", player_id=guest)
    assert refused.value.code == "guest_has_account"


@pytest.mark.parametrize("name", ["", "   ", "\u202eevil", "a\nb", "x" * 31])
async def test_a_name_no_one_may_see_is_refused(
    sessions: async_sessionmaker[AsyncSession], name: str
) -> None:
    async with sessions() as session:
        with pytest.raises(TextRefused):
            await create_account(session, name=name, player_id=public_player_id(str(uuid.uuid4())))


async def test_no_column_holds_a_guest_id_in_clear(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    guest, phone = str(uuid.uuid4()), str(uuid.uuid4())
    async with sessions() as session:
        account = await create_account(session, name="Ann", player_id=public_player_id(guest))
        await join_guest(session, account=account, player_id=public_player_id(phone))
        await session.commit()
    async with sessions() as session:
        rows = [
            *(await session.scalars(select(Account))),
            *(await session.scalars(select(AccountGuest))),
        ]
    kept = repr([vars(row) for row in rows])
    assert public_player_id(phone) in kept
    assert guest not in kept and phone not in kept


async def seats_of(session: AsyncSession, player_id: str) -> list[str]:
    return list(
        await session.scalars(select(GameSeat.game_id).where(GameSeat.player_id == player_id))
    )


async def test_a_guest_signing_in_brings_its_games_and_rating_once(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    laptop, phone = str(uuid.uuid4()), str(uuid.uuid4())
    recorder = DatabaseRecorder(sessions)
    on_laptop = played_game([person(0, "Ann", laptop), person(1, "Bea")], seed=1)
    on_phone = [
        played_game([person(0, "Ann", phone), person(1, "Cal")], seed=seed) for seed in (2, 3)
    ]
    for game in (on_laptop, *on_phone):
        await recorder.record(game)
    async with sessions() as session:
        account = await create_account(session, name="Ann", player_id=public_player_id(laptop))
        await session.commit()
        before = {
            guest: await repository.get_player(session, player_id=guest)
            for guest in (laptop, phone)
        }
    laptop_player, phone_player = before[laptop], before[phone]
    assert laptop_player is not None and phone_player is not None
    # The phone has the more rated games, so its rating is the better estimate and is kept.
    assert phone_player.rated_games > laptop_player.rated_games
    kept = (phone_player.mu, phone_player.sigma, phone_player.rating)
    games = laptop_player.games + phone_player.games
    wins = laptop_player.wins + phone_player.wins

    for attempt in range(2):
        async with sessions() as session:
            joined = await join_guest(session, account=account, player_id=public_player_id(phone))
            await session.commit()
        assert joined is (attempt == 0)
        async with sessions() as session:
            merged = await session.get(Player, account.player_id)
            assert merged is not None
            assert (merged.mu, merged.sigma, merged.rating) == kept
            assert (merged.games, merged.wins) == (games, wins)
            assert await session.get(Player, public_player_id(phone)) is None
            assert set(await seats_of(session, account.player_id)) == {
                game.game_id for game in (on_laptop, *on_phone)
            }
            # The phone's guest id finds the account's player.
            found = await repository.get_player(session, player_id=phone)
            assert found is not None and found.id == account.player_id

    # What the phone plays from now on is the account's.
    later = played_game([person(0, "Ann", phone), bot(1, "easy")], seed=4)
    await recorder.record(later)
    async with sessions() as session:
        assert later.game_id in await seats_of(session, account.player_id)
        merged = await session.get(Player, account.player_id)
        assert merged is not None and merged.games == games + 1
        # The account's player, Bea's and the two Cals': the phone's own is gone.
        assert await session.scalar(select(func.count()).select_from(Player)) == 4


async def test_a_guest_with_no_games_joins_and_its_first_game_counts_for_the_account(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    account, _, phone = await ann_on_two_devices(sessions)
    game = played_game([person(0, "Ann", phone), bot(1, "easy")], seed=5)
    await DatabaseRecorder(sessions).record(game)
    async with sessions() as session:
        assert await seats_of(session, account.player_id) == [game.game_id]
        assert await seats_of(session, public_player_id(phone)) == []


async def test_a_guest_plays_for_one_account_only(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    ann_guest, bob_guest = str(uuid.uuid4()), str(uuid.uuid4())
    game = played_game([person(0, "Bob", bob_guest), bot(1, "easy")], seed=6)
    await DatabaseRecorder(sessions).record(game)
    async with sessions() as session:
        ann = await create_account(session, name="Ann", player_id=public_player_id(ann_guest))
        bob = await create_account(session, name="Bob", player_id=public_player_id(bob_guest))
        await session.commit()
    async with sessions() as session:
        # Bob's own guest (and so his history) cannot be taken over by Ann's account.
        assert not await join_guest(session, account=ann, player_id=bob.player_id)
        await session.commit()
        assert await seats_of(session, bob.player_id) == [game.game_id]
        assert await session.get(Game, game.game_id) is not None


async def test_a_game_recorded_under_a_joined_guest_moves_at_its_next_sign_in(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    account, laptop, phone = await ann_on_two_devices(sessions)
    # A game the phone finished while its joining committed: recorded under the guest itself
    # (its recording read the guests before the join was committed).
    game = played_game([person(0, "Ann", phone), person(1, "Bea")], seed=7)
    async with sessions() as session:
        await session.execute(delete(AccountGuest).where(AccountGuest.account_id == account.id))
        await session.commit()
    await DatabaseRecorder(sessions).record(game)
    async with sessions() as session:
        for guest in (laptop, phone):
            session.add(
                AccountGuest(
                    player_id=public_player_id(guest), account_id=account.id, joined_at=START
                )
            )
        await session.commit()
    async with sessions() as session:
        assert await seats_of(session, public_player_id(phone)) == [game.game_id]
        assert await join_guest(session, account=account, player_id=public_player_id(phone))
        await session.commit()
        assert await seats_of(session, account.player_id) == [game.game_id]
        assert await session.get(Player, public_player_id(phone)) is None
        assert not await join_guest(session, account=account, player_id=public_player_id(phone))
