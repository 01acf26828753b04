"""docs/deploy.md, run: every command of its ``sh`` blocks, in order, on a machine whose
``/etc``, ``/var`` and ``/opt/baohuang`` are a temporary folder's
(``tests/deploy_machine.py``) — the settings copied and checked by ``baohuang config
check``, the secrets made with openssl, the systemd units checked by ``systemd-analyze
verify`` and started as systemd would start them, ``/healthz`` asked with curl, a backup
taken while the server runs, a restart, the HAProxy configurations checked by
``haproxy -c`` with a certificate made as the guide says.  A block marked ``<!--
deploy-test: covered by tests/… -->`` names the test that covers it instead; each
command that needs Debian's package manager or a running systemd is a stand-in, and
only those named here may be."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from deploy_machine import substitute

from baohuang.server.configfile import KEYS
from baohuang.server.harness import free_port

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "deploy.md"
MACHINE = Path(__file__).resolve().parent / "deploy_machine.py"
UNITS = REPO / "deploy" / "systemd"
HAPROXY = shutil.which("haproxy") or ("/usr/sbin/haproxy"
                                      if os.path.exists("/usr/sbin/haproxy") else None)
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")

#: what stands in for a command a test cannot run as it is, and why
STAND_INS = """
apt-get() { echo "NOT RUN: apt-get $* (Debian's packages; .ci/run installs the same)"; }
runuser() { echo "NOT RUN: runuser $* (Debian's PostgreSQL service; tests/cluster run one)"; }
python3() {
    if [ "${1:-} ${2:-}" = "-m venv" ]; then mkdir -p "$3" && ln -s "$DEPLOY_BIN" "$3/bin";
    else command python3 "$@"; fi
}
pip_stand_in() { echo "NOT RUN: pip $* (the package under test is installed)"; }
cp() { command cp "$@" && "$DEPLOY_PY" "$DEPLOY_MACHINE" subst "${@: -1}"; }
systemctl() {
    unit="$DEPLOY_ROOT/etc/systemd/system/baohuang.service"
    case "${1:-} ${2:-} ${3:-}" in
        "enable --now baohuang") "$DEPLOY_PY" "$DEPLOY_MACHINE" start "$unit" ;;
        "restart baohuang ")
            "$DEPLOY_PY" "$DEPLOY_MACHINE" stop "$unit" &&
            "$DEPLOY_PY" "$DEPLOY_MACHINE" start "$unit" ;;
        *) echo "NOT RUN: systemctl $* (no systemd running)" ;;
    esac
}
journalctl() { tail -n 20 "$DEPLOY_ROOT/var/log/baohuang.log"; }
"""
#: the programs whose commands may be stand-ins
NOT_RUN = {"apt-get", "runuser", "pip", "systemctl"}


def _blocks() -> list[tuple[str | None, str]]:
    """Each ``sh`` block of the guide, with the marker before it (or None)."""
    text = DOC.read_text()
    found = re.finditer(r"(?:<!-- deploy-test: (.*?) -->\n)?```sh\n(.*?)```", text, re.S)
    return [(match.group(1), match.group(2)) for match in found]


def test_every_marked_block_names_a_test_that_exists() -> None:
    marked = [marker for marker, _ in _blocks() if marker is not None]
    assert marked
    for marker in marked:
        named = re.fullmatch(r"covered by (tests/\S+\.py)", marker)
        assert named and (REPO / named.group(1)).exists(), marker


def test_the_guide_names_every_setting() -> None:
    text = DOC.read_text()
    missing = [key for key in KEYS if f"`{key}`" not in text]
    assert not missing, missing


@pytest.mark.skipif(HAPROXY is None, reason="haproxy is not installed (.ci/run installs it)")
def test_every_command_of_the_guide_runs(tmp_path: Path) -> None:
    root = tmp_path / "machine"
    for folder in ("etc/systemd/system", "etc/haproxy", "etc/redis", "var/log",
                   "etc/letsencrypt/live/bh.example.org", "opt"):
        (root / folder).mkdir(parents=True)
    (root / "etc/redis/redis.conf").write_text("bind 127.0.0.1 -::1\n")
    # what certbot would have left: a certificate and its key
    live = root / "etc/letsencrypt/live/bh.example.org"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-subj", "/CN=bh.example.org", "-keyout", str(live / "privkey.pem"),
                    "-out", str(live / "fullchain.pem")], check=True, capture_output=True)
    port = str(free_port())
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("BAOHUANG_")},
           "DEPLOY_ROOT": str(root), "DEPLOY_REPO": str(REPO), "DEPLOY_PORT": port,
           "DEPLOY_BIN": str(Path(sys.executable).parent), "DEPLOY_PY": sys.executable,
           "DEPLOY_MACHINE": str(MACHINE),
           "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}:/usr/sbin"}
    if SYSTEMD_ANALYZE is None:
        env["DEPLOY_NO_ANALYZE"] = "1"
    commands = "\n".join(text for marker, text in _blocks() if marker is None)
    commands = commands.replace("/opt/baohuang/bin/pip ", "pip_stand_in ")
    script = "set -eu\n" + STAND_INS + (
        'systemd-analyze() { echo "NOT RUN: systemd-analyze (not installed)"; }\n'
        if SYSTEMD_ANALYZE is None else "") + substitute(commands, str(root), str(REPO), port)
    unit = root / "etc/systemd/system/baohuang.service"
    try:
        done = subprocess.run(["bash", "-c", script], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=600)
    finally:
        subprocess.run([sys.executable, str(MACHINE), "stop", str(unit)], env=env,
                       check=False)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    not_run = {line.split()[2] for line in out.splitlines() if line.startswith("NOT RUN:")}
    assert not_run <= NOT_RUN | ({"systemd-analyze"} if SYSTEMD_ANALYZE is None else set())
    # both settings files passed the check, both HAProxy configurations too
    assert out.count("settings ok: the server would listen on") == 2, out
    assert out.count("Configuration file is valid") == 2, out
    # the server the unit started answered, before and after its restart, and its log
    # (what journalctl showed) is JSON lines
    assert out.count('{"ok":true') == 2, out
    assert "backed up to" in out, out
    journal = (root / "var/log/baohuang.log").read_text().splitlines()
    assert journal and all(line.startswith('{"time": ') for line in journal)
    # the secrets are root's only
    for secrets in ("etc/baohuang/secrets.env",):
        assert (root / secrets).stat().st_mode & 0o077 == 0
    assert (root / "etc/haproxy/certs/bh.example.org.pem").exists()


@pytest.mark.skipif(SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed")
@pytest.mark.parametrize("name", ["baohuang.service", "baohuang@8101.service"])
def test_the_units_pass_systemd_analyze_verify(tmp_path: Path, name: str) -> None:
    """Each unit as shipped, its ``ExecStart`` the ``baohuang`` of this environment."""
    for unit in UNITS.iterdir():
        text = unit.read_text().replace("/opt/baohuang/bin/baohuang",
                                        str(Path(sys.executable).parent / "baohuang"))
        (tmp_path / unit.name).write_text(text)
    assert SYSTEMD_ANALYZE is not None
    done = subprocess.run([SYSTEMD_ANALYZE, "verify", str(tmp_path / name)],
                          capture_output=True, text=True)
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr
