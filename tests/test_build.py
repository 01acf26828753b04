"""The compiled build's recipe (``setup.py``): what a user's ``BAOHUANG_COMPILE=1 pip
install .`` needs in pip's isolated build environment.  (``make test-compiled`` builds
without isolation, in the development venv, so it cannot show a requirement missing.)"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _setup_list(name: str) -> list[str]:
    """The strings of ``setup.py``'s list ``name``; a ``*…`` in it stands for the
    package's own dependencies, which it reads from ``pyproject.toml``."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            assert isinstance(node.value, ast.List)
            out = []
            for item in node.value.elts:
                if isinstance(item, ast.Starred):
                    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
                    out += project["project"]["dependencies"]
                else:
                    out.append(str(ast.literal_eval(item)))
            return out
    raise AssertionError(f"setup.py has no {name}")


def _third_party_imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.level == 0 \
            and node.module else []
        for name in names:
            top = name.partition(".")[0]
            if top != "baohuang" and top != "__future__" and top not in sys.stdlib_module_names:
                found.add(top)
    return found


def test_the_compiled_build_requires_every_library_its_modules_import() -> None:
    # mypyc type-checks each compiled module: a library it imports that is missing from
    # the build environment fails the build ("Cannot find implementation or library stub")
    required = {re.split(r"[<>=!~; \[]", r, maxsplit=1)[0].lower()
                for r in _setup_list("BUILD_REQUIRES")}
    distributions = packages_distributions()
    for module in _setup_list("COMPILED"):
        for top in _third_party_imports(ROOT / module):
            names = {d.lower() for d in distributions.get(top, [top])}
            assert names & required, f"{module} imports {top}, not in setup.py's BUILD_REQUIRES"
    assert "mypy" in required
