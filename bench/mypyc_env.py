"""A compiled copy of the engine and the learning environment, for measuring: copies
``src/baohuang`` to ``--out`` and compiles the hot modules there with mypyc (from the
``dev`` extra's mypy), leaving the package of this checkout as it is.  Then

    PYTHONPATH=<out>/src python bench/env.py --cpu

times the compiled copy (``bench/env.md`` has the figures and what does not work).

    nice -n 19 python bench/mypyc_env.py --out /tmp/baohuang-mypyc    # several minutes

This is an evaluation, not a build of the package: ``pip install`` never compiles,
and the compiled copy is not tested in CI.  Left out, and why (mypyc's limits):

- ``engine/cards.py``: ``Card`` subclasses ``int`` (mypyc compiles no subclass of a
  built-in type but as a plain Python class);
- ``engine/roles.py``: mypyc fails inside on a starred tuple in an ``in`` test;
- ``engine/views.py``: it sets ``View``'s slots through their descriptors
  (``View.__dict__``), which compiled code cannot reach;
- ``engine/rules.py``: ``RuleSet`` takes option names as strings and makes them enums
  after ``__init__``, while compiled code checks each argument's declared type first.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: the modules compiled (paths under ``src``)
COMPILED = (
    "baohuang/engine/actions.py", "baohuang/engine/plays.py", "baohuang/engine/moves.py",
    "baohuang/engine/state.py", "baohuang/engine/playphase.py", "baohuang/engine/game.py",
    "baohuang/engine/events.py", "baohuang/engine/scoring.py",
    "baohuang/env/actions.py", "baohuang/env/observation.py", "baohuang/env/values.py",
    "baohuang/env/vector.py",
)


def build(out: Path) -> Path:
    """Copy the package to ``out/src`` and compile :data:`COMPILED` there; returns the
    directory to put on ``PYTHONPATH``."""
    src = out / "src"
    if src.exists():
        shutil.rmtree(src)
    shutil.copytree(ROOT / "src" / "baohuang", src / "baohuang",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    shutil.copy(ROOT / "pyproject.toml", out / "pyproject.toml")     # mypy's settings
    subprocess.run([sys.executable, "-m", "mypyc", *COMPILED], cwd=src, check=True)
    return src


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True,
                        help="where the compiled copy goes (made if missing)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    src = build(args.out.resolve())
    print(f"compiled; time it with: PYTHONPATH={src} python bench/env.py --cpu")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
