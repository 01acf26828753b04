"""The ASGI application and ``baohuang serve``.

On start the database is migrated and every unfinished table is rebuilt from
its records; then the API (``/api``), the WebSocket (``/ws``) and the web
client (``/``: :mod:`.webclient`, compressed and cached) are served.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Mount, Route, WebSocketRoute

from ...web import STATIC_DIR
from ..accounts.accounts import Accounts
from ..challenge.service import ChallengeService
from ..config import ServerConfig
from ..db.storage import open_storage
from ..logs import RequestLog, configure_logging
from ..metrics import CONTENT_TYPE, ServerMetrics, token_matches
from ..moderation import Moderation
from ..retention import Retention
from ..reviews import ReviewJobs
from ..runtime import tune_gc
from ..table.clock import ClockFactory
from ..table.lobby import Lobby, LocalRouter
from ..table.router import TableRouter
from .api import routes as api_routes
from .clubs_api import club_routes
from .moderation_api import routes as moderation_routes
from .review_api import review_routes
from .security import middleware
from .state import ServerState, bearer_token
from .webclient import web_client
from .ws import WebSocketEndpoint

__all__ = ["STATIC_DIR", "create_app", "serve", "table_router", "uvicorn_config"]

log = logging.getLogger("baohuang.server")
MAX_FRAME = 64 * 1024


async def _health(request: Request) -> Response:
    state: ServerState = request.app.state.server
    return JSONResponse({"ok": True, "tables": len(state.lobby.tables),
                         "database": state.storage.dialect})


async def _metrics(request: Request) -> Response:
    """The figures in Prometheus' text format, for a scraper that sends the configured
    bearer token (``ServerConfig.metrics_token``); without one configured, not found."""
    state: ServerState = request.app.state.server
    expected = state.config.metrics_token
    if not expected:
        return JSONResponse({"error": {"code": "not_found", "message": "not found"}},
                            status_code=404)
    if not token_matches(bearer_token(request), expected):
        return JSONResponse({"error": {"code": "unauthorized",
                                       "message": "a bearer token is needed"}},
                            status_code=401, headers={"WWW-Authenticate": "Bearer"})
    return Response(state.metrics.exposition(), media_type=CONTENT_TYPE)


async def _no_client(request: Request) -> Response:
    return HTMLResponse("<!doctype html><title>baohuang</title><p>The 保皇 server is running; "
                        "the web client is not installed. API: <code>/api</code>, "
                        "WebSocket: <code>/ws</code>.</p>")


def table_router(config: ServerConfig) -> Callable[[Lobby], TableRouter]:
    """Where a server's tables are found, chosen here once for the whole server: in its
    own lobby alone, or — given a Redis (``config.redis_url``) — on any node of its
    cluster (docs/cluster.md)."""
    if config.redis_url is None:
        return LocalRouter
    # (imported only here: Redis's client is the `cluster` extra's, not every server's)
    from ..cluster.router import ClusterRouter
    return ClusterRouter.join


def create_app(config: ServerConfig | None = None, static_dir: Path | None = STATIC_DIR,
               *, clocks: ClockFactory | None = None) -> Starlette:
    """The application; its lifespan opens the database and restores tables
    (``clocks``: each table's clock, by default real time)."""
    cfg = config or ServerConfig()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        storage = await open_storage(cfg.db_url)
        metrics = ServerMetrics()
        lobby = Lobby(storage, cfg, clocks, metrics, router=table_router(cfg))
        metrics.watch(lobby.census)
        accounts = Accounts(storage, per_account=cfg.login_rate_account,
                            per_address=cfg.login_rate_address, idle=cfg.session_idle,
                            absolute=cfg.session_absolute, redis_url=cfg.redis_url,
                            accounts_per_address=cfg.account_rate_address,
                            tables_per_address=cfg.table_rate_address,
                            tables_per_account=cfg.table_rate_account,
                            codes_per_address=cfg.code_rate_address,
                            codes_per_account=cfg.code_rate_account,
                            reports_per_account=cfg.report_rate_account, metrics=metrics)
        app.state.server = state = ServerState(cfg, storage, accounts, lobby, metrics)
        app.state.challenge = ChallengeService(storage, lobby, cfg)
        state.reviews = ReviewJobs(storage, cfg)
        state.moderation = Moderation(storage, lobby=lobby, live=state.sessions)
        state.retention = Retention(storage, cfg.connection_log_retention,
                                    cfg.retention_check)
        state.retention.start()
        state.sessions.start_sweeper(accounts.ended_sessions, cfg.session_check,
                                     accounts.use_sessions)
        restored = await lobby.restore()
        if restored:
            log.info("restored %d unfinished table(s)", restored)
        lobby.start_sweeper()
        try:
            yield
        finally:
            await state.sessions.stop()
            await state.reviews.close()
            await state.retention.stop()
            await lobby.close()
            await storage.close()

    routes: list[BaseRoute] = [*api_routes, *review_routes, *club_routes, *moderation_routes,
                               Route("/healthz", _health),
                               Route("/metrics", _metrics),
                               WebSocketRoute("/ws", WebSocketEndpoint())]
    if static_dir is not None and static_dir.is_dir():
        routes.append(Mount("/", web_client(static_dir), name="web"))
    else:
        routes.append(Route("/", _no_client))
    return Starlette(routes=routes, lifespan=lifespan,
                     middleware=[Middleware(RequestLog), *middleware(cfg)])


def uvicorn_config(app: Callable[..., Awaitable[None]], config: ServerConfig, host: str, port: int,
                   log_level: str = "info") -> uvicorn.Config:
    """uvicorn's settings for ``app`` (``bench/server.py`` runs its baseline with them
    too): h11 as the HTTP parser, which buffers a request's head up to
    ``config.max_header_bytes`` only (httptools has no such bound), uvicorn's
    websockets-sansio WebSocket protocol (whose handshake lines are bounded too), pings,
    frame size and compression.  uvicorn's own log setup and access log are off: its
    lines go through the server's (``logs.configure_logging``), and ``logs.RequestLog``
    logs each request without its query string."""
    return uvicorn.Config(app, host=host, port=port, log_level=log_level,
                          log_config=None, access_log=False,
                          http="h11", h11_max_incomplete_event_size=config.max_header_bytes,
                          ws="websockets-sansio",
                          ws_ping_interval=config.ping_interval,
                          ws_ping_timeout=config.ping_interval,
                          ws_max_size=MAX_FRAME, lifespan="on",
                          proxy_headers=True, forwarded_allow_ips=config.forwarded_allow_ips,
                          ws_per_message_deflate=config.ws_compression)


def serve(host: str = "127.0.0.1", port: int = 8000, config: ServerConfig | None = None,
          log_level: str = "info", log_format: str | None = None,
          warnings: Sequence[str] = ()) -> None:
    """Run the server until interrupted, logging at ``log_level`` in ``log_format``
    (``json`` or ``text``; by default text on a terminal, JSON otherwise); the settings'
    ``warnings`` are its first lines."""
    cfg = config or ServerConfig()
    tune_gc()
    configure_logging(log_level, log_format)
    for warning in warnings:
        log.warning("settings: %s", warning)
    # (uvicorn's debug lines are each handshake's bytes, bearer tokens among them)
    quieter = "info" if log_level == "debug" else log_level
    server = uvicorn.Server(uvicorn_config(create_app(cfg), cfg, host, port, quieter))
    server.run()
