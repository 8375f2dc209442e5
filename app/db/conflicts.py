"""An INSERT that can say what to do on a conflict, on whichever database the session is on.

SQLite and Postgres spell ``ON CONFLICT`` alike, but SQLAlchemy builds it from each dialect's
own ``insert``; the app keeps its data in one of those two and no other."""

from __future__ import annotations

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Base


def insert_on_conflict(
    session: AsyncSession, model: type[Base]
) -> postgresql.Insert | sqlite.Insert:
    """An INSERT into ``model`` that supports ``on_conflict_do_nothing`` and
    ``on_conflict_do_update`` on the session's database."""
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        return postgresql.insert(model)
    if dialect == "sqlite":
        return sqlite.insert(model)
    raise NotImplementedError(f"the app's data is kept in SQLite or Postgres, not {dialect}")
