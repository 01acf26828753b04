"""亲友圈 (clubs): ``clubs``, ``club_members``, ``club_messages`` and
``tables.club_id`` (the club a table was opened in).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "clubs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(24), nullable=False),
        sa.Column("description", sa.String(200), nullable=False),
        sa.Column("owner", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("code", sa.String(8), unique=True, nullable=False),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("timeout", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("approval", sa.Boolean, nullable=False),
        sa.Column("custom_rules", sa.Boolean, nullable=False),
        sa.Column("watchers", sa.Boolean, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "club_members",
        sa.Column("club_id", sa.Integer, sa.ForeignKey("clubs.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), primary_key=True),
        sa.Column("role", sa.String(8), nullable=False),
        sa.Column("joined", sa.Float, nullable=False),
    )
    op.create_index("ix_club_members_user", "club_members", ["user_id"])
    op.create_table(
        "club_messages",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("club_id", sa.Integer, sa.ForeignKey("clubs.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("name", sa.String(24), nullable=False),
        sa.Column("text", sa.String(200), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_index("ix_club_messages_club", "club_messages", ["club_id", "id"])
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("club_id", sa.Integer, nullable=True))
        batch.create_index("ix_tables_club", ["club_id"])


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_index("ix_tables_club")
        batch.drop_column("club_id")
    op.drop_index("ix_club_messages_club", "club_messages")
    op.drop_table("club_messages")
    op.drop_index("ix_club_members_user", "club_members")
    op.drop_table("club_members")
    op.drop_table("clubs")
