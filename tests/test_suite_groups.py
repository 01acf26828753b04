"""The suite's own distribution (tests/conftest.py): under ``pytest -n --dist loadgroup``
the browser tests are dealt into ``BROWSER_GROUPS`` groups, and each group runs on one
worker only, so that no more Chromiums than groups run at once."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from conftest import BROWSER_GROUPS

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent

#: a plugin that skips every test at setup: the run is distributed and reported as a
#: real one, but no server or Chromium is started
DRY_RUN = '''
import pytest

@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    pytest.skip("dry run")
'''

#: browser tests (tests/web, and a server test taking the ``browser`` fixture) beside
#: tests that are not
FILES = ("tests/web/test_web_kick.py", "tests/web/test_web_ready.py",
         "tests/web/test_web_review.py", "tests/server/test_server_cross_site.py")

REPORTED = re.compile(r"^\[(gw\d+)\] \[ *\d+%\] SKIPPED (\S+)", re.MULTILINE)


def test_each_browser_group_runs_on_one_worker(tmp_path: Path) -> None:
    (tmp_path / "dry_run.py").write_text(DRY_RUN)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-vv",
         "-p", "dry_run", "-p", "no:cacheprovider", *FILES],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    reported = REPORTED.findall(run.stdout)
    workers: dict[str, set[str]] = defaultdict(set)
    for worker, nodeid in reported:
        test, _, group = nodeid.partition("@")
        if test.startswith("tests/web/"):
            assert re.fullmatch(r"browser\d+", group), nodeid
        workers[group].add(worker)
    groups = {group for group in workers if group}
    assert groups == {f"browser{n}" for n in range(BROWSER_GROUPS)}, run.stdout
    for group in groups:
        assert len(workers[group]) == 1, (group, workers[group], run.stdout)
    assert workers[""], "the tests of no group ran too"
    assert len(reported) == run.stdout.count(" SKIPPED "), run.stdout
