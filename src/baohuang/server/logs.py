"""The server's log: one event a line, as JSON (for a log collector) or as text (for a
person at a terminal), with the HTTP request or the WebSocket connection and the table
it belongs to.

Every line goes through the standard :mod:`logging` module: the server's own loggers
(``baohuang.server``), uvicorn's and Alembic's alike.  What a line belongs to comes
from context variables, set where a request or a socket begins (:class:`RequestLog`)
and where a table's actor starts (:func:`table_context`), so no call has to pass it.

>>> import io
>>> out = io.StringIO()
>>> handler = log_handler("json", out)
>>> logger = logging.getLogger("baohuang.doctest")
>>> logger.addHandler(handler); logger.setLevel(logging.INFO); logger.propagate = False
>>> token = REQUEST_ID.set("5f0c9a2e")
>>> logger.info("request", extra=fields(method="GET", path="/api/me", status=200))
>>> REQUEST_ID.reset(token)
>>> line = json.loads(out.getvalue())
>>> sorted(line)
['event', 'level', 'logger', 'method', 'path', 'request', 'status', 'time']
>>> line["event"], line["level"], line["request"], line["status"]
('request', 'info', '5f0c9a2e', 200)
>>> handler.setFormatter(TextFormatter()); out = io.StringIO(); handler.setStream(out)
<_io.StringIO object at ...>
>>> logger.warning("table %s: idle", "t1", extra=fields(seats=3))
>>> out.getvalue().split(" ", 2)[2]   # (after the date and the time)
'WARNING baohuang.doctest: table t1: idle seats=3\\n'
"""

from __future__ import annotations

import contextvars
import json
import logging
import secrets
import sys
import time
from collections.abc import Mapping
from typing import IO, Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .table.privacy import is_table_id

__all__ = ["CONNECTION_ID", "FORMATS", "INFO_LOGGERS", "LEVELS", "OWN_LOGGERS", "QUIET_PATHS",
           "REQUEST_ID", "TABLE_ID",
           "ContextFilter", "JsonFormatter", "RequestLog", "TextFormatter",
           "configure_logging", "default_format", "fields", "log_handler", "logged_path",
           "new_id",
           "table_context"]

#: the log's formats (``baohuang serve --log-format``) and levels (``--log-level``)
FORMATS = ("json", "text")
LEVELS = ("debug", "info", "warning", "error")

#: the HTTP request being answered (its id, also sent back as ``X-Request-ID``)
REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "baohuang_request", default=None)
#: the WebSocket connection whose message is being handled
CONNECTION_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "baohuang_connection", default=None)
#: the table whose actor (or one of its tasks) is running
TABLE_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "baohuang_table", default=None)

#: a line's context: its key and the variable it is read from
_CONTEXT = (("request", REQUEST_ID), ("conn", CONNECTION_ID), ("table", TABLE_ID))
#: the keys every JSON line has, which an event's own fields never replace
_BASE = frozenset(("time", "level", "logger", "event", "exc", "stack"))

#: paths asked for all the time by machines (HAProxy's health checks, Prometheus):
#: their requests are logged at debug level, not info
QUIET_PATHS = frozenset(("/healthz", "/metrics"))

log = logging.getLogger("baohuang.server")

_TABLES = "/api/tables/"


def logged_path(path: str) -> str:
    """A request's path as the log shows it: a table looked up by its invitation code
    (``/api/tables/{code}``, which admits anybody to a private table) shows ``<code>``,
    and at most 200 characters.

    >>> logged_path("/api/tables/5f0c9a2e01"), logged_path("/api/tables/QX7K2M/rematch")
    ('/api/tables/5f0c9a2e01', '/api/tables/<code>/rematch')
    """
    if path.startswith(_TABLES):
        key, slash, rest = path[len(_TABLES):].partition("/")
        if not is_table_id(key):
            path = f"{_TABLES}<code>{slash}{rest}"
    return path[:200]


def new_id() -> str:
    """A request's or a connection's id: 12 random hex digits (from ``secrets``), unique
    enough to find its lines among a cluster's nodes for months."""
    return secrets.token_hex(6)


def fields(**values: Any) -> dict[str, Any]:
    """An event's own fields, as ``extra`` of a logging call: ``log.info("socket
    closed", extra=fields(code=1000))`` (JSON: keys of the line; text: ``key=value``)."""
    return {"fields": values}


def table_context(table_id: str) -> contextvars.Context:
    """A context for a table's actor task: the table's id and no request or connection
    (a task started while a request was answered would otherwise carry its id on)."""
    context = contextvars.Context()
    context.run(TABLE_ID.set, table_id)
    return context


def _without_query(value: object) -> object:
    """A path's text without its query string (``/ws?token=…`` → ``/ws``)."""
    if isinstance(value, str) and value.startswith("/") and "?" in value:
        return value.split("?", 1)[0]
    return value


