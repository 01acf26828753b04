"""``baohuang cluster``: a whole cluster on this machine, for trying it out —
PostgreSQL (or the one ``--db`` names), redis-server (or ``--redis``), N
``baohuang serve`` nodes and HAProxy in front of them; Ctrl-C stops everything.
What each piece is and how to run them for real: docs/cluster.md."""

from __future__ import annotations

import contextlib
import signal
import sys
import time
from pathlib import Path
from types import FrameType

import typer

__all__ = ["cluster_command"]


def cluster_command(
    nodes: int = typer.Option(3, help="how many baohuang serve nodes"),
    port: int = typer.Option(8000, help="HAProxy's port: where players connect"),
    db: str | None = typer.Option(
        None, help="a PostgreSQL URL the nodes share (postgresql+asyncpg://user:password@"
        "host/name); default: a PostgreSQL of its own in DIRECTORY"),
    redis: str | None = typer.Option(
        None, help="a Redis URL (redis://host:port/db); default: a redis-server of its own"),
    directory: str = typer.Option("data/cluster",
                                  help="where the services keep their files and logs"),
    lease_ttl: float = typer.Option(5.0, help="seconds a node's table lease lasts unrenewed"),
) -> None:
    """Start PostgreSQL, Redis, NODES server nodes and HAProxy on this machine (loopback),
    print where to connect, and stop them all on Ctrl-C."""
    from ..children import ServerProcess, free_port
    from .services import HAProxy, Postgres, RedisServer

    if nodes < 1:
        raise typer.BadParameter("at least 1", param_hint="--nodes")
    base = Path(directory).absolute()
    base.mkdir(parents=True, exist_ok=True)
    stack = contextlib.ExitStack()

    def stop(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        with stack:
            if db is None:
                postgres = Postgres(free_port(), base / "postgres")
                typer.echo(f"starting PostgreSQL on port {postgres.port} …")
                postgres.start()
                stack.callback(postgres.stop)
                db = postgres.url
            if redis is None:
                server = RedisServer(free_port(), base / "redis")
                typer.echo(f"starting redis-server on port {server.port} …")
                server.start()
                stack.callback(server.stop)
                redis = server.url
            started: list[ServerProcess] = []
            for index in range(1, nodes + 1):
                node = ServerProcess(db, None, "--redis", redis, "--node", f"node{index}",
                                     "--lease-ttl", str(lease_ttl),
                                     log=base / f"node{index}.log")
                typer.echo(f"starting node{index} on port {node.port} …")
                node.start()
                stack.callback(node.stop)
                started.append(node)
            proxy = HAProxy(port, base / "haproxy",
                            [("127.0.0.1", node.port) for node in started],
                            stats_port=free_port())
            proxy.start()
            stack.callback(proxy.stop)
            typer.echo("")
            typer.echo(f"Players connect to http://127.0.0.1:{port}/ (HAProxy)")
            typer.echo(f"  HAProxy statistics: http://127.0.0.1:{proxy.stats_port}/")
            for index, node in enumerate(started, start=1):
                typer.echo(f"  node{index}: {node.url} (log: {base / f'node{index}.log'})")
            typer.echo(f"  PostgreSQL: {db}")
            typer.echo(f"  Redis: {redis}")
            typer.echo("Ctrl-C stops everything.")
            gone: set[int] = set()
            while True:
                for index, node in enumerate(started, start=1):
                    process = node.process
                    if index not in gone and process is not None and process.poll() is not None:
                        gone.add(index)
                        typer.echo(f"node{index} exited ({process.returncode}); the other nodes "
                                   f"take its tables over", err=True)
                time.sleep(1)
    except KeyboardInterrupt:
        typer.echo("stopped", err=sys.stderr.isatty())
