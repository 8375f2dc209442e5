"""Reading and writing finished games, players and ratings.

Functions take the session and keyword arguments and never commit: the caller owns the
transaction, so a game, its seats and the rating changes it causes are stored together or not
at all.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Generic, TypeVar

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import selectinload

from app.db.conflicts import insert_on_conflict
from app.db.models import Account, AccountGuest, Game, GameSeat, Player
from app.games import ratings
from app.rooms.recording import FinishedGame


def public_player_id(guest_id: str) -> str:
    """The id a player is shown and linked by.

    The guest id the browser keeps is what lets someone play as that player, so it is a
    secret: only this one-way digest of it is stored or shown.
    """
    return hashlib.sha256(f"cash-stash guest {guest_id}".encode()).hexdigest()[:32]


T = TypeVar("T")

MAX_OFFSET = 1_000_000
"""The furthest a page may start: far past any real list, far short of the 64-bit integers
the databases take (a larger offset made SQLite raise ``OverflowError``)."""


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    """One page of a longer list."""

    items: list[T]
    total: int
    """How many there are in all."""


async def record_game(session: AsyncSession, *, game: FinishedGame) -> bool:
    """Store a finished game and apply its rating changes; False if it was already stored.

    Storing is insert-or-ignore on the game id, so when two processes both finish the same game
    exactly one of them stores it and moves ratings.
    """
    ai_levels = [seat.ai_level for seat in game.players]
    # A hint is the AI's help: a game in which any seat took one moves no rating.
    rated = ratings.counts_for_ratings(ai_levels) and not any(seat.hints for seat in game.players)
    inserted = await session.execute(
        insert_on_conflict(session, Game)
        .values(
            id=game.game_id,
            room_code=game.room_code if game.visibility == "public" else None,
            visibility=game.visibility,
            rules=str(game.config.get("rules", "advanced")),
            draft=bool(game.config.get("draft", False)),
            win_condition=str(game.config.get("rounds", 1)),
            config=game.config,
            actions=game.actions,
            round_scores=game.rounds,
            totals=game.totals,
            winners=game.winners,
            rated=rated,
            started_at=game.started_at,
            ended_at=game.ended_at,
        )
        .on_conflict_do_nothing(index_elements=[Game.id])
        .returning(Game.id)
    )
    if inserted.scalar_one_or_none() is None:
        return False

    player_ids = [
        None
        if seat.ai_level is not None or seat.player_id is None
        else public_player_id(seat.player_id)
        for seat in game.players
    ]
    # A guest that plays for an account is recorded as the account's player.
    owners = await account_players(session, player_ids=[pid for pid in player_ids if pid])
    player_ids = [None if pid is None else owners.get(pid, pid) for pid in player_ids]
    players = await _lock_players(session, game=game, player_ids=player_ids)
    before = _ratings_before(players, player_ids=player_ids, ai_levels=ai_levels)
    # A guest seated twice counts once, on their first seat.
    first_seat = {pid: seat for seat, pid in reversed(list(enumerate(player_ids)))}
    fixed = [pid is None or first_seat[pid] != seat for seat, pid in enumerate(player_ids)]
    after = before
    if rated:
        ranks = ratings.finishing_ranks(game.winners, game.totals)
        after = ratings.updated_ratings(before, ranks, fixed=fixed)

    now = datetime.now(UTC)
    for seat, (record, pid) in enumerate(zip(game.players, player_ids, strict=True)):
        won = seat in game.winners
        moved = rated and not fixed[seat]
        session.add(
            GameSeat(
                game_id=game.game_id,
                seat=seat,
                name=record.name,
                player_id=pid,
                ai_level=record.ai_level,
                total=game.totals[seat],
                winner=won,
                rating_before=before[seat].display if moved else None,
                rating_after=after[seat].display if moved else None,
                hints=record.hints,
            )
        )
        if pid is None or first_seat[pid] != seat:
            continue
        player = players[pid]
        player.name = record.name
        player.games += 1
        player.wins += int(won)
        player.updated_at = now
        if moved:
            player.rated_games += 1
            player.mu, player.sigma = after[seat].mu, after[seat].sigma
            player.rating = after[seat].display
    await session.flush()
    return True


async def _lock_players(
    session: AsyncSession, *, game: FinishedGame, player_ids: Sequence[str | None]
) -> dict[str, Player]:
    """The game's players, created when new and locked (on Postgres) until the commit."""
    names = {pid: game.players[seat].name for seat, pid in enumerate(player_ids) if pid}
    if not names:
        return {}
    new = ratings.NEW_PLAYER
    # Sorted, so that two games sharing players lock them in the same order.
    ids = sorted(names)
    await session.execute(
        insert_on_conflict(session, Player)
        .values(
            [
                {
                    "id": pid,
                    "name": names[pid],
                    "mu": new.mu,
                    "sigma": new.sigma,
                    "rating": new.display,
                    "games": 0,
                    "rated_games": 0,
                    "wins": 0,
                }
                for pid in ids
            ]
        )
        .on_conflict_do_nothing(index_elements=[Player.id])
    )
    rows = await session.scalars(
        select(Player).where(Player.id.in_(ids)).order_by(Player.id).with_for_update()
    )
    return {player.id: player for player in rows}


