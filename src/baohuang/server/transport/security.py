"""What every HTTP answer carries and what every state-changing request must show:
security headers (the ``secure`` library's ASGI middleware), the Origin check of
requests that change something (a page of another site may not act with a
player's cookie), and the trusted hosts (Starlette's middleware).

>>> cfg = ServerConfig(db_url="sqlite+aiosqlite://")
>>> origin_allowed(None, "example.org", cfg), origin_allowed("https://example.org",
...     "example.org", cfg), origin_allowed("https://evil.test", "example.org", cfg)
(True, True, False)
>>> origin_allowed("http://localhost:5173", "127.0.0.1:8000", cfg)
True
>>> origin_allowed("http://localhost:5173", "example.org", cfg)
False
"""

from __future__ import annotations

from urllib.parse import urlsplit

import secure
from secure.middleware.asgi import SecureASGIMiddleware
from starlette.datastructures import Headers
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from ..config import ServerConfig

__all__ = ["CSP", "OriginMiddleware", "middleware", "origin_allowed", "security_headers"]

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1", "[::1]")
SAFE_METHODS = frozenset(("GET", "HEAD", "OPTIONS"))

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


class OriginMiddleware:
    """Refuse (403 ``bad_origin``) an HTTP request that may change something —
    any method but GET, HEAD and OPTIONS — sent from a page of another origin."""

    def __init__(self, app: ASGIApp, config: ServerConfig) -> None:
        self.app = app
        self.config = config

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            headers = Headers(scope=scope)
            if not origin_allowed(headers.get("origin"), headers.get("host"), self.config):
                response = JSONResponse({"error": {
                    "code": "bad_origin",
                    "message": "requests that change something are accepted only from "
                               "this site's own pages"}}, status_code=403)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def middleware(config: ServerConfig) -> list[Middleware]:
    """The application's middleware, outermost first."""
    return [Middleware(SecureASGIMiddleware, secure=security_headers()),
            Middleware(TrustedHostMiddleware, allowed_hosts=list(config.trusted_hosts)),
            Middleware(OriginMiddleware, config=config)]
