"""Fencing: ``actions.table_id`` and ``actions.version`` (a table's actions numbered
1, 2, 3, … across its games, unique per table) and ``tables.fence`` (the fencing
token of the node that may write them).

The actions stored before are numbered here in their order (game, then seq).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

#: the table of each stored action, and its place among the table's actions
_NUMBER = """
UPDATE actions SET
  table_id = (SELECT g.table_id FROM games g WHERE g.id = actions.game_id),
  version = (SELECT count(*) FROM actions a JOIN games g ON g.id = a.game_id
             JOIN games mine ON mine.id = actions.game_id
             WHERE g.table_id = mine.table_id
               AND (g.idx < mine.idx OR (g.idx = mine.idx AND a.seq <= actions.seq)))
"""


def upgrade() -> None:
    with op.batch_alter_table("tables") as batch:
        batch.add_column(sa.Column("fence", sa.BigInteger, nullable=False,
                                   server_default="0"))
    with op.batch_alter_table("actions") as batch:
        batch.add_column(sa.Column("table_id", sa.String(16), nullable=True))
        batch.add_column(sa.Column("version", sa.Integer, nullable=True))
    op.execute(_NUMBER)
    with op.batch_alter_table("actions") as batch:
        batch.alter_column("table_id", existing_type=sa.String(16), nullable=False)
        batch.alter_column("version", existing_type=sa.Integer, nullable=False)
        batch.create_unique_constraint("uq_actions_table_version", ["table_id", "version"])


def downgrade() -> None:
    with op.batch_alter_table("actions") as batch:
        batch.drop_constraint("uq_actions_table_version", type_="unique")
        batch.drop_column("version")
        batch.drop_column("table_id")
    with op.batch_alter_table("tables") as batch:
        batch.drop_column("fence")
