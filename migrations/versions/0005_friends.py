"""Friendships, blocks, friend links and invitations to a table.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-04
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.schema import SchemaItem

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _account(column: str, table: str, *, primary: bool = False) -> list[SchemaItem]:
    """A column naming an account, and its foreign key (gone with the account)."""
    return [
        sa.Column(column, sa.String(32), nullable=False, primary_key=primary),
        sa.ForeignKeyConstraint(
            [column],
            ["accounts.id"],
            name=op.f(f"fk_{table}_{column}_accounts"),
            ondelete="CASCADE",
        ),
    ]


def upgrade() -> None:
    op.create_table(
        "friendships",
        *_account("low_id", "friendships"),
        *_account("high_id", "friendships"),
        sa.Column("requested_by", sa.String(32), nullable=False),
        sa.Column("accepted_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("low_id", "high_id", name=op.f("pk_friendships")),
    )
    op.create_index(op.f("ix_friendships_high_id"), "friendships", ["high_id"])
    op.create_table(
        "blocks",
        *_account("blocker_id", "blocks"),
        *_account("blocked_id", "blocks"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("blocker_id", "blocked_id", name=op.f("pk_blocks")),
    )
    op.create_index(op.f("ix_blocks_blocked_id"), "blocks", ["blocked_id"])
    op.create_table(
        "friend_links",
        *_account("account_id", "friend_links"),
        sa.Column("code", sa.String(32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("account_id", name=op.f("pk_friend_links")),
        sa.UniqueConstraint("code", name=op.f("uq_friend_links_code")),
    )
    op.create_table(
        "invitations",
        sa.Column("id", sa.String(32), nullable=False),
        *_account("host_id", "invitations"),
        *_account("guest_id", "invitations"),
        sa.Column("room_code", sa.String(16), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_invitations")),
    )
    op.create_index(op.f("ix_invitations_host_id"), "invitations", ["host_id"])
    op.create_index(op.f("ix_invitations_guest_id"), "invitations", ["guest_id"])


def downgrade() -> None:
    op.drop_table("invitations")
    op.drop_table("friend_links")
    op.drop_table("blocks")
    op.drop_table("friendships")
