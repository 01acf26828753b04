"""Server settings: where the database lives and the limits of a connection.

>>> cfg = ServerConfig(db_url="sqlite+aiosqlite:///:memory:")
>>> cfg.max_message_bytes, cfg.send_queue
(4096, 256)
>>> default_db_url("/srv/bh")
'sqlite+aiosqlite:////srv/bh/baohuang.db'
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["ServerConfig", "default_data_dir", "default_db_url"]


def default_data_dir() -> Path:
    """``$BAOHUANG_DATA_DIR`` or ``./data`` (created on first start)."""
    return Path(os.environ.get("BAOHUANG_DATA_DIR", "data"))


def default_db_url(data_dir: str | Path | None = None) -> str:
    """An SQLite file ``baohuang.db`` in the data directory."""
    directory = Path(data_dir) if data_dir is not None else default_data_dir()
    return f"sqlite+aiosqlite:///{directory.absolute() / 'baohuang.db'}"


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Everything the server can be told.  Times are in seconds."""

    db_url: str = field(default_factory=default_db_url)
    #: largest message a client may send
    max_message_bytes: int = 4096
    #: the largest request head (request line and headers, in bytes) the HTTP parser
    #: buffers: a longer one is refused with 400 before more of it is read; and the
    #: longest request line or header line (name and value), refused with 431
    max_header_bytes: int = 16 * 1024
    max_header_line: int = 8 * 1024
    #: messages per second a connection may send on average, and the burst allowed
    rate_per_second: float = 50.0
    burst: int = 100
    #: refused messages within ``abuse_window`` seconds that close the socket (1008)
    abuse_limit: int = 20
    abuse_window: float = 10.0
    #: messages waiting to be sent to one connection before it is dropped as too slow
    send_queue: int = 256
    #: pause before a 托管 move (so people can follow) ...
    hosted_delay: float = 0.5
    #: ... and before a server bot's: drawn between this and twice this, plus 1.25 times
    #: its level's think time, the same in every role (``table/turns.py``)
    bot_delay: float = 0.6
    #: the Guard's pause: the Guard's 明保/暗保 decision lasts exactly this long (at most
    #: the table's think time) and its answer — his own, a bot's, 托管's, or 托管's for a
    #: timeout — is shown when it ends, so that when it comes tells nothing of who gave
    #: it or how (docs/rules.md §10; 0: off, the decision timed as any other)
    guard_pause: float = 6.0
    #: pause between the games of a match at a table of bots only (where people sit,
    #: the next game waits for their 准备, or the table's countdown)
    next_game_delay: float = 4.0
    #: how long a disconnected player's seat waits before 托管 plays it
    away_grace: float = 10.0
    #: extra origins browsers may connect and send requests from (besides the server's
    #: own host, and localhost when the server is reached on a local address)
    allowed_origins: tuple[str, ...] = ()
    #: host names the server answers to (Starlette's TrustedHostMiddleware; ``*``: any)
    trusted_hosts: tuple[str, ...] = ("*",)
    #: addresses of proxies whose X-Forwarded-For/-Proto headers are believed (uvicorn's
    #: ``forwarded_allow_ips``): behind such a proxy speaking HTTPS the session cookie is
    #: ``Secure``
    forwarded_allow_ips: str = "127.0.0.1"
    #: open or playing tables one user may have created at a time
    tables_per_user: int = 10
    #: a session ends after this long unused, and this long after it began (seconds)
    session_idle: float = 30 * 24 * 3600.0
    session_absolute: float = 365 * 24 * 3600.0
    #: how often the sessions of open sockets are checked: those whose sockets sent
    #: messages since the last check are recorded as used, and the sockets of one that
    #: has ended by age are closed (4001)
    session_check: float = 60.0
    #: login attempts allowed per account and per client address (``limits`` notation,
    #: tiers separated by ``;`` back off: a minute's wait, then an hour's, then a day's)
    login_rate_account: str = "10/minute;30/hour;100/day"
    login_rate_address: str = "60/minute;600/hour"
    #: accounts (guests and registrations) made per client address, and tables made
    #: (``POST /api/tables``, ``quickplay``) per client address and per account, in the
    #: same notation; counted where the login tries are (Redis in a cluster)
    account_rate_address: str = "10/minute;60/hour;200/day"
    table_rate_address: str = "30/minute;300/hour;1000/day"
    table_rate_account: str = "20/minute;200/hour;1000/day"
    #: lookups of a table by anything but its id (an invitation code, or a key that
    #: finds nothing: ``GET /api/tables/{key}``, a ``join``, a rematch) per client address
    #: and per account, so that codes cannot be tried by the thousand
    code_rate_address: str = "30/minute;300/hour;1000/day"
    code_rate_account: str = "20/minute;200/hour;600/day"
    #: reports (举报) one account may make (the same notation)
    report_rate_account: str = "5/minute;20/hour;50/day"
    #: how long the connection log (each login, guest and registration with its client
    #: address) is kept, and how often what is older is purged (seconds).  Chat is not
    #: stored at all (relayed to the table and forgotten), so it has no retention
    connection_log_retention: float = 30 * 24 * 3600.0
    retention_check: float = 3600.0
    #: finished tables stay in memory (for late watchers) this long
    keep_finished: float = 600.0
    #: a table with no player connected and no move for this long is dissolved (reason
    #: ``idle``) and leaves the lobby; its finished games stay stored
    table_idle: float = 3600.0
    #: watchers one table takes at a time (seated players do not count)
    watchers_per_table: int = 50
    #: WebSocket keep-alive pings
    ping_interval: float = 20.0
    #: a cluster node (docs/cluster.md): the Redis of the table leases (``None``: a
    #: single server), this node's name (empty: the host and a random part), and how
    #: long a lease lasts unrenewed — a killed node's tables are taken over after it
    redis_url: str | None = None
    node: str = ""
    lease_ttl: float = 5.0
    #: permessage-deflate: off by default — event messages are a few hundred bytes, and
    #: compressing each one costs more CPU (server and client) than it saves
    ws_compression: bool = False
    #: the bearer token a Prometheus scraper sends for ``GET /metrics``
    #: (``Authorization: Bearer ...``); ``None``: ``/metrics`` is off (404)
    metrics_token: str | None = None
    #: 每日挑战, the daily challenge (docs/challenge.md): the time zone whose calendar
    #: day is a challenge day (an IANA name), its number of deals, their preset, the
    #: bot level at the four other seats (one that answers a position always the same
    #: way: ``normal`` or ``hard``), whether guests may play it, how long a deal's turn
    #: lasts (seconds), and how long after the day ends its secret seed is published
    #: (a deal begun just before midnight is played out first)
    challenge_tz: str = "Asia/Shanghai"
    challenge_deals: int = 6
    challenge_preset: str = "shandong"
    challenge_bot: str = "normal"
    challenge_guests: bool = True
    challenge_timeout: float = 60.0
    challenge_reveal_after: float = 3600.0
    #: 复盘 (game review): playouts per decision and CPU seconds per seat's review (the
    #: budget; ``baohuang.bots.review``), the worker processes that compute reviews and
    #: how many reviews one account may have running at once
    review_playouts: int = 4000
    review_cpu_seconds: float = 90.0
    review_workers: int = 1
    reviews_per_user: int = 2
