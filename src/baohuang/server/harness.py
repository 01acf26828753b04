"""Running a real server on loopback for tests and benchmarks: in a thread of
this process (:class:`ServerThread`) or as a separate ``baohuang serve``
process that can be killed (:class:`~.children.ServerProcess`, kept with the other
child processes, as ``baohuang cluster`` starts its nodes with it too)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import uvicorn
from sqlalchemy.engine import make_url
from starlette.applications import Starlette

from .children import ServerProcess, free_port
from .config import ServerConfig
from .table.clock import ClockFactory
from .transport.app import create_app, uvicorn_config

__all__ = ["ADDRESS_LIMITS", "LOAD_LIMITS", "ServerProcess", "ServerThread", "free_port",
           "lifespan", "listening_socket", "pg_database"]

T = TypeVar("T")

#: ``baohuang serve`` flags for a test session, whose many clients all come from one
#: address: the limits on accounts and tables made and codes looked up per address and
#: per account (SECURITY.md) opened wide
ADDRESS_LIMITS = ("--account-rate-address", "1000000/minute", "--table-rate-address",
                  "1000000/minute", "--table-rate-account", "1000000/minute",
                  "--code-rate-address", "1000000/minute", "--code-rate-account",
                  "1000000/minute")
#: the same for a load test or benchmark, and the messages a connection may send a
#: second opened wide too (players that answer at once send more than people do)
LOAD_LIMITS = (*ADDRESS_LIMITS, "--message-rate", "1000000", "--message-burst", "1000000")


async def lifespan(receive: Any, send: Any) -> None:
    """Answer the ASGI lifespan protocol for a bare ASGI app (benchmarks and tests
    that run one on uvicorn): start up, then shut down when told."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def listening_socket(host: str = "127.0.0.1", *, send_buffer: int | None = None
                     ) -> socket.socket:
    """A TCP socket bound to a free port of ``host``, for uvicorn to listen on.

    It is made with ``IPPROTO_TCP`` named: asyncio turns Nagle's algorithm off
    (``TCP_NODELAY``) only on sockets that say they are TCP, and accepted sockets take
    the listening one's protocol.  Left on, a message the server writes in two parts
    (a WebSocket frame's head, then its body) waits for the peer's delayed
    acknowledgement, 40 ms — as on ``baohuang serve``'s sockets, which asyncio makes,
    it never does.  ``send_buffer``: the kernel send buffer of every accepted socket
    (bytes; they inherit it)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if send_buffer is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, send_buffer)
    sock.bind((host, 0))
    return sock


class ServerThread:
    """``with ServerThread(config) as server: server.url`` — uvicorn in a thread."""

    def __init__(self, config: ServerConfig, static_dir: Path | None = None, *,
                 send_buffer: int | None = None, clocks: ClockFactory | None = None) -> None:
        """``send_buffer``: the kernel send buffer of every accepted socket (bytes), to
        act out a slow network; ``clocks``: each table's clock (a test's
        :class:`~.table.clock.ManualClock`), by default real time."""
        self.config = config
        self.clocks = clocks
        self.static_dir = static_dir
        self.send_buffer = send_buffer
        self.port = 0
        #: the application, and the loop it runs on (set once it runs)
        self.app: Starlette | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> ServerThread:
        sock = listening_socket(send_buffer=self.send_buffer)
        self.port = sock.getsockname()[1]
        self.app = app = create_app(self.config, self.static_dir, clocks=self.clocks)
        self._server = uvicorn.Server(uvicorn_config(app, self.config, "127.0.0.1", self.port,
                                                     log_level="warning"))
        self._thread = threading.Thread(target=self._run, args=(sock,), daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if self._error is not None or not self._thread.is_alive():
                raise RuntimeError(f"the server did not start: {self._error!r}")
            if time.monotonic() > deadline:
                raise TimeoutError("the server did not start within 30 s")
            time.sleep(0.01)
        return self

    def _run(self, sock: socket.socket) -> None:
        server = self._server
        assert server is not None

        async def serve() -> None:
            self.loop = asyncio.get_running_loop()
            await server.serve(sockets=[sock])
        try:
            asyncio.run(serve())
        except BaseException as exc:  # pragma: no cover - reported by __enter__
            self._error = exc

    def call(self, work: Callable[[], Awaitable[T]], timeout: float = 30.0) -> T:
        """Run ``work()`` on the server's loop (from another thread) and return its
        result: a test asks the running server to do now what it does on a timer."""
        assert self.loop is not None, "the server is not running"

        async def run() -> T:
            return await work()
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=30)


@contextlib.contextmanager
def pg_database(base_url: str) -> Iterator[str]:
    """A new, empty PostgreSQL database next to ``base_url``'s (dropped afterwards);
    yields its SQLAlchemy URL."""
    import asyncpg

    url = make_url(base_url)
    name = f"bh_test_{uuid.uuid4().hex[:12]}"
    admin = url.set(drivername="postgresql").render_as_string(hide_password=False)

    async def run(sql: str) -> None:
        conn = await asyncpg.connect(admin)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    asyncio.run(run(f'CREATE DATABASE "{name}"'))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(run(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
