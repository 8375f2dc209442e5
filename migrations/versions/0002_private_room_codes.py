"""A finished game keeps its room's visibility, and a private room's code no more.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as games:
        games.add_column(
            sa.Column("visibility", sa.String(16), server_default="private", nullable=False)
        )
        games.alter_column("room_code", existing_type=sa.Text(), nullable=True)
    # Games recorded before count as private: their codes are secrets nobody needs.
    op.execute("UPDATE games SET room_code = NULL")


def downgrade() -> None:
    op.execute("UPDATE games SET room_code = '' WHERE room_code IS NULL")
    with op.batch_alter_table("games") as games:
        games.alter_column("room_code", existing_type=sa.Text(), nullable=False)
        games.drop_column("visibility")