def _ratings_before(
    players: dict[str, Player],
    *,
    player_ids: Sequence[str | None],
    ai_levels: Sequence[str | None],
) -> list[ratings.Rating]:
    before = []
    for pid, level in zip(player_ids, ai_levels, strict=True):
        if level is not None:
            before.append(ratings.ai_rating(level))
        elif pid is None:
            before.append(ratings.NEW_PLAYER)
        else:
            before.append(ratings.Rating(mu=players[pid].mu, sigma=players[pid].sigma))
    return before


async def get_game(session: AsyncSession, *, game_id: str) -> Game | None:
    """A finished game with its seats, or None."""
    return await session.scalar(
        select(Game).where(Game.id == game_id).options(selectinload(Game.seats))
    )


async def account_players(session: AsyncSession, *, player_ids: Sequence[str]) -> dict[str, str]:
    """The player of the account each of these public ids plays for; ids that play for no
    account are left out."""
    if not player_ids:
        return {}
    rows = await session.execute(
        select(AccountGuest.player_id, Account.player_id)
        .join(Account, Account.id == AccountGuest.account_id)
        .where(AccountGuest.player_id.in_(set(player_ids)))
    )
    return {guest: owner for guest, owner in rows}


async def get_player(session: AsyncSession, *, player_id: str) -> Player | None:
    """A player by public id, or by the guest id their own browser keeps; a guest that plays
    for an account finds the account's player."""
    candidates = [player_id, public_player_id(player_id)]
    owners = await account_players(session, player_ids=candidates)
    for candidate in candidates:
        player = await session.get(Player, owners.get(candidate, candidate))
        if player is not None:
            return player
    return None


async def merge_player(session: AsyncSession, *, source: str, into: str) -> bool:
    """Make everything recorded for player ``source`` player ``into``'s: its seats (so its
    games, replays and reviews), and its games, wins and rated games added up. Of the two
    ratings the one with more rated games behind it is kept (``into``'s on a tie): it is the
    better estimate, and two estimates of one person are not averaged. ``source`` is gone
    after; False when it had nothing recorded. Flushed, not committed."""
    if source == into:
        return False
    # Both locked (on Postgres) in a set order, as a finished game locks its players.
    locked = await session.scalars(
        select(Player)
        .where(Player.id.in_(sorted((source, into))))
        .order_by(Player.id)
        .with_for_update()
    )
    found = {player.id: player for player in locked}
    old = found.get(source)
    if old is None:
        return False
    new = found.get(into)
    if new is None:
        new = Player(
            id=into,
            name=old.name,
            mu=old.mu,
            sigma=old.sigma,
            rating=old.rating,
            games=0,
            rated_games=0,
            wins=0,
            created_at=old.created_at,
            updated_at=old.updated_at,
        )
        session.add(new)
        await session.flush()
    elif old.rated_games > new.rated_games:
        new.mu, new.sigma, new.rating = old.mu, old.sigma, old.rating
    new.games += old.games
    new.wins += old.wins
    new.rated_games += old.rated_games
    await session.execute(
        update(GameSeat).where(GameSeat.player_id == source).values(player_id=into)
    )
    await session.delete(old)
    await session.flush()
    return True


async def player_games(
    session: AsyncSession, *, player_id: str, limit: int, offset: int, public_only: bool = False
) -> Page[tuple[GameSeat, Game]]:
    """A player's finished games, newest first, each with the seat they held; only those of
    public rooms when ``public_only``."""
    shown = [GameSeat.player_id == player_id]
    if public_only:
        shown.append(Game.visibility == "public")
    total = await session.scalar(
        select(func.count())
        .select_from(GameSeat)
        .join(Game, GameSeat.game_id == Game.id)
        .where(*shown)
    )
    rows = await session.execute(
        select(GameSeat, Game)
        .join(Game, GameSeat.game_id == Game.id)
        .where(*shown)
        .order_by(Game.ended_at.desc(), Game.id, GameSeat.seat)
        .options(selectinload(Game.seats))
        .limit(limit)
        .offset(offset)
    )
    return Page(items=[(seat, game) for seat, game in rows], total=total or 0)


async def leaderboard(session: AsyncSession, *, limit: int, offset: int) -> Page[Player]:
    """Rated players, best first."""
    ranked = Player.rated_games > 0
    total = await session.scalar(select(func.count()).select_from(Player).where(ranked))
    players = await session.scalars(
        select(Player)
        .where(ranked)
        .order_by(Player.rating.desc(), Player.rated_games.desc(), Player.id)
        .limit(limit)
        .offset(offset)
    )
    return Page(items=list(players), total=total or 0)
