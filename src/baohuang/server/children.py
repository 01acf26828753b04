"""A child process that a test, a benchmark or ``baohuang cluster`` starts, and stops
on exit: SIGTERM, and SIGKILL when it has not ended within 15 seconds; among them a
``baohuang serve`` on loopback (:class:`ServerProcess`)."""

from __future__ import annotations

import abc
import contextlib
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Self

import httpx

__all__ = ["ChildProcess", "ServerProcess", "free_port"]


def free_port() -> int:
    """A loopback port nobody listens on now (for a child to serve on)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


class ChildProcess(abc.ABC):
    """Started by :meth:`start` (which sets ``process``), stopped by :meth:`stop`;
    a context manager that does both."""

    process: subprocess.Popen[bytes] | None = None

    @abc.abstractmethod
    def start(self) -> None:
        """Start the process and return once it serves."""

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as if the machine lost it."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        """SIGTERM (a clean shutdown), then SIGKILL after 15 seconds."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


class ServerProcess(ChildProcess):
    """``baohuang serve`` as a child process (to be killed and restarted)."""

    def __init__(self, db_url: str, port: int | None = None, *args: str,
                 log: Path | None = None) -> None:
        self.db_url = db_url
        self.port = port or free_port()
        self.args = args
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 120.0) -> None:
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(
            [sys.executable, "-m", "baohuang.cli", "serve", "--port", str(self.port),
             "--db", self.db_url, "--log-level", "warning", *self.args],
            stdout=out, stderr=out, env={**os.environ, "PYTHONUNBUFFERED": "1"})
        deadline = time.monotonic() + timeout
        # one client for every try: ``httpx.get`` builds a client, and its TLS context,
        # each time (25 ms of CPU, some 40 times while a server starts)
        with httpx.Client(timeout=1) as client:
            while time.monotonic() < deadline:
                if self.process.poll() is not None:
                    raise RuntimeError(f"the server exited with {self.process.returncode}")
                with contextlib.suppress(httpx.HTTPError):
                    if client.get(self.url + "/healthz").status_code == 200:
                        return
                time.sleep(0.05)
        raise TimeoutError("the server did not answer within the timeout")
