"""The database tables (SQLAlchemy Core).  The Alembic migrations in
``migrations/versions`` create exactly these; change both together.

- ``users``: accounts (guests have no ``name_key``/``password_hash``), totals and rating.
- ``sessions``: login tokens, stored as SHA-256 digests; ``created`` and ``last_used``
  (roughly: it is written at most once a minute) for their expiry.
- ``tables``: a table's settings, seats and match totals; ``practice``: unrated;
  ``counter``: the 记牌器 is shown; ``private``: not listed, free chat; ``ready_wait``:
  the 准备 countdown between games (null: none); ``fill_bots``: the bot that fills the
  seats still empty at the start (null: none); ``fence``: the
  fencing token of the node that may write the table's actions (0 on a single server;
  the token of its lease in Redis in a cluster, :mod:`baohuang.server.cluster`).
- ``games``: one game of a table's match; ``hosted`` holds the 托管 state of its seats.
- ``actions``: every accepted action of a game in order (the game record); ``version``
  numbers a table's actions across its games 1, 2, 3, … (the table's log version): one
  row per ``(table_id, version)``, and version v is written only after v - 1
  (:meth:`~baohuang.server.db.storage.Storage.append_action`, fencing).
- ``game_players``: who sat where in a finished game and what they scored (history).
- ``challenge_days``: a day of 每日挑战 (the daily challenge, ``server/challenge``): its
  secret seed (published once the day is over), preset, number of deals and bot level,
  fixed when the day is first asked for.
- ``challenge_plays``: one user's attempt at one deal of a day, and the table it is
  played at (its score is read from that table's stored game, never written here); one
  row per ``(day, deal, user_id)``, which the database enforces on every node.
- ``tables.challenge``: a challenge deal's table (``{"day", "deal", "deals"}``; null
  for any other table): seen by its player only, never rematched.
- ``reviews``: 复盘, the review of a finished game's seat once computed (its JSON, the
  CPU seconds it took), :mod:`baohuang.server.reviews`.
- ``clubs``: 亲友圈, a group of friends with its owner, invitation code and default
  rules; ``club_members`` its members and their roles (``pending``: asked to join, not
  yet approved); ``club_messages`` its members' chat; ``tables.club_id``: the club a
  table was opened in (null: none), whose members alone sit at it and whose ledger
  (战绩) its scored games count in.
- ``reports``: 举报, one player reporting another (from a table, a score sheet, the
  history or a club's chat: ``club_id`` and ``message_id``, the line) with a reason;
  ``audit_log``: every moderator action, who, when and why;
  ``connection_log``: logins and accounts made with the client address, kept for
  ``ServerConfig.connection_log_retention`` (:mod:`.moderation`).  ``users.role``,
  ``muted_until``, ``suspended_until``, ``banned`` and ``deleted`` are the moderation
  and privacy state of an account.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    UniqueConstraint,
    false,
    true,
)

__all__ = ["actions", "audit_log", "challenge_days", "challenge_plays", "club_members",
           "club_messages", "clubs", "connection_log", "game_players", "games", "metadata",
           "reports", "reviews", "sessions", "tables", "users"]

metadata = MetaData()

users = Table(
    "users", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(24), nullable=False),
    Column("name_key", String(24), unique=True, nullable=True),
    Column("password_hash", String(200), nullable=True),
    Column("guest", Boolean, nullable=False),
    Column("created", Float, nullable=False),
    Column("points", Integer, nullable=False, default=0),
    Column("games", Integer, nullable=False, default=0),
    Column("wins", Integer, nullable=False, default=0),
    Column("leaves", Integer, nullable=False, default=0),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("role", String(12), nullable=False, server_default="player"),
    Column("muted_until", Float, nullable=True),
    Column("suspended_until", Float, nullable=True),
    Column("banned", Boolean, nullable=False, server_default=false()),
    Column("deleted", Boolean, nullable=False, server_default=false()),
)

sessions = Table(
    "sessions", metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Column("created", Float, nullable=False),
    Column("last_used", Float, nullable=True),
)

tables = Table(
    "tables", metadata,
    Column("id", String(16), primary_key=True),
    Column("code", String(8), unique=True, nullable=False),
    Column("owner", Integer, ForeignKey("users.id"), nullable=True),
    Column("preset", String(32), nullable=True),
    Column("rules", JSON, nullable=False),
    Column("timeout", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("autostart", Boolean, nullable=False),
    Column("status", String(12), nullable=False),
    Column("seats", JSON, nullable=False),
    Column("totals", JSON, nullable=False),
    Column("created", Float, nullable=False),
    Column("finished", Float, nullable=True),
    Column("practice", Boolean, nullable=False, server_default=false()),
    Column("counter", Boolean, nullable=False, server_default=true()),
    Column("private", Boolean, nullable=False, server_default=false()),
    Column("fence", BigInteger, nullable=False, server_default="0"),
    Column("ready_wait", Float, nullable=True),
    Column("fill_bots", String(32), nullable=True),
    Column("challenge", JSON, nullable=True),
    Column("club_id", Integer, nullable=True),
    Index("ix_tables_status", "status"),
    Index("ix_tables_club", "club_id"),
)

games = Table(
    "games", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_id", String(16), ForeignKey("tables.id"), nullable=False),
    Column("idx", Integer, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("dealer", Integer, nullable=False),
    Column("tribute", JSON, nullable=True),
    Column("rules", JSON, nullable=False),
    Column("seats", JSON, nullable=False),
    Column("status", String(12), nullable=False),
    Column("result", JSON, nullable=True),
    Column("scored", Boolean, nullable=True),
    Column("hosted", JSON, nullable=False),
    Column("started", Float, nullable=False),
    Column("finished", Float, nullable=True),
    UniqueConstraint("table_id", "idx", name="uq_games_table_idx"),
)

actions = Table(
    "actions", metadata,
    Column("game_id", Integer, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("seat", Integer, nullable=True),
    Column("action", JSON, nullable=False),
    Column("source", String(12), nullable=False),
    Column("at", Float, nullable=False),
    Column("table_id", String(16), nullable=False),
    Column("version", Integer, nullable=False),
    UniqueConstraint("table_id", "version", name="uq_actions_table_version"),
)

game_players = Table(
    "game_players", metadata,
    Column("game_id", Integer, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=True),
    Column("bot", String(32), nullable=True),
    Column("name", String(24), nullable=False),
    Column("score", Integer, nullable=False),
    Column("place", Integer, nullable=True),
    Column("finished", Float, nullable=False),
    Index("ix_game_players_user", "user_id", "finished"),
)

challenge_days = Table(
    "challenge_days", metadata,
    Column("day", String(10), primary_key=True),
    Column("seed", String(64), nullable=False),
    Column("preset", String(32), nullable=False),
    Column("deals", Integer, nullable=False),
    Column("bot", String(32), nullable=False),
    Column("created", Float, nullable=False),
)

challenge_plays = Table(
    "challenge_plays", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("day", String(10), ForeignKey("challenge_days.day"), nullable=False),
    Column("deal", Integer, nullable=False),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("table_id", String(16), nullable=True),
    Column("started", Float, nullable=False),
    UniqueConstraint("day", "deal", "user_id", name="uq_challenge_plays_day_deal_user"),
    Index("ix_challenge_plays_user", "user_id", "day"),
    Index("ix_challenge_plays_table", "table_id"),
)
reviews = Table(
    "reviews", metadata,
    Column("game_id", Integer, ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("review", JSON, nullable=False),
    Column("cpu_seconds", Float, nullable=False),
    Column("created", Float, nullable=False),
)
clubs = Table(
    "clubs", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(24), nullable=False),
    Column("description", String(200), nullable=False),
    Column("owner", Integer, ForeignKey("users.id"), nullable=False),
    Column("code", String(8), unique=True, nullable=False),
    Column("preset", String(32), nullable=False),
    Column("options", JSON, nullable=False),
    Column("timeout", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("approval", Boolean, nullable=False),
    Column("custom_rules", Boolean, nullable=False),
    Column("watchers", Boolean, nullable=False),
    Column("created", Float, nullable=False),
)

club_members = Table(
    "club_members", metadata,
    Column("club_id", Integer, ForeignKey("clubs.id", ondelete="CASCADE"), primary_key=True),
    Column("user_id", Integer, ForeignKey("users.id"), primary_key=True),
    Column("role", String(8), nullable=False),
    Column("joined", Float, nullable=False),
    Index("ix_club_members_user", "user_id"),
)

club_messages = Table(
    "club_messages", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("club_id", Integer, ForeignKey("clubs.id", ondelete="CASCADE"), nullable=False),
    Column("user_id", Integer, ForeignKey("users.id"), nullable=False),
    Column("name", String(24), nullable=False),
    Column("text", String(200), nullable=False),
    Column("at", Float, nullable=False),
    Index("ix_club_messages_club", "club_id", "id"),
)

reports = Table(
    "reports", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("reporter", Integer, ForeignKey("users.id"), nullable=False),
    Column("reported", Integer, ForeignKey("users.id"), nullable=False),
    Column("table_id", String(16), nullable=True),
    Column("game_id", Integer, nullable=True),
    Column("place", String(12), nullable=False),
    Column("reason", String(500), nullable=False),
    Column("created", Float, nullable=False),
    Column("status", String(12), nullable=False),
    Column("handled_by", Integer, ForeignKey("users.id"), nullable=True),
    Column("club_id", Integer, nullable=True),
    Column("message_id", Integer, nullable=True),
    Index("ix_reports_status", "status", "created"),
)

audit_log = Table(
    "audit_log", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),
    Column("moderator", Integer, ForeignKey("users.id"), nullable=True),
    Column("via", String(8), nullable=False),
    Column("action", String(24), nullable=False),
    Column("target_user", Integer, ForeignKey("users.id"), nullable=True),
    Column("target_table", String(16), nullable=True),
    Column("reason", String(500), nullable=False),
    Column("detail", JSON, nullable=True),
    Index("ix_audit_log_at", "at"),
)

connection_log = Table(
    "connection_log", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("user_id", Integer, ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    Column("kind", String(12), nullable=False),
    Column("address", String(64), nullable=True),
    Column("at", Float, nullable=False),
    Index("ix_connection_log_at", "at"),
    Index("ix_connection_log_user", "user_id", "at"),
)
