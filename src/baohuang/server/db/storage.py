"""The database: SQLAlchemy 2 async on SQLite (WAL) or PostgreSQL (asyncpg).

:func:`open_storage` creates the SQLite file's directory, applies the Alembic
migrations and returns a :class:`Storage`: every read and write the server does, in
parts of one reason each —

- :mod:`.database`: the engine, the migrations, and how one statement runs (on an
  SQLite file from the event loop itself, :mod:`.storage_sqlite`);
- :mod:`.action_log`: the actions of every table, group-committed by one writer task,
  each fenced by its table's version and fencing token (:class:`FencedWrite`);
- :mod:`.users`: accounts and sessions (:class:`UserRecord`, :class:`NameTaken`);
- :mod:`.games`: tables, games, a finished game's results, history and replays;
- :mod:`.reviews`: 复盘, the reviews of finished games once computed.
- :mod:`.clubs`: 亲友圈, their members, chat and the rows of their ledgers.
- :mod:`.moderation`: roles and sanctions, reports, the audit log, the connection log,
  a player's data and the deletion of his account.
"""

from __future__ import annotations

from .action_log import ActionLog, FencedWrite
from .clubs import ClubStore
from .database import MIGRATIONS, make_engine, migrate
from .games import GameStore, RateGame
from .moderation import ModerationStore
from .reviews import ReviewStore
from .users import NameTaken, UserRecord, UserStore

__all__ = ["MIGRATIONS", "FencedWrite", "NameTaken", "RateGame", "Storage", "UserRecord",
           "make_engine", "migrate", "open_storage"]


class Storage(ActionLog, UserStore, GameStore, ReviewStore, ClubStore, ModerationStore):
    """Every read and write the server does: the action log, users and sessions,
    tables and games, on one engine."""


async def open_storage(url: str) -> Storage:
    """Connect, migrate, and start the action writer."""
    engine = make_engine(url)
    await migrate(engine)
    storage = Storage(engine)
    storage.start()
    return storage
