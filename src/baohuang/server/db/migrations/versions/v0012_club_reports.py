"""A report (举报) made from a club's chat: ``reports.club_id`` (the club) and
``reports.message_id`` (the chat line reported; null once a moderator removed it).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("reports") as batch:
        batch.add_column(sa.Column("club_id", sa.Integer, nullable=True))
        batch.add_column(sa.Column("message_id", sa.Integer, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("reports") as batch:
        batch.drop_column("message_id")
        batch.drop_column("club_id")
