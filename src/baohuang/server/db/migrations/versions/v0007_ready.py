"""准备 and mixed tables: ``tables.ready_wait`` (the countdown between a match's games,
seconds; null: wait for everyone) and ``tables.fill_bots`` (the bot that takes the seats
still empty when the owner starts; null: none).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("ready_wait", sa.Float, nullable=True))
        batch.add_column(sa.Column("fill_bots", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("fill_bots")
        batch.drop_column("ready_wait")
