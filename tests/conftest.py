"""The suite's tiers: each test is marked by what it needs, from where it lives and the
fixtures it takes, so that ``pytest -m "not browser"`` and the like select as a reader
expects (the markers are registered in ``pyproject.toml``):

- ``browser``: drives Debian's Chromium (``tests/web``, and any test taking ``browser``);
- ``cluster``: starts redis-server (and HAProxy) beside several nodes (``tests/cluster``);
- ``postgres``: the PostgreSQL case of a test run on both databases;
- ``compiled``: a test of what the compiled build compiles (the engine, the learning
  environments, the server's path of a move), which ``make test-compiled`` runs again
  against that build;
- ``slow``: marked by the test itself; ``make check`` leaves these to ``make test``.

Slow tests are handed out first, so that under ``pytest -n`` the longest ones do not
start last and hold the whole run up; the browser tests go to a few groups
(``BROWSER_GROUPS``), so that no more Chromiums than that run at once.
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

import pytest
from _pytest.nodeid import NodeId
from cluster_services import (  # noqa: F401 (fixtures)
    NO_REDIS_PY,
    _module_redis,
    haproxy,
    redis_server,
)
from hypothesis import settings

TESTS = Path(__file__).resolve().parent
#: the package, whose doctests pytest collects (``--doctest-modules``)
PACKAGE = TESTS.parent / "src" / "baohuang"

#: property tests have no time limit per example: a loaded machine (browsers and a
#: compiler beside the suite) is slow, not wrong (hypothesis' 200 ms deadline made
#: examples fail there that pass anywhere else)
settings.register_profile("baohuang", deadline=None)
settings.load_profile("baohuang")

#: whole folders and files whose tests are of what the compiled build compiles
_COMPILED = ("engine", "env", "test_client_views.py")
#: left to the suite: the trainers (RLCard's DMC, MaskablePPO) spend their time in
#: PyTorch, and the environments' own tests already step the compiled environments
_NOT_COMPILED = ("test_trainers.py",)
#: the server tests run against the compiled build: whole games through the compiled
#: table actor, render and SQLite writes, the table's turn and outage timers, its
#: effects read without a loop, and writes refused or fenced off
_COMPILED_SERVER = ("test_server_game.py", "test_server_guard_pause.py",
                    "test_server_outage_clock.py", "test_server_fencing.py",
                    "test_table_core.py", "test_server_store_refused.py")


def _tiers(item: pytest.Item) -> set[str]:
    path = Path(str(item.path))
    try:
        parts = path.relative_to(TESTS).parts
    except ValueError:                   # the package's doctests
        parts = ()
    fixtures = set(getattr(item, "fixturenames", ()))
    marks: set[str] = set()
    if (parts[:1] == ("web",) and path.name.startswith("test_")) or "browser" in fixtures:
        marks.add("browser")
    if parts[:1] == ("cluster",) or "redis_server" in fixtures:
        marks.add("cluster")
    callspec = getattr(item, "callspec", None)
    if callspec is not None and "postgres" in callspec.id.split("-"):
        marks.add("postgres")
    if ((parts[:1] and parts[0] in _COMPILED) or (
            parts[:1] == ("server",) and parts[-1] in _COMPILED_SERVER)) \
            and parts[-1:] != _NOT_COMPILED:
        marks.add("compiled")
    return marks


#: at most this many browser tests at once under ``pytest -n --dist loadgroup``: the browser
#: tests are dealt round-robin into as many groups, each run by one worker in turn, so
#: that the other workers go on with tests that wait on sockets (six Chromiums and a
#: compiler on two cores made pages miss their waits).  The groups are the largest units
#: of work, which xdist hands out first: both start at once.  The 147 browser tests alone
#: on six workers took as long in two groups as spread over all six (576 s against 569 s,
#: on a loaded machine) but 392 s of CPU instead of 493 s, which the suite's other
#: workers get.
BROWSER_GROUPS = 2


@pytest.hookimpl(tryfirst=True)   # (before ``-m`` selects by these marks)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    browsers = 0
    for item in items:
        for name in sorted(_tiers(item)):
            item.add_marker(name)
        if item.get_closest_marker("browser") and not item.get_closest_marker("cluster"):
            item.add_marker(pytest.mark.xdist_group(f"browser{browsers % BROWSER_GROUPS}"))
            browsers += 1
    # the slow ones first (a stable sort: the order within each part is kept)
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


class _GroupsInNodeIds:
    """On a ``--dist loadgroup`` worker, gives each test of an ``xdist_group`` its group in
    its node id (``...::test_x@browser0``), the one channel by which the controller's
    scheduler learns the groups.  pytest-xdist 3.8 does this by writing ``item._nodeid``,
    which pytest 9.2 no longer reads (node ids are structured: pytest-xdist#1386), so that
    every group was silently spread over all workers.  A no-op where xdist's own renaming
    took effect."""

    @pytest.hookimpl(trylast=True)   # (after xdist's own)
    def pytest_collection_modifyitems(self, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        if not getattr(config.option, "loadgroup", False):
            return
        for item in items:
            suffix = xdist_group_suffix(item)
            if suffix and not item.nodeid.endswith(suffix):
                item._id = NodeId.parse(item.nodeid + suffix)   # what ``nodeid`` reads


class _DoctestsOnly:
    """``--doctest-modules`` imports every module of the package to look for doctests,
    and a worker of ``pytest -n`` collects them all: the learning modules bring PyTorch
    (seconds of each worker's start).  A module whose text has no ``>>>`` prompt holds
    no doctest, so it is not collected (not imported) at all: the same doctests run."""

    def pytest_ignore_collect(self, collection_path: Path,
                              config: pytest.Config) -> bool | None:
        if collection_path.suffix == ".py" and collection_path.is_relative_to(PACKAGE) \
                and config.getoption("doctestmodules") \
                and ">>>" not in collection_path.read_text(encoding="utf-8"):
            return True
        return None


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_GroupsInNodeIds(), "baohuang-groups-in-node-ids")
    config.pluginmanager.register(_DoctestsOnly(), "baohuang-doctests-only")


def xdist_group_suffix(item: pytest.Item) -> str:
    """The ``@group`` that ``--dist loadgroup`` expects at the end of the node id of a
    test marked ``xdist_group`` (several groups joined as xdist joins them), or ``""``."""
    names = {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
             for mark in item.iter_markers("xdist_group")}
    return "@" + "_".join(sorted(names)) if names else ""


class _NeedsRedis(pytest.Directory):
    """``tests/cluster`` where redis-py (the ``cluster`` extra) is not installed: its
    modules cannot be imported, so the folder is reported skipped, with the reason."""

    def collect(self) -> list[pytest.Item | pytest.Collector]:
        pytest.skip(NO_REDIS_PY)


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if path == TESTS / "cluster" and find_spec("redis") is None:
        return _NeedsRedis.from_parent(parent, path=path)
    return None
