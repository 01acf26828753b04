"""Moderation and privacy: ``users.role`` (``player``, ``moderator``, ``admin``),
``users.muted_until`` / ``suspended_until`` (unix times; null: none), ``users.banned``,
``users.deleted`` (the account was deleted: its name replaced); ``reports`` (举报: one
player reports another, with a reason), ``audit_log`` (every moderator action: who,
when, why) and ``connection_log`` (logins and accounts made, with the client address;
purged after ``ServerConfig.connection_log_retention``).

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("role", sa.String(12), nullable=False,
                                   server_default="player"))
        batch.add_column(sa.Column("muted_until", sa.Float, nullable=True))
        batch.add_column(sa.Column("suspended_until", sa.Float, nullable=True))
        batch.add_column(sa.Column("banned", sa.Boolean, nullable=False,
                                   server_default=sa.false()))
        batch.add_column(sa.Column("deleted", sa.Boolean, nullable=False,
                                   server_default=sa.false()))
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("reporter", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("reported", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("table_id", sa.String(16), nullable=True),
        sa.Column("game_id", sa.Integer, nullable=True),
        sa.Column("place", sa.String(12), nullable=False),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("handled_by", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
    )
    op.create_index("ix_reports_status", "reports", ["status", "created"])
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("moderator", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("via", sa.String(8), nullable=False),
        sa.Column("action", sa.String(24), nullable=False),
        sa.Column("target_user", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("target_table", sa.String(16), nullable=True),
        sa.Column("reason", sa.String(500), nullable=False),
        sa.Column("detail", sa.JSON, nullable=True),
    )
    op.create_index("ix_audit_log_at", "audit_log", ["at"])
    op.create_table(
        "connection_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("kind", sa.String(12), nullable=False),
        sa.Column("address", sa.String(64), nullable=True),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_connection_log_at", "connection_log", ["at"])
    op.create_index("ix_connection_log_user", "connection_log", ["user_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_connection_log_user", "connection_log")
    op.drop_index("ix_connection_log_at", "connection_log")
    op.drop_table("connection_log")
    op.drop_index("ix_audit_log_at", "audit_log")
    op.drop_table("audit_log")
    op.drop_index("ix_reports_status", "reports")
    op.drop_table("reports")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("deleted")
        batch.drop_column("banned")
        batch.drop_column("suspended_until")
        batch.drop_column("muted_until")
        batch.drop_column("role")
