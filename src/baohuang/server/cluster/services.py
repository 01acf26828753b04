"""The services of a cluster as child processes on loopback — Debian's
``redis-server`` and ``haproxy``, and a throwaway PostgreSQL — for ``baohuang
cluster`` and the tests.  A production cluster runs them as the system's services,
configured as docs/cluster.md says; :func:`haproxy_config` writes the same HAProxy
configuration for both.

>>> nodes = [("127.0.0.1", 8101), ("127.0.0.1", 8102)]
>>> print(haproxy_config(8000, nodes), end="")  # doctest: +ELLIPSIS
global
    maxconn 4096
...
backend nodes
    balance leastconn
    option httpchk GET /healthz
    http-check expect status 200
    default-server inter 1s fall 2 rise 2
    server node1 127.0.0.1:8101 check
    server node2 127.0.0.1:8102 check
"""

from __future__ import annotations

import abc
import contextlib
import glob
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from ..children import ChildProcess

__all__ = ["HAProxy", "Postgres", "RedisServer", "binary", "haproxy_config", "wait_for_port"]

#: where Debian puts the programs (``/usr/sbin`` is not on every user's PATH)
_SEARCH = ("/usr/sbin", "/usr/bin", "/usr/local/bin")


def binary(name: str) -> str | None:
    """The path of program ``name`` (PATH, then ``/usr/sbin``, …), or None."""
    found = shutil.which(name)
    if found is not None:
        return found
    for directory in _SEARCH:
        path = Path(directory) / name
        if path.is_file() and os.access(path, os.X_OK):
            return str(path)
    return None


