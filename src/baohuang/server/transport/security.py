"""What every HTTP answer carries and what every state-changing request must show:
security headers (the ``secure`` library's ASGI middleware), the check of requests
that change something and of WebSocket handshakes (a page of another site may not act
with a player's cookie), and the trusted hosts (Starlette's middleware).

>>> cfg = ServerConfig(db_url="sqlite+aiosqlite://")
>>> origin_allowed(None, "example.org", cfg), origin_allowed("https://example.org",
...     "example.org", cfg), origin_allowed("https://evil.test", "example.org", cfg)
(True, True, False)
>>> origin_allowed("http://localhost:5173", "127.0.0.1:8000", cfg)
True
>>> origin_allowed("http://localhost:5173", "example.org", cfg)
False

Without an ``Origin``, a request whose session is the cookie needs ``Sec-Fetch-Site``
to say it comes from the site's own pages; one with a bearer token or no session
needs nothing:

>>> def ask(*headers: tuple[str, str]) -> str | None:
...     scope = {"type": "http", "headers": [(k.encode(), v.encode()) for k, v in
...              (("host", "example.org"), *headers)]}
...     refused = cross_site_refusal(HTTPConnection(scope), cfg)
...     return refused and refused[0]
>>> cookie = ("cookie", "bh_session=t0ken")
>>> ask(cookie), ask(cookie, ("sec-fetch-site", "same-origin")), ask(cookie,
...     ("sec-fetch-site", "cross-site")), ask(cookie, ("origin", "https://example.org"))
('origin_required', None, 'origin_required', None)
>>> ask(cookie, ("authorization", "Bearer t0ken")), ask(), ask(("origin", "null"))
(None, None, 'bad_origin')
"""

from __future__ import annotations

from urllib.parse import urlsplit

import secure
from secure.middleware.asgi import SecureASGIMiddleware
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket

from ..config import ServerConfig
from .state import session_by_cookie

__all__ = ["CSP", "HeaderLineMiddleware", "OriginMiddleware", "cross_site_refusal",
           "middleware", "origin_allowed", "refuse_handshake", "security_headers"]

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]")
SAFE_METHODS = frozenset(("GET", "HEAD", "OPTIONS"))
#: ``Sec-Fetch-Site`` values by which a browser says a request comes from the site's own
#: pages (``none``: the user's own doing, such as a typed address)
OWN_FETCH_SITES = frozenset(("same-origin", "none"))

BAD_ORIGIN = ("bad_origin", "requests that change something are accepted only from this "
              "site's own pages")
ORIGIN_REQUIRED = ("origin_required", "a request that changes something with the session "
                   "cookie must show it comes from this site's own pages (an Origin or "
                   "Sec-Fetch-Site header, which browsers send); programs send "
                   "Authorization: Bearer <token> instead of the cookie")

#: the web client's policy: its own scripts only (no inline script or handler), its own
#: styles (and style attributes), its own socket, images of its own or ``data:``, and no
#: framing by anybody
CSP = (secure.ContentSecurityPolicy()
       .default_src("'self'").script_src("'self'").style_src("'self'", "'unsafe-inline'")
       .img_src("'self'", "data:").connect_src("'self'").object_src("'none'")
       .base_uri("'none'").form_action("'self'").frame_ancestors("'none'"))


def security_headers() -> secure.Secure:
    """CSP, X-Frame-Options, nosniff and Referrer-Policy for every HTTP answer."""
    return secure.Secure(csp=CSP, xfo=secure.XFrameOptions().deny(),
                         xcto=secure.XContentTypeOptions().nosniff(),
                         referrer=secure.ReferrerPolicy().same_origin())


def _local(host: str | None) -> bool:
    if not host:
        return False
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return name.strip("[]") in ("localhost", "127.0.0.1", "::1")


def origin_allowed(origin: str | None, host: str | None, config: ServerConfig) -> bool:
    """A request without an Origin (a program) is allowed; a browser's only from the
    server's own host, an origin of ``config.allowed_origins``, or — when the server
    itself is reached on a local address — from ``localhost``."""
    if origin is None:
        return True
    if origin in config.allowed_origins:
        return True
    parts = urlsplit(origin)
    if parts.hostname in LOCAL_HOSTS and _local(host):
        return True
    return host is not None and parts.netloc.lower() == host.lower()


def cross_site_refusal(conn: HTTPConnection, config: ServerConfig) -> tuple[str, str] | None:
    """Why a request that may change something, or a WebSocket handshake, is refused as
    possibly made by another site's page — its code and message — or None. An
    ``Origin`` must be one :func:`origin_allowed` allows (``bad_origin``). Without one,
    a request whose session is read from the cookie must carry ``Sec-Fetch-Site:
    same-origin`` or ``none`` (``origin_required``): a browser too old to send either
    cannot show where the request came from, and a program has its bearer token. The
    host compared is the request's ``Host``, which a proxy passes on unchanged."""
    origin = conn.headers.get("origin")
    if origin is not None:
        return None if origin_allowed(origin, conn.headers.get("host"), config) else BAD_ORIGIN
    if session_by_cookie(conn) and conn.headers.get("sec-fetch-site") not in OWN_FETCH_SITES:
        return ORIGIN_REQUIRED
    return None


def _refusal(code: str, message: str, status: int = 403) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


async def refuse_handshake(websocket: WebSocket, code: str, message: str,
                           status: int = 403) -> None:
    """Refuse a WebSocket handshake with ``status`` and the error as an HTTP API error's
    body (where the server cannot answer a handshake with a body: close it, 1008)."""
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(_refusal(code, message, status))
    else:
        await websocket.close(1008, code)


class OriginMiddleware:
    """Refuse (403 ``bad_origin`` or ``origin_required``) an HTTP request that may change
    something — any method but GET, HEAD and OPTIONS — that may come from a page of
    another site (:func:`cross_site_refusal`)."""

    def __init__(self, app: ASGIApp, config: ServerConfig) -> None:
        self.app = app
        self.config = config

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            refused = cross_site_refusal(HTTPConnection(scope), self.config)
            if refused is not None:
                await _refusal(*refused)(scope, receive, send)
                return
        await self.app(scope, receive, send)


class HeaderLineMiddleware:
    """Refuse (431 ``header_too_large``) a request or WebSocket handshake whose request
    target or any one header line (name and value) is longer than
    ``config.max_header_line`` bytes.  (The head as a whole is bounded before it reaches
    the application, by the HTTP parser: ``config.max_header_bytes``.)"""

    def __init__(self, app: ASGIApp, config: ServerConfig) -> None:
        self.app = app
        self.limit = config.max_header_line

    def _too_long(self, scope: Scope) -> str | None:
        target = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"")
        if target > self.limit:
            return "the request line"
        for name, value in scope.get("headers", ()):
            if len(name) + len(value) + 2 > self.limit:
                return f"the header {name[:40].decode('latin-1')!r}"
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            what = self._too_long(scope)
            if what is not None:
                message = f"{what} is longer than {self.limit} bytes"
                if scope["type"] == "http":
                    await _refusal("header_too_large", message, 431)(scope, receive, send)
                else:
                    await refuse_handshake(WebSocket(scope, receive, send),
                                           "header_too_large", message, 431)
                return
        await self.app(scope, receive, send)


def middleware(config: ServerConfig) -> list[Middleware]:
    """The application's middleware, outermost first."""
    return [Middleware(HeaderLineMiddleware, config=config),
            Middleware(SecureASGIMiddleware, secure=security_headers()),
            Middleware(TrustedHostMiddleware, allowed_hosts=list(config.trusted_hosts)),
            Middleware(OriginMiddleware, config=config)]
