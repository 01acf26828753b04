"""What the HTTP routes and the WebSocket share: settings, database, accounts, lobby."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from starlette.requests import HTTPConnection

from ..accounts.accounts import Accounts
from ..accounts.sessions import LiveSessions
from ..config import ServerConfig
from ..db.storage import Storage, UserRecord
from ..metrics import ServerMetrics
from ..reviews import ReviewJobs
from ..table.effects import Disconnect
from ..table.lobby import Lobby
from ..table.router import TableRouter

if TYPE_CHECKING:
    from ..moderation import Moderation
    from ..retention import Retention
    from .connection import Connection

__all__ = ["COOKIE", "ServerState", "bearer_token", "end_socket", "server_state",
           "session_by_cookie", "session_token", "session_user"]

COOKIE = "bh_session"


@dataclass
class ServerState:
    config: ServerConfig
    storage: Storage
    accounts: Accounts
    lobby: Lobby
    #: the figures of this server (``GET /metrics``)
    metrics: ServerMetrics
    #: the open sockets of each session (by the digest of its token): a logout, a
    #: password change and the end of a session by age close them
    sessions: LiveSessions[Connection] = field(
        default_factory=lambda: LiveSessions(end_socket))
    #: 复盘: the reviews this server computes in the background (``None`` until started)
    reviews: ReviewJobs | None = None
    #: the moderators' actions (:mod:`baohuang.server.moderation`) and the purge of
    #: what is kept about connections (:mod:`baohuang.server.retention`)
    moderation: Moderation | None = None
    retention: Retention | None = None

    @property
    def router(self) -> TableRouter:
        """Where a table is found: this server's lobby, or any node of its cluster."""
        return self.lobby.router


def end_socket(conn: Connection, code: int, reason: str) -> None:
    """Close a socket from the server's side; its table hears of it now."""
    conn.close(code, reason)
    if conn.route is not None:
        conn.route.post(Disconnect(conn))
        conn.route = None


def server_state(conn: HTTPConnection) -> ServerState:
    state: ServerState = conn.app.state.server
    return state


def bearer_token(conn: HTTPConnection) -> str | None:
    auth = conn.headers.get("authorization", "")
    if auth.lower().startswith("bearer ") and auth[7:].strip():
        return auth[7:].strip()
    return None


def session_token(conn: HTTPConnection) -> str | None:
    """The session token of a request or WebSocket: bearer header, cookie, or ``?token=``."""
    return (bearer_token(conn) or conn.cookies.get(COOKIE) or conn.query_params.get("token")
            or None)


def session_by_cookie(conn: HTTPConnection) -> bool:
    """Whether the session of a request or WebSocket is read from the cookie — the one
    credential a browser sends by itself, even on a request another site's page makes:
    a cookie and no bearer header."""
    return bearer_token(conn) is None and bool(conn.cookies.get(COOKIE))


async def session_user(conn: HTTPConnection) -> UserRecord | None:
    return await server_state(conn).accounts.user_for_token(session_token(conn))
