"""The real-time game server (``baohuang serve``): accounts, lobby, one actor per
table, persistence first, reconnect and 托管.  The protocol is in docs/protocol.md.

>>> from baohuang.server import ServerConfig, create_app
>>> app = create_app(ServerConfig(db_url="sqlite+aiosqlite:///:memory:"))
>>> sorted(r.path for r in app.routes if r.path.startswith("/api/t"))
['/api/tables', '/api/tables', '/api/tables/{key}', '/api/tables/{key}/rematch']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .config import ServerConfig
    from .transport.app import create_app, serve

__all__ = ["ServerConfig", "create_app", "serve"]


def __getattr__(name: str) -> Any:
    # imported on first use, so that `baohuang --help` does not load the web stack
    if name in ("create_app", "serve"):
        from .transport import app
        return getattr(app, name)
    if name == "ServerConfig":
        from .config import ServerConfig
        return ServerConfig
    raise AttributeError(name)
