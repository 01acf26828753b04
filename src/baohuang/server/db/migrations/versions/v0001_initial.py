"""Users, sessions, tables, games, actions and game players.

Revision ID: 0001
Revises:
Create Date: 2024-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(24), nullable=False),
        sa.Column("name_key", sa.String(24), unique=True, nullable=True),
        sa.Column("password_hash", sa.String(200), nullable=True),
        sa.Column("guest", sa.Boolean, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("points", sa.Integer, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("leaves", sa.Integer, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "tables",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("code", sa.String(8), unique=True, nullable=False),
        sa.Column("owner", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("preset", sa.String(32), nullable=True),
        sa.Column("rules", sa.JSON, nullable=False),
        sa.Column("timeout", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("autostart", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("seats", sa.JSON, nullable=False),
        sa.Column("totals", sa.JSON, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("finished", sa.Float, nullable=True),
    )
    op.create_index("ix_tables_status", "tables", ["status"])
    op.create_table(
        "games",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("table_id", sa.String(16), sa.ForeignKey("tables.id"), nullable=False),
        sa.Column("idx", sa.Integer, nullable=False),
        sa.Column("seed", sa.BigInteger, nullable=False),
        sa.Column("dealer", sa.Integer, nullable=False),
        sa.Column("tribute", sa.JSON, nullable=True),
        sa.Column("rules", sa.JSON, nullable=False),
        sa.Column("seats", sa.JSON, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("result", sa.JSON, nullable=True),
        sa.Column("scored", sa.Boolean, nullable=True),
        sa.Column("hosted", sa.JSON, nullable=False),
        sa.Column("started", sa.Float, nullable=False),
        sa.Column("finished", sa.Float, nullable=True),
        sa.UniqueConstraint("table_id", "idx", name="uq_games_table_idx"),
    )
    op.create_table(
        "actions",
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("action", sa.JSON, nullable=False),
        sa.Column("source", sa.String(12), nullable=False),
        sa.Column("at", sa.Float, nullable=False),
    )
    op.create_table(
        "game_players",
        sa.Column("game_id", sa.Integer, sa.ForeignKey("games.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id"), nullable=True),
        sa.Column("bot", sa.String(32), nullable=True),
        sa.Column("name", sa.String(24), nullable=False),
        sa.Column("score", sa.Integer, nullable=False),
        sa.Column("place", sa.Integer, nullable=True),
        sa.Column("finished", sa.Float, nullable=False),
    )
    op.create_index("ix_game_players_user", "game_players", ["user_id", "finished"])


def downgrade() -> None:
    op.drop_index("ix_game_players_user", "game_players")
    op.drop_table("game_players")
    op.drop_table("actions")
    op.drop_table("games")
    op.drop_index("ix_tables_status", "tables")
    op.drop_table("tables")
    op.drop_table("sessions")
    op.drop_table("users")
