"""A parked turn-based game keeps its chat: the lines the store held, written when it is parked.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("turn_games") as batch:
        batch.add_column(sa.Column("chat", sa.LargeBinary(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("turn_games") as batch:
        batch.drop_column("chat")
