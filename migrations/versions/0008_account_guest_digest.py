"""An account keeps its guests' public ids only: the clear guest id is gone.

A guest id is the secret a browser acts as its player by. Each account's is replaced by a row
of ``account_guests`` holding its public digest (the digest of ``app.db.repository``'s
``public_player_id``, which is the account's ``player_id`` already); devices that sign in later
add theirs. Going down cannot give the clear ids back: the column returns empty.

Revision ID: 0008
Revises: 0006
Create Date: 2026-12-05
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _public_player_id(guest_id: str) -> str:
    """As ``app.db.repository.public_player_id`` is at this revision (a migration must not
    change when the application's code does)."""
    return hashlib.sha256(f"cash-stash guest {guest_id}".encode()).hexdigest()[:32]


def upgrade() -> None:
    guests = op.create_table(
        "account_guests",
        sa.Column("player_id", sa.String(32), nullable=False),
        sa.Column("account_id", sa.String(32), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["accounts.id"],
            name=op.f("fk_account_guests_account_id_accounts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_account_guests")),
    )
    op.create_index(op.f("ix_account_guests_account_id"), "account_guests", ["account_id"])
    accounts = op.get_bind().execute(sa.text("SELECT id, guest_id FROM accounts")).all()
    now = datetime.now(UTC)
    if accounts:
        op.bulk_insert(
            guests,
            [
                {"player_id": _public_player_id(guest), "account_id": account, "joined_at": now}
                for account, guest in accounts
            ],
        )
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("guest_id")


def downgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(
            sa.Column("guest_id", sa.String(36), nullable=False, server_default="")
        )
    op.drop_index(op.f("ix_account_guests_account_id"), table_name="account_guests")
    op.drop_table("account_guests")
