"""Turn-based games in play, kept in the database while nobody looks at them.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "turn_games",
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("room", sa.LargeBinary(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("wake_at", sa.Float(), nullable=True),
        sa.Column("idle_since", sa.Float(), nullable=True),
        sa.Column("parked", sa.Boolean(), nullable=False),
        sa.Column("parked_at", sa.Float(), nullable=True),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("code", name=op.f("pk_turn_games")),
    )
    op.create_index(op.f("ix_turn_games_wake_at"), "turn_games", ["wake_at"])
    op.create_index(op.f("ix_turn_games_idle_since"), "turn_games", ["idle_since"])
    op.create_table(
        "turn_players",
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("code", "seat", name=op.f("pk_turn_players")),
    )
    op.create_index(op.f("ix_turn_players_player_id"), "turn_players", ["player_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_turn_players_player_id"), table_name="turn_players")
    op.drop_table("turn_players")
    op.drop_index(op.f("ix_turn_games_idle_since"), table_name="turn_games")
    op.drop_index(op.f("ix_turn_games_wake_at"), table_name="turn_games")
    op.drop_table("turn_games")
