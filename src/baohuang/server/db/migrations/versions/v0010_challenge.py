"""每日挑战 (the daily challenge): ``challenge_days`` (each day's secret seed and
settings), ``challenge_plays`` (one user's attempt at one deal, unique per day, deal
and user) and ``tables.challenge`` (a challenge deal's table).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("challenge", sa.JSON, nullable=True))
    op.create_table(
        "challenge_days",
        sa.Column("day", sa.String(10), primary_key=True),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("preset", sa.String(32), nullable=False),
        sa.Column("deals", sa.Integer, nullable=False),
        sa.Column("bot", sa.String(32), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "challenge_plays",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("day", sa.String(10), sa.ForeignKey("challenge_days.day"), nullable=False),
        sa.Column("deal", sa.Integer, nullable=False),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("table_id", sa.String(16), nullable=True),
        sa.Column("started", sa.Float, nullable=False),
        sa.UniqueConstraint("day", "deal", "user_id", name="uq_challenge_plays_day_deal_user"),
    )
    op.create_index("ix_challenge_plays_user", "challenge_plays", ["user_id", "day"])
    op.create_index("ix_challenge_plays_table", "challenge_plays", ["table_id"])


def downgrade() -> None:
    op.drop_index("ix_challenge_plays_table", "challenge_plays")
    op.drop_index("ix_challenge_plays_user", "challenge_plays")
    op.drop_table("challenge_plays")
    op.drop_table("challenge_days")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("challenge")
