"""Recording finished games: stored once, with their seats, players and rating changes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from finished_games import START, bot, person, played_game, scored_game
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import repository
from app.db.models import Game, GameSeat, Player
from app.db.recorder import DatabaseRecorder
from app.db.session import create_engine, create_session_factory
from app.games import ratings
from tests.app.db.scratch_databases import emptied, sessions_on


@pytest.fixture
async def database_url(shared_url: str) -> str:
    return await emptied(shared_url)


@pytest.fixture
async def sessions(database_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    async with sessions_on(database_url) as sessions:
        yield sessions


async def count(sessions: async_sessionmaker[AsyncSession], model: type[object]) -> int:
    async with sessions() as session:
        return await session.scalar(select(func.count()).select_from(model)) or 0


async def player(sessions: async_sessionmaker[AsyncSession], guest_id: str) -> Player:
    async with sessions() as session:
        found = await repository.get_player(session, player_id=guest_id)
    assert found is not None
    return found


async def test_a_recorded_game_keeps_everything_needed_to_replay_it(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    ann, bea = person(0, "Ann"), person(1, "Bea")
    game = played_game([ann, bea, bot(2, "hard")], seed=11)

    await DatabaseRecorder(sessions).record(game)

    async with sessions() as session:
        stored = await repository.get_game(session, game_id=game.game_id)
    assert stored is not None
    assert stored.config == game.config
    assert stored.actions == game.actions
    assert (stored.round_scores, stored.totals, stored.winners) == (
        game.rounds,
        game.totals,
        game.winners,
    )
    assert (stored.rules, stored.draft, stored.win_condition) == ("advanced", False, "1")
    assert (stored.started_at, stored.ended_at) == (game.started_at, game.ended_at)
    assert [(s.seat, s.name, s.ai_level, s.total) for s in stored.seats] == [
        (0, "Ann", None, game.totals[0]),
        (1, "Bea", None, game.totals[1]),
        (2, "Hard AI", "hard", game.totals[2]),
    ]
    assert stored.seats[2].player_id is None


async def test_the_secret_guest_id_is_never_stored(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    ann = person(0, "Ann")
    await DatabaseRecorder(sessions).record(scored_game([ann, person(1, "Bea")], [5, 3]))

    found = await player(sessions, ann.player_id or "")
    assert found.id == repository.public_player_id(ann.player_id or "")
    assert found.id != ann.player_id
    async with sessions() as session:
        seat_ids = set(await session.scalars(select(GameSeat.player_id)))
    assert ann.player_id not in seat_ids


async def test_recording_a_game_twice_stores_and_rates_it_once(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    ann, bea = person(0, "Ann"), person(1, "Bea")
    game = scored_game([ann, bea], [9, 4])
    recorder = DatabaseRecorder(sessions)

    await recorder.record(game)
    after_first = await player(sessions, ann.player_id or "")
    await recorder.record(game)

    assert await count(sessions, Game) == 1
    assert await count(sessions, GameSeat) == 2
    again = await player(sessions, ann.player_id or "")
    assert (again.mu, again.sigma, again.games, again.wins) == (
        after_first.mu,
        after_first.sigma,
        1,
        1,
    )


async def test_two_processes_finishing_the_same_game_store_it_once(database_url: str) -> None:
    ann, bea, cal = person(0, "Ann"), person(1, "Bea"), person(2, "Cal")
    game = scored_game([ann, bea, cal], [9, 4, 1])
    # Two engines, as two server processes would have: separate pools, separate connections.
    engines = [create_engine(database_url), create_engine(database_url)]
    try:
        recorders = [DatabaseRecorder(create_session_factory(e)) for e in engines]
        await asyncio.gather(*(recorder.record(game) for recorder in recorders))

        sessions = create_session_factory(engines[0])
        assert await count(sessions, Game) == 1
        for guest in (ann, bea, cal):
            stored = await player(sessions, guest.player_id or "")
            assert (stored.games, stored.rated_games) == (1, 1)
    finally:
        for engine in engines:
            await engine.dispose()


async def test_games_finishing_together_both_count_for_shared_players(database_url: str) -> None:
    ann, bea = person(0, "Ann"), person(1, "Bea")
    games = [scored_game([ann, bea], [9, 4]) for _ in range(4)]
    engines = [create_engine(database_url) for _ in games]
    try:
        recorders = [DatabaseRecorder(create_session_factory(e)) for e in engines]
        await recorders[0].record(scored_game([bea, ann], [9, 4]))
        await asyncio.gather(*(r.record(g) for r, g in zip(recorders, games, strict=True)))

        sessions = create_session_factory(engines[0])
        for guest, wins in ((ann, 4), (bea, 1)):
            stored = await player(sessions, guest.player_id or "")
            # No game's update was lost to another's: players are locked while rated.
            assert (stored.games, stored.rated_games, stored.wins) == (5, 5, wins)
    finally:
        for engine in engines:
            await engine.dispose()


async def test_a_game_of_two_people_moves_their_ratings(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    ann, bea = person(0, "Ann"), person(1, "Bea")
    await DatabaseRecorder(sessions).record(scored_game([ann, bot(1, "easy"), bea], [9, 7, 4]))

    winner, loser = (
        await player(sessions, ann.player_id or ""),
        await player(sessions, bea.player_id or ""),
    )
    fresh = ratings.NEW_PLAYER
    assert winner.mu > fresh.mu > loser.mu
    assert winner.sigma < fresh.sigma and loser.sigma < fresh.sigma
    assert winner.rating == pytest.approx(winner.mu - 3 * winner.sigma)
    assert (winner.rated_games, winner.wins, loser.rated_games, loser.wins) == (1, 1, 1, 0)

    async with sessions() as session:
        stored = await session.scalar(select(Game))
        assert stored is not None and stored.rated
        seats = list(await session.scalars(select(GameSeat).order_by(GameSeat.seat)))
    assert seats[0].rating_before == pytest.approx(fresh.display)
    assert seats[0].rating_after == pytest.approx(winner.rating)
    assert seats[2].rating_after == pytest.approx(loser.rating)
    assert (seats[1].rating_before, seats[1].rating_after) == (None, None)


async def test_a_guest_in_two_seats_counts_once(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    ann, bea = person(0, "Ann"), person(1, "Bea")
    twin = person(2, "Ann again", guest_id=ann.player_id)
    await DatabaseRecorder(sessions).record(scored_game([ann, bea, twin], [9, 4, 7]))

    stored = await player(sessions, ann.player_id or "")
    assert (stored.games, stored.rated_games, stored.wins, stored.name) == (1, 1, 1, "Ann")


async def test_a_game_of_one_person_against_bots_leaves_ratings_alone(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    ann = person(0, "Ann")
    await DatabaseRecorder(sessions).record(
        scored_game([ann, bot(1, "hard"), bot(2, "easy")], [9, 7, 4])
    )

    stored = await player(sessions, ann.player_id or "")
    assert (stored.mu, stored.sigma) == (ratings.NEW_PLAYER.mu, ratings.NEW_PLAYER.sigma)
    assert (stored.games, stored.rated_games, stored.wins) == (1, 0, 1)
    async with sessions() as session:
        assert (await session.scalar(select(Game.rated))) is False
        board = await repository.leaderboard(session, limit=10, offset=0)
    assert board.total == 0


async def test_ratings_build_on_earlier_games(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    ann, bea = person(0, "Ann"), person(1, "Bea")
    recorder = DatabaseRecorder(sessions)
    await recorder.record(scored_game([ann, bea], [9, 4]))
    first = await player(sessions, ann.player_id or "")
    await recorder.record(scored_game([bea, ann], [2, 8]))

    second = await player(sessions, ann.player_id or "")
    assert second.mu > first.mu
    assert (second.games, second.rated_games, second.wins) == (2, 2, 2)


async def test_history_and_leaderboard_come_a_page_at_a_time(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    ann, bea, cal = person(0, "Ann"), person(1, "Bea"), person(2, "Cal")
    recorder = DatabaseRecorder(sessions)
    games = []
    for day in range(3):
        game = scored_game([ann, bea, cal], [9, 5, 1], ended_at=START + timedelta(days=day))
        games.append(game)
        await recorder.record(game)

    async with sessions() as session:
        ann_id = repository.public_player_id(ann.player_id or "")
        page = await repository.player_games(session, player_id=ann_id, limit=2, offset=0)
        rest = await repository.player_games(session, player_id=ann_id, limit=2, offset=2)
        board = await repository.leaderboard(session, limit=2, offset=0)
        tail = await repository.leaderboard(session, limit=2, offset=2)

    assert page.total == 3
    assert [game.id for _, game in page.items + rest.items] == [g.game_id for g in reversed(games)]
    assert {seat.seat for seat, _ in page.items} == {0}
    assert board.total == 3
    assert [p.name for p in board.items + tail.items] == ["Ann", "Bea", "Cal"]
