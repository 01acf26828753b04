"""Fixtures of the cluster tests (``tests/conftest.py`` brings them to every test):
Debian's real ``redis-server`` and ``haproxy`` started on free loopback ports (one
redis-server a module, emptied before each test), skipped, with the reason, only where
the program or redis-py is not installed (.ci/run installs both programs)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from baohuang.server.cluster.services import HAProxy, RedisServer, binary
from baohuang.server.harness import free_port

NO_REDIS = "redis-server is not installed (Debian: apt-get install redis-server; .ci/run does)"
NO_REDIS_PY = ("redis-py is not installed (the cluster extra: pip install -e '.[cluster]'; "
               "make install-dev does)")
NO_HAPROXY = "haproxy is not installed (Debian: apt-get install haproxy; .ci/run does)"


@pytest.fixture(scope="module")
def _module_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """One redis-server for the tests of a module (on one worker), stopped after them."""
    pytest.importorskip("redis", reason=NO_REDIS_PY)
    if binary("redis-server") is None:
        pytest.skip(NO_REDIS)
    server = RedisServer(free_port(), tmp_path_factory.mktemp("redis"))
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _clean_slate(server: RedisServer) -> None:
    """As a new redis-server: started again if a test stopped it, else no key, no user
    but the default one and no client of an earlier test left connected."""
    if server.process is None or server.process.poll() is not None:
        server.start()
        return
    import redis

    admin = redis.Redis.from_url(server.url)
    try:
        admin.flushall()
        admin.config_resetstat()
        for user in admin.acl_users():
            name = user.decode() if isinstance(user, bytes) else user
            if name != "default":
                admin.acl_deluser(name)
        admin.client_kill_filter(skipme=True, _type="normal")
        admin.client_kill_filter(skipme=True, _type="pubsub")
    finally:
        admin.close()


@pytest.fixture
def redis_server(_module_redis: RedisServer) -> Iterator[RedisServer]:
    """A redis-server as new for each test: the module's, emptied before the test (and
    started again if an earlier test stopped it)."""
    _clean_slate(_module_redis)
    yield _module_redis


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
