"""What the HTTP routes and the WebSocket share: settings, database, accounts, lobby."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from starlette.requests import HTTPConnection

from ..accounts.accounts import Accounts
from ..config import ServerConfig
from ..db.storage import Storage, UserRecord
from ..table.lobby import Lobby

if TYPE_CHECKING:
    from .connection import Connection

__all__ = ["COOKIE", "ServerState", "server_state", "session_token", "session_user"]

COOKIE = "bh_session"


@dataclass
class ServerState:
    config: ServerConfig
    storage: Storage
    accounts: Accounts
    lobby: Lobby
    #: the open sockets of each session (by the digest of its token): logging out
    #: closes them
    sockets: dict[str, set[Connection]] = field(default_factory=dict)


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
