"""The turn-based games' copy in the database (``turn_games``, ``turn_players``): SQLite or
Postgres, the same statements on both.

A room's text is kept zlib-compressed: a four-seat game's 5-20 KB of JSON (most of it the log)
takes a fifth of that; so are its chat lines, written when it is parked. Each write is one
short transaction: the room's row, guarded by its version, and its players' rows when that
wrote."""

from __future__ import annotations

import zlib
from collections.abc import Collection, Sequence

import orjson
from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.conflicts import insert_on_conflict
from app.db.models import TurnGame, TurnPlayer
from app.store.base import wall_clock
from app.turns.archive import ArchivedRoom
from app.turns.records import TurnRecord

LEVEL = 3
"""zlib's level for a room's text: the fastest levels compress JSON almost as well."""


class DatabaseTurnArchive:
    """``TurnArchive`` in the app's database."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self._sessions = sessions

    async def save(self, record: TurnRecord) -> None:
        async with self._sessions() as session, session.begin():
            await save_record(session, record, now=wall_clock())

    async def forget(self, code: str, *, version: int) -> None:
        async with self._sessions() as session, session.begin():
            gone = await session.execute(
                delete(TurnGame).where(TurnGame.code == code, TurnGame.version <= version)
            )
            if gone.rowcount:  # type: ignore[attr-defined]
                await session.execute(delete(TurnPlayer).where(TurnPlayer.code == code))

    async def room(self, code: str) -> ArchivedRoom | None:
        async with self._sessions() as session:
            row = (
                await session.execute(
                    select(TurnGame.version, TurnGame.room, TurnGame.parked, TurnGame.chat).where(
                        TurnGame.code == code
                    )
                )
            ).first()
        if row is None:
            return None
        chat = () if row.chat is None else tuple(orjson.loads(zlib.decompress(row.chat)))
        return ArchivedRoom(row.version, zlib.decompress(row.room).decode(), row.parked, chat)

    async def park(self, code: str, *, version: int, now: float, chat: Sequence[str] = ()) -> bool:
        lines = zlib.compress(orjson.dumps(list(chat)), LEVEL) if chat else None
        async with self._sessions() as session, session.begin():
            parked = await session.execute(
                update(TurnGame)
                .where(
                    TurnGame.code == code,
                    TurnGame.version == version,
                    TurnGame.parked.is_(False),
                )
                .values(parked=True, parked_at=now, idle_since=None, updated_at=now, chat=lines)
            )
            return bool(parked.rowcount)  # type: ignore[attr-defined]

    async def due(self, now: float, *, unparked_before: float, limit: int) -> list[str]:
        async with self._sessions() as session:
            codes = await session.scalars(
                select(TurnGame.code)
                .where(
                    TurnGame.wake_at <= now,
                    TurnGame.parked.is_(True) | (TurnGame.wake_at <= unparked_before),
                )
                .order_by(TurnGame.wake_at)
                .limit(limit)
            )
            return list(codes)

    async def idle(self, before: float, *, quiet_until: float, limit: int) -> list[str]:
        async with self._sessions() as session:
            codes = await session.scalars(
                select(TurnGame.code)
                .where(
                    TurnGame.idle_since <= before,
                    TurnGame.wake_at.is_(None) | (TurnGame.wake_at > quiet_until),
                )
                .order_by(TurnGame.idle_since)
                .limit(limit)
            )
            return list(codes)

    async def games_of(self, player_id: str) -> int:
        async with self._sessions() as session:
            count = await session.scalar(
                select(func.count())
                .select_from(TurnPlayer)
                .join(TurnGame, TurnGame.code == TurnPlayer.code)
                .where(TurnPlayer.player_id == player_id, TurnGame.status == "playing")
            )
            return count or 0

    async def seats_of(self, player_ids: Collection[str], *, limit: int) -> list[tuple[str, int]]:
        if not player_ids:
            return []
        async with self._sessions() as session:
            rows = await session.execute(
                select(TurnPlayer.code, TurnPlayer.seat)
                .join(TurnGame, TurnGame.code == TurnPlayer.code)
                .where(TurnPlayer.player_id.in_(set(player_ids)), TurnGame.status == "playing")
                .order_by(TurnPlayer.code, TurnPlayer.seat)
                .limit(limit)
            )
            return [(code, seat) for code, seat in rows]


async def save_record(session: AsyncSession, record: TurnRecord, *, now: float) -> None:
    """Write ``record`` in the session's transaction (``DatabaseTurnArchive.save``; the bench
    writes many in one)."""
    insert = insert_on_conflict(session, TurnGame).values(
        code=record.code,
        version=record.version,
        room=zlib.compress(record.text.encode(), LEVEL),
        status=record.status,
        wake_at=record.wake_at,
        idle_since=record.idle_since,
        parked=False,
        parked_at=None,
        updated_at=now,
    )
    written = await session.execute(
        insert.on_conflict_do_update(
            index_elements=[TurnGame.code],
            set_={
                name: insert.excluded[name]
                for name in (
                    "version",
                    "room",
                    "status",
                    "wake_at",
                    "idle_since",
                    "parked",
                    "parked_at",
                    "updated_at",
                )
            },
            where=TurnGame.version <= insert.excluded.version,
        ).returning(TurnGame.code)
    )
    if written.first() is None or not record.players:
        return
    players = insert_on_conflict(session, TurnPlayer).values(
        [
            {"code": record.code, "seat": seat, "player_id": player}
            for seat, player in record.players
        ]
    )
    await session.execute(
        players.on_conflict_do_update(
            index_elements=[TurnPlayer.code, TurnPlayer.seat],
            set_={"player_id": players.excluded.player_id},
        )
    )
