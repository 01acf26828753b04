"""What the HTTP routes and the WebSocket share: settings, database, accounts, lobby."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from starlette.requests import HTTPConnection

from ..accounts.accounts import Accounts
from ..accounts.sessions import LiveSessions
from ..config import ServerConfig
from ..db.storage import Storage, UserRecord
from ..table.inputs import Disconnect
from ..table.lobby import Lobby

if TYPE_CHECKING:
    from .connection import Connection

__all__ = ["COOKIE", "ServerState", "end_socket", "server_state", "session_token",
           "session_user"]

COOKIE = "bh_session"


@dataclass
class ServerState:
    config: ServerConfig
    storage: Storage
    accounts: Accounts
    lobby: Lobby
    #: the open sockets of each session (by the digest of its token): a logout, a
    #: password change and the end of a session by age close them
    sessions: LiveSessions[Connection] = field(
        default_factory=lambda: LiveSessions(end_socket))


def end_socket(conn: Connection, code: int, reason: str) -> None:
    """Close a socket from the server's side; its table hears of it now."""
    conn.close(code, reason)
    if conn.route is not None:
        conn.route.post(Disconnect(conn))
        conn.route = None


def server_state(conn: HTTPConnection) -> ServerState:
    state: ServerState = conn.app.state.server
    return state


def session_token(conn: HTTPConnection) -> str | None:
    """The session token of a request or WebSocket: bearer header, cookie, or ``?token=``."""
    auth = conn.headers.get("authorization", "")
    if auth.lower().startswith("bearer ") and auth[7:].strip():
        return auth[7:].strip()
    return conn.cookies.get(COOKIE) or conn.query_params.get("token") or None


async def session_user(conn: HTTPConnection) -> UserRecord | None:
    return await server_state(conn).accounts.user_for_token(session_token(conn))
