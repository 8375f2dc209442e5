"""Accounts and their passkeys.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Json = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
timestamp = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("name_key", sa.Text(), nullable=False),
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("guest_id", sa.String(36), nullable=False),
        sa.Column("created_at", timestamp, server_default=sa.func.now(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("name_key", name=op.f("uq_accounts_name_key")),
        sa.UniqueConstraint("player_id", name=op.f("uq_accounts_player_id")),
    )
    op.create_table(
        "passkeys",
        sa.Column("id", sa.String(1400), nullable=False),
        sa.Column("account_id", sa.String(32), nullable=False),
        sa.Column("public_key", sa.LargeBinary(), nullable=False),
        sa.Column("sign_count", sa.BigInteger(), nullable=False),
        sa.Column("transports", Json, nullable=False),
        sa.Column("label", sa.Text(), nullable=False),
        sa.Column("created_at", timestamp, server_default=sa.func.now(), nullable=False),
        sa.Column("last_used_at", timestamp, nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_passkeys_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_passkeys")),
    )
    op.create_index(op.f("ix_passkeys_account_id"), "passkeys", ["account_id"])


def downgrade() -> None:
    op.drop_index(op.f("ix_passkeys_account_id"), table_name="passkeys")
    op.drop_table("passkeys")
    op.drop_table("accounts")
