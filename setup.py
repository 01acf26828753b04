"""The package's build, with an optional compiled one.

Everything about the package is in ``pyproject.toml``; this file adds one thing: with
``BAOHUANG_COMPILE=1`` in the environment, a wheel (``pip wheel``, ``pip install .``)
has the engine's and the learning environment's hot modules compiled to C extensions
by mypyc, beside the pure-Python sources of every module (so the package works the
same, only faster; ``bench/env.md`` has the figures).  It needs a C compiler; pip
fetches mypy for the build, or with ``--no-build-isolation`` the environment's own
mypy is used (the ``dev`` extra's).  Without the variable nothing is compiled, and an
editable install (``pip install -e .``, what ``make install`` does) never is: a
compiled module beside its source would shadow every later edit of it.

    BAOHUANG_COMPILE=1 pip wheel --no-deps -w dist .
    make test-compiled      # builds into .venv-compiled and runs the tests there
"""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

from setuptools import setup

#: The modules compiled: the engine's and the learning environment's step, and the
#: server's path of a move (the table actor, its seats, turns and clock, the render of
#: a move's updates, the connection's writer: ``bench/server.md``).  Left out, and why
#: (mypyc's limits; ``bench/env.md``): ``engine/events.py`` (a seat's typed
#: events are decoded into its msgspec Structs, whose field types msgspec cannot read
#: once mypyc has compiled them), ``engine/cards.py`` (``Card`` subclasses
#: ``int``, which mypyc compiles only as a plain Python class), ``engine/views.py`` (it
#: sets ``View``'s slots through their descriptors, ``View.__dict__``; the values it puts
#: in views are made by ``engine/viewvalues.py``, compiled), ``engine/rules.py``
#: (``RuleSet`` takes option names as strings and turns them into enums after
#: ``__init__``, while compiled code checks each argument's declared type first),
#: ``server/wire/protocol.py`` (msgspec's ``Struct`` fields), ``server/db/action_log.py``
#: (``Storage`` subclasses its ``ActionLog``), ``server/transport/ws.py``
#: (compiled, its coroutine made a move dearer); and everything where the time is not
#: (bots, accounts, the lobby, terminal, tournaments).
COMPILED = [
    "src/baohuang/engine/actions.py",
    "src/baohuang/engine/plays.py",
    "src/baohuang/engine/moves.py",
    "src/baohuang/engine/state.py",
    "src/baohuang/engine/playphase.py",
    "src/baohuang/engine/roles.py",
    "src/baohuang/engine/game.py",
    "src/baohuang/engine/viewvalues.py",
    "src/baohuang/engine/scoring.py",
    "src/baohuang/env/actions.py",
    "src/baohuang/env/observation.py",
    "src/baohuang/env/values.py",
    "src/baohuang/env/vector.py",
    "src/baohuang/server/table/tables.py",
    "src/baohuang/server/table/seating.py",
    "src/baohuang/server/table/seats.py",
    "src/baohuang/server/table/seatstate.py",
    "src/baohuang/server/table/shell.py",
    "src/baohuang/server/table/turns.py",
    "src/baohuang/server/table/clock.py",
    "src/baohuang/server/table/outage.py",
    "src/baohuang/server/table/effects.py",
    "src/baohuang/server/wire/render.py",
    "src/baohuang/server/transport/connection.py",
    "src/baohuang/server/db/storage_sqlite.py",
]

_PROJECT = tomllib.loads(Path(__file__).with_name("pyproject.toml").read_text(
    encoding="utf-8"))["project"]

#: what mypy needs to see to compile :data:`COMPILED` (the types of everything they
#: import, and of what that imports): the package's own dependencies, gymnasium for the
#: environments, and the cluster extra's Redis client (the lobby can run tables in a
#: cluster).  (PettingZoo, RLCard and OpenSpiel, which only the environments' package
#: imports, mypy is told to take as untyped: ``pyproject.toml``.)
BUILD_REQUIRES = ["mypy>=2.4", "gymnasium>=1.4,<2", *_PROJECT["optional-dependencies"]["cluster"],
                  *_PROJECT["dependencies"]]

#: setuptools commands that build extension modules (the others, such as the
#: metadata that pip asks for first, need no compiling)
_BUILDING = {"bdist_wheel", "build", "build_ext", "install"}


def compiled_extensions() -> list[object]:
    """mypyc's extension modules for :data:`COMPILED`, when a compiled wheel is being
    built; otherwise none."""
    if os.environ.get("BAOHUANG_COMPILE", "") != "1":
        return []
    if "editable_wheel" in sys.argv or "develop" in sys.argv:
        sys.exit("BAOHUANG_COMPILE=1: a compiled build cannot be editable "
                 "(build a wheel: pip wheel . or pip install .)")
    if not _BUILDING.intersection(sys.argv):
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        sys.exit("BAOHUANG_COMPILE=1 needs mypy in the build environment "
                 "(pip install mypy, or build without --no-build-isolation)")
    return list(mypycify(COMPILED, opt_level="3"))


if __name__ == "__main__":        # (setuptools runs this file as __main__; a test reads it)
    setup(
        ext_modules=compiled_extensions(),
        # pip's isolated build environment gets these only for a compiled build
        setup_requires=BUILD_REQUIRES if os.environ.get("BAOHUANG_COMPILE", "") == "1" else [],
    )