def wait_for_port(port: int, process: subprocess.Popen[bytes], what: str,
                  timeout: float = 30.0) -> None:
    """Return once something accepts connections on 127.0.0.1:``port``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        time.sleep(0.05)
    raise TimeoutError(f"{what} did not listen on port {port} within {timeout:.0f} s")


class _Service(ChildProcess):
    """A service listening on ``port``, with its files and log in ``directory``."""

    name = "service"

    def __init__(self, port: int, directory: Path) -> None:
        self.port = port
        self.directory = directory
        self.process: subprocess.Popen[bytes] | None = None

    @abc.abstractmethod
    def _command(self) -> list[str]:
        """The program and its arguments (made ready to run)."""

    def _spawn(self, command: Sequence[str]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        log = open(self.directory / f"{self.name}.log", "ab")  # noqa: SIM115
        self.process = subprocess.Popen(list(command), stdout=log, stderr=log,
                                        stdin=subprocess.DEVNULL, cwd=self.directory)
        log.close()

    def start(self) -> None:
        self._spawn(self._command())
        assert self.process is not None
        wait_for_port(self.port, self.process, self.name)


class RedisServer(_Service):
    """``redis-server`` on 127.0.0.1:``port``, keeping nothing on disk (leases and
    messages live only as long as the nodes that use them)."""

    name = "redis"

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _command(self) -> list[str]:
        program = binary("redis-server")
        if program is None:
            raise FileNotFoundError("redis-server is not installed (Debian: redis-server)")
        return [program, "--port", str(self.port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", str(self.directory),
                "--daemonize", "no", "--protected-mode", "yes", "--loglevel", "warning"]


def haproxy_config(port: int, nodes: Sequence[tuple[str, int]], *, host: str = "127.0.0.1",
                   balance: str = "leastconn", maxconn: int = 4096,
                   stats_port: int | None = None) -> str:
    """An ``haproxy.cfg`` that listens on ``host:port`` and balances HTTP and WebSocket
    connections over ``nodes``, each health-checked on ``GET /healthz`` every second
    (out after two failures, back after two successes).  ``balance leastconn``: a
    client reaches any table from any node (the nodes relay its messages over Redis),
    so each new connection goes to the node with the fewest (docs/cluster.md)."""
    lines = [
        "global",
        f"    maxconn {maxconn}",
        "",
        "defaults",
        "    mode http",
        "    option forwardfor",
        "    # a node that refuses a connection: try another at once",
        "    option redispatch",
        "    retries 3",
        "    timeout connect 5s",
        "    timeout client 60s",
        "    timeout server 60s",
        "    # an upgraded WebSocket: the server pings every 20 s",
        "    timeout tunnel 1h",
        "    timeout client-fin 10s",
        "",
        "frontend baohuang",
        f"    bind {host}:{port}",
        "    default_backend nodes",
    ]
    if stats_port is not None:
        lines += ["", "listen stats", f"    bind {host}:{stats_port}", "    stats enable",
                  "    stats uri /"]
    lines += [
        "",
        "backend nodes",
        f"    balance {balance}",
        "    option httpchk GET /healthz",
        "    http-check expect status 200",
        "    default-server inter 1s fall 2 rise 2",
        *(f"    server node{i} {node_host}:{node_port} check"
          for i, (node_host, node_port) in enumerate(nodes, start=1)),
    ]
    return "\n".join(lines) + "\n"


class HAProxy(_Service):
    """``haproxy`` in the foreground with the configuration :func:`haproxy_config`
    makes (written to ``haproxy.cfg`` in ``directory``, checked with ``haproxy -c``)."""

    name = "haproxy"

    def __init__(self, port: int, directory: Path, nodes: Sequence[tuple[str, int]], *,
                 balance: str = "leastconn", maxconn: int = 4096,
                 stats_port: int | None = None) -> None:
        super().__init__(port, directory)
        self.stats_port = stats_port
        self.config = self.directory / "haproxy.cfg"
        self.text = haproxy_config(port, nodes, balance=balance, maxconn=maxconn,
                                   stats_port=stats_port)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _command(self) -> list[str]:
        program = binary("haproxy")
        if program is None:
            raise FileNotFoundError("haproxy is not installed (Debian: haproxy)")
        self.directory.mkdir(parents=True, exist_ok=True)
        self.config.write_text(self.text)
        subprocess.run([program, "-c", "-q", "-f", str(self.config)], check=True)
        return [program, "-db", "-f", str(self.config)]


class Postgres(_Service):
    """A new PostgreSQL cluster in ``directory`` (``initdb``; trust on loopback only),
    its server on 127.0.0.1:``port``, and a database ``baohuang`` owned by the role
    ``baohuang``.  As root, PostgreSQL runs as the user ``postgres``."""

    name = "postgres"

    def __init__(self, port: int, directory: Path) -> None:
        super().__init__(port, directory)
        self.data = directory / "data"

    @property
    def url(self) -> str:
        return f"postgresql+asyncpg://baohuang@127.0.0.1:{self.port}/baohuang"

    @staticmethod
    def programs() -> Path | None:
        """The directory of PostgreSQL's programs (the newest Debian version)."""
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                       key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit()
                       else 0)
        if found:
            return Path(found[-1]).parent
        initdb = binary("initdb")
        return Path(initdb).parent if initdb else None

    def _as_owner(self, command: list[str]) -> list[str]:
        if os.geteuid() == 0:
            return ["runuser", "-u", "postgres", "--", *command]
        return command

    def _command(self) -> list[str]:
        programs = self.programs()
        if programs is None:
            raise FileNotFoundError("PostgreSQL is not installed (Debian: postgresql)")
        self.directory.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres", "postgres")
        if not (self.data / "PG_VERSION").exists():
            subprocess.run(self._as_owner([
                str(programs / "initdb"), "-D", str(self.data), "-U", "baohuang",
                "--auth=trust", "-E", "UTF8", "--no-instructions"]),
                check=True, stdout=subprocess.DEVNULL)
        return self._as_owner([
            str(programs / "postgres"), "-D", str(self.data), "-p", str(self.port),
            "-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={self.directory}",
            "-c", "max_connections=200", "-c", "synchronous_commit=on"])

    def start(self) -> None:
        super().start()
        programs = self.programs()
        assert programs is not None and self.process is not None
        deadline = time.monotonic() + 30
        while subprocess.run([str(programs / "pg_isready"), "-q", "-h", "127.0.0.1",
                              "-p", str(self.port)]).returncode != 0:
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("PostgreSQL did not get ready")
            time.sleep(0.1)
        exists = subprocess.run(
            [str(programs / "psql"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "baohuang",
             "-d", "postgres", "-tAc", "SELECT 1 FROM pg_database WHERE datname = 'baohuang'"],
            check=True, capture_output=True, text=True).stdout.strip()
        if exists != "1":
            subprocess.run([str(programs / "createdb"), "-h", "127.0.0.1", "-p", str(self.port),
                            "-U", "baohuang", "baohuang"], check=True)
