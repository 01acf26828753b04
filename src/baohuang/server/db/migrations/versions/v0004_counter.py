"""The 记牌器 per table: ``tables.counter`` (shown to the players; on by default).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("counter", sa.Boolean, nullable=False,
                                   server_default=sa.true()))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("counter")
