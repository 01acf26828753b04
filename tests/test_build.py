"""The compiled build's recipe (``setup.py``): what a user's ``BAOHUANG_COMPILE=1 pip
install .`` needs in pip's isolated build environment.  (``make test-compiled`` builds
without isolation, in the development venv, so it cannot show a requirement missing.)"""

from __future__ import annotations

import ast
import re
import runpy
import subprocess
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"


def _setup() -> dict[str, Any]:
    """``setup.py``'s names (read as a module: it builds nothing unless run as a script)."""
    return runpy.run_path(str(ROOT / "setup.py"), run_name="setup")


def _module_file(module: str) -> Path | None:
    path = SRC.joinpath(*module.split("."))
    if path.with_suffix(".py").is_file():
        return path.with_suffix(".py")
    return path / "__init__.py" if (path / "__init__.py").is_file() else None


def _imports(path: Path) -> set[str]:
    """Every module name ``path`` imports (relative imports made absolute; for ``from
    m import n``, both ``m`` and ``m.n``, which may be a submodule)."""
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    package = parts[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _third_party_closure(files: list[Path]) -> dict[str, Path]:
    """The libraries imported by ``files`` and by every module of ours they import,
    directly or not (what mypy reads to compile them): each with a file that imports it."""
    todo, seen = list(files), set()
    found: dict[str, Path] = {}
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        parts = path.relative_to(SRC).with_suffix("").parts
        todo += [p for i in range(1, len(parts)) if (p := _module_file(".".join(parts[:i])))]
        for name in _imports(path):
            top = name.partition(".")[0]
            if top == "baohuang":
                if (ours := _module_file(name)) is not None:
                    todo.append(ours)
            elif top and top != "__future__" and top not in sys.stdlib_module_names:
                found.setdefault(top, path)
    return found


def _requirement_name(requirement: str) -> str:
    return re.split(r"[<>=!~; \[]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_the_compiled_build_requires_every_library_mypy_reads() -> None:
    # mypyc type-checks each compiled module and everything it imports: a library
    # missing from the build environment fails the build ("Cannot find implementation or
    # library stub"), unless pyproject.toml tells mypy to take it as untyped
    setup = _setup()
    required = {_requirement_name(r) for r in setup["BUILD_REQUIRES"]}
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    untyped = {m.partition(".")[0] for o in pyproject["tool"]["mypy"]["overrides"]
               if o.get("ignore_missing_imports") for m in o["module"]}
    distributions = packages_distributions()
    closure = _third_party_closure([ROOT / m for m in setup["COMPILED"]])
    assert {"sqlalchemy", "starlette", "numpy"} <= set(closure)    # (the walk follows)
    for top, where in sorted(closure.items()):
        # (names compared as pip does: prometheus_client is prometheus-client)
        names = {_requirement_name(d) for d in distributions.get(top, [top])}
        assert names & required or top in untyped, \
            f"{where.relative_to(ROOT)} imports {top}, not in setup.py's BUILD_REQUIRES"
    assert "mypy" in required


#: libraries of development and learning that a host who only serves must not need
NOT_FOR_SERVING = {"torch", "open_spiel", "pyspiel", "rlcard", "gymnasium", "pettingzoo",
                   "playwright", "mypy", "mypyc", "ruff", "pytest", "hypothesis", "ray"}


def test_serving_and_playing_install_no_development_or_learning_library() -> None:
    """``make serve`` and ``make play`` install the package with its own dependencies
    and the PostgreSQL driver only, and those import nothing of the development or
    learning stack — the 托管, heuristic, learned (NumPy) and search levels among
    them."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = makefile.split("$(STAMP): pyproject.toml", 1)[1].split("\n\n", 1)[0]
    installs = re.findall(r"pip install .*-e '\.\[([a-z,]*)\]'", recipe)
    assert installs == ["postgres"], recipe
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = pyproject["project"]
    served = {_requirement_name(r) for r in
              [*project["dependencies"], *project["optional-dependencies"]["postgres"]]}
    assert not served & {n.replace("_", "-") for n in NOT_FOR_SERVING}, served
    # serving and playing with those libraries absent, as in the serving venv (in a
    # process of its own, where importing any of them fails as if not installed)
    code = """
import importlib.abc, sys
class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ABSENT:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, Absent())
from baohuang.cli import app
from baohuang.server.transport.app import create_app
from baohuang.terminal.app import play_command
from baohuang.bots import make_bot
from baohuang.bots.levels import LEVELS
create_app()
for name in [*(level.name for level in LEVELS), "learned", "search", "hosted"]:
    make_bot(name, seed=0)
print(" ".join(sorted({m.partition(".")[0] for m in sys.modules})))
""".replace("ABSENT", repr(sorted(NOT_FOR_SERVING)))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120)
    imported = set(done.stdout.split())
    assert {"baohuang", "numpy", "starlette", "uvicorn", "sqlalchemy"} <= imported
