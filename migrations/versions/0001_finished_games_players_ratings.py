"""Finished games, who sat where, and rated players.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

json = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
timestamp = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("room_code", sa.Text(), nullable=False),
        sa.Column("rules", sa.String(32), nullable=False),
        sa.Column("draft", sa.Boolean(), nullable=False),
        sa.Column("win_condition", sa.String(32), nullable=False),
        sa.Column("config", json, nullable=False),
        sa.Column("actions", json, nullable=False),
        sa.Column("round_scores", json, nullable=False),
        sa.Column("totals", json, nullable=False),
        sa.Column("winners", json, nullable=False),
        sa.Column("rated", sa.Boolean(), nullable=False),
        sa.Column("started_at", timestamp, nullable=False),
        sa.Column("ended_at", timestamp, nullable=False),
        sa.Column("recorded_at", timestamp, server_default=sa.func.now(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    op.create_index(op.f("ix_games_ended_at"), "games", ["ended_at"])

    op.create_table(
        "players",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("rated_games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("created_at", timestamp, server_default=sa.func.now(), nullable=False),
        sa.Column("updated_at", timestamp, server_default=sa.func.now(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
    )
    op.create_index(op.f("ix_players_rating"), "players", ["rating"])

    op.create_table(
        "game_seats",
        sa.Column("game_id", sa.String(36), nullable=False),
        sa.Column("seat", sa.SmallInteger(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("player_id", sa.String(32), nullable=True),
        sa.Column("ai_level", sa.String(16), nullable=True),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("winner", sa.Boolean(), nullable=False),
        sa.Column("rating_before", sa.Float(), nullable=True),
        sa.Column("rating_after", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_game_seats_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_game_seats_player_id_players")
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", name=op.f("pk_game_seats")),
    )
    op.create_index(op.f("ix_game_seats_player_id"), "game_seats", ["player_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_game_seats_player_id"), table_name="game_seats")
    op.drop_table("game_seats")
    op.drop_index(op.f("ix_players_rating"), table_name="players")
    op.drop_table("players")
    op.drop_index(op.f("ix_games_ended_at"), table_name="games")
    op.drop_table("games")
