"""Fixtures of the cluster tests: Debian's real ``redis-server`` and ``haproxy``
started on free loopback ports in a test's directory (skipped, with the reason,
only where the program is not installed; .ci/run installs both)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("redis", reason="redis-py is not installed (the cluster extra: "
                    "pip install -e '.[cluster]'; make install does)")

from baohuang.server.cluster.services import HAProxy, RedisServer, binary
from baohuang.server.harness import free_port

NO_REDIS = "redis-server is not installed (Debian: apt-get install redis-server; .ci/run does)"
NO_HAPROXY = "haproxy is not installed (Debian: apt-get install haproxy; .ci/run does)"


@pytest.fixture
def redis_server(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server of the test's own, stopped after it."""
    if binary("redis-server") is None:
        pytest.skip(NO_REDIS)
    server = RedisServer(free_port(), tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def haproxy(tmp_path: Path) -> Iterator[Callable[[list[tuple[str, int]]], HAProxy]]:
    """Starts an HAProxy in front of the nodes given (stopped after the test)."""
    if binary("haproxy") is None:
        pytest.skip(NO_HAPROXY)
    started: list[HAProxy] = []

    def start(nodes: list[tuple[str, int]]) -> HAProxy:
        proxy = HAProxy(free_port(), tmp_path / f"haproxy{len(started)}", nodes)
        started.append(proxy)
        proxy.start()
        return proxy

    try:
        yield start
    finally:
        for proxy in started:
            proxy.stop()
