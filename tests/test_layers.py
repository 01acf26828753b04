"""Imports that must never be (ARCHITECTURE.md): the test harness is the tests' and the
benchmarks' alone, and the table actor, the transport (but for where the app is built)
and the moderators' actions reach a cluster only through the table router."""

from __future__ import annotations

from test_build import SRC, _imports

SERVER = SRC / "baohuang" / "server"


def _importers(target: str, under: list[str]) -> list[str]:
    """The modules under ``under`` (folders or files of the server) that import
    ``target`` or a module in it."""
    found = []
    for place in under:
        path = SERVER / place
        for module in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            if any(name == target or name.startswith(target + ".")
                   for name in _imports(module)):
                found.append(str(module.relative_to(SRC)))
    return found


def test_nothing_in_the_package_imports_the_test_harness() -> None:
    harness = SERVER / "harness.py"
    assert [str(m.relative_to(SRC)) for m in sorted(SRC.rglob("*.py")) if m != harness
            and "baohuang.server.harness" in _imports(m)] == []


def test_only_where_the_app_is_built_names_the_cluster() -> None:
    """The lobby, the API, the WebSocket endpoint and the moderators' actions ask the
    ``TableRouter`` where a table runs; ``transport/app.py`` alone chooses the cluster's."""
    transport = [f"transport/{m.name}" for m in sorted((SERVER / "transport").glob("*.py"))
                 if m.name != "app.py"]
    assert _importers("baohuang.server.cluster", ["table", *transport, "moderation.py"]) == []
    assert _importers("baohuang.server.cluster", ["transport/app.py"]) == \
        ["baohuang/server/transport/app.py"]