class ContextFilter(logging.Filter):
    """Puts the request, connection and table of the moment on each record (as
    ``record.context``), when the record is made, in the task that logs it; and takes
    the query string off the paths uvicorn logs (its line for each WebSocket handshake
    would show a ``?token=``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "context"):
            record.context = {key: value for key, var in _CONTEXT
                              if (value := var.get()) is not None}
        if record.name.startswith("uvicorn") and isinstance(record.args, tuple):
            record.args = tuple(_without_query(arg) for arg in record.args)
        return True


def _own_fields(record: logging.LogRecord) -> Mapping[str, Any]:
    values = getattr(record, "fields", None)
    return values if isinstance(values, Mapping) else {}


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``time`` (UTC, ISO 8601 with milliseconds), ``level``,
    ``logger``, ``event`` (the message), then the context (``request``, ``conn``,
    ``table``) and the event's own fields, and ``exc`` (the traceback) if any."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
        line: dict[str, Any] = {"time": f"{stamp}.{int(record.msecs):03d}Z",
                                "level": record.levelname.lower(),
                                "logger": record.name, "event": record.getMessage()}
        line.update(getattr(record, "context", None) or {})
        for key, value in _own_fields(record).items():
            if key not in _BASE:
                line[key] = value
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        if record.stack_info:
            line["stack"] = self.formatStack(record.stack_info)
        return json.dumps(line, ensure_ascii=False, default=str)


class TextFormatter(logging.Formatter):
    """``time LEVEL logger: message key=value …`` (the context first, then the event's
    own fields), and the traceback on the lines after."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        pairs = {**(getattr(record, "context", None) or {}), **_own_fields(record)}
        if not pairs:
            return text
        head, newline, rest = text.partition("\n")
        extra = " ".join(f"{key}={value}" for key, value in pairs.items())
        return f"{head} {extra}{newline}{rest}"


def log_handler(fmt: str, stream: IO[str] | None = None) -> logging.Handler:
    """A handler writing to ``stream`` (standard error) in ``fmt`` (``json``, ``text``)."""
    if fmt not in FORMATS:
        raise ValueError(f"a log format is one of {', '.join(FORMATS)}, not {fmt!r}")
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    handler.addFilter(ContextFilter())
    handler.setFormatter(JsonFormatter() if fmt == "json" else TextFormatter())
    return handler


def default_format(stream: IO[str] | None = None) -> str:
    """``text`` when the log goes to a terminal, ``json`` otherwise (a file, journald,
    a pipe to a collector)."""
    out = stream if stream is not None else sys.stderr
    return "text" if out.isatty() else "json"


#: the loggers ``--log-level`` sets: the server's own at that level; uvicorn's and
#: Alembic's (the migrations) at that level but never below info (uvicorn's debug lines
#: are the bytes of each handshake, a session's bearer token among them); every other
#: library logs its warnings and errors only, so that a debug log holds no library's
#: dump of the SQL it runs or the frames it sends
OWN_LOGGERS = ("baohuang",)
INFO_LOGGERS = ("uvicorn", "alembic")


def configure_logging(level: str, fmt: str | None = None,
                      stream: IO[str] | None = None) -> None:
    """Send every logger's lines — the server's, uvicorn's, Alembic's, other libraries',
    Python's warnings — through one handler in ``fmt`` (by default
    :func:`default_format`): :data:`OWN_LOGGERS` at ``level``, :data:`INFO_LOGGERS` at
    ``level`` or info, the rest at ``level`` or warning."""
    if level not in LEVELS:
        raise ValueError(f"a log level is one of {', '.join(LEVELS)}, not {level!r}")
    handler = log_handler(fmt or default_format(stream), stream)
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    number: int = logging.getLevelName(level.upper())
    root.setLevel(max(logging.WARNING, number))
    for name in (*OWN_LOGGERS, *INFO_LOGGERS, "uvicorn.error", "uvicorn.access",
                 "uvicorn.asgi"):
        named = logging.getLogger(name)
        for old in list(named.handlers):
            named.removeHandler(old)
        named.propagate = True
        named.setLevel(number if name in OWN_LOGGERS else
                       max(logging.INFO, number) if name in INFO_LOGGERS else logging.NOTSET)
    logging.captureWarnings(True)


class RequestLog:
    """The outermost ASGI middleware: gives each HTTP request an id (``REQUEST_ID``,
    answered in the ``X-Request-ID`` header) and logs it once answered — method, path
    without its query (a ``?token=`` stays out of the log), status, time taken and
    client address — and each WebSocket connection an id (``CONNECTION_ID``) for
    every line logged while its messages are handled."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "websocket":
            token = CONNECTION_ID.set(new_id())
            try:
                await self.app(scope, receive, send)
            finally:
                CONNECTION_ID.reset(token)
            return
        if kind != "http":
            await self.app(scope, receive, send)
            return
        request_id = new_id()
        header = (b"x-request-id", request_id.encode())
        status = 500                          # (an application that failed answered none)
        began = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), header]
            await send(message)

        token = REQUEST_ID.set(request_id)
        try:
            await self.app(scope, receive, send_with_id)
        finally:
            path = scope.get("path", "")
            level = logging.DEBUG if path in QUIET_PATHS else logging.INFO
            if log.isEnabledFor(level):
                client = scope.get("client")
                log.log(level, "request", extra=fields(
                    method=scope.get("method"), path=logged_path(path), status=status,
                    ms=round((time.perf_counter() - began) * 1000, 2),
                    client=client[0] if client else None))
            REQUEST_ID.reset(token)
