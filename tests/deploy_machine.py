"""A machine for ``tests/test_deploy.py``: the paths of a Debian server (``/etc``,
``/var``, ``/opt/baohuang``) under a temporary folder, and stand-ins for what a test
cannot run as it is there — systemd starting a unit, Debian's package manager.

``python tests/deploy_machine.py subst FILE``: rewrites FILE's paths as the commands'
(a file copied onto the machine keeps pointing into it).
``python tests/deploy_machine.py start|stop UNIT``: does what systemd would for the
unit file UNIT: its state directory, its environment (``Environment=``,
``EnvironmentFile=``), its working directory and ``ExecStart`` in the background,
standard error into the machine's journal (``var/log/UNIT.log``), until its server
answers ``/healthz``; or SIGTERM and wait.  ``$DEPLOY_ROOT`` is the machine's root,
``$DEPLOY_PORT`` the server's port (for ``127.0.0.1:8000``), ``$DEPLOY_REPO`` the
checkout and ``$DEPLOY_BIN`` the environment's ``bin`` (for ``/opt/baohuang/bin``).
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx


def mapping(root: str, repo: str, port: str) -> list[tuple[str, str]]:
    """What each path and address of the guide is on this machine, in the order they are
    replaced."""
    return [("/usr/local/src/baohuang", repo), ("/opt/baohuang", f"{root}/opt/baohuang"),
            ("/etc/", f"{root}/etc/"), ("/var/", f"{root}/var/"),
            ("127.0.0.1:8000", f"127.0.0.1:{port}")]


def substitute(text: str, root: str, repo: str, port: str) -> str:
    for old, new in mapping(root, repo, port):
        text = text.replace(old, new)
    return text


def _env() -> tuple[str, str, str]:
    return os.environ["DEPLOY_ROOT"], os.environ["DEPLOY_REPO"], os.environ["DEPLOY_PORT"]


def _unit(path: Path) -> dict[str, list[str]]:
    keys: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith(("#", "[")) and "=" in line:
            key, value = line.split("=", 1)
            keys.setdefault(key, []).append(value)
    return keys


def start(path: Path) -> None:
    root, _, port = _env()
    unit = _unit(path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("BAOHUANG_")}
    for item in unit.get("Environment", []):
        key, value = item.split("=", 1)
        env[key] = value
    for name in unit.get("EnvironmentFile", []):
        file = Path(name.lstrip("-"))
        if file.exists():
            for line in file.read_text().splitlines():
                if "=" in line and not line.startswith("#"):
                    key, value = line.split("=", 1)
                    env[key] = value
        elif not name.startswith("-"):
            raise SystemExit(f"{name}: no such file")
    for name in unit.get("StateDirectory", []):
        Path(root, "var/lib", name).mkdir(parents=True, exist_ok=True)
    env["BAOHUANG_PORT"] = port               # (the file's 8000: this machine's free port)
    folder = unit.get("WorkingDirectory", [root])[0]
    journal = Path(root, "var/log", path.stem + ".log")
    journal.parent.mkdir(parents=True, exist_ok=True)
    with open(journal, "ab") as out:
        process = subprocess.Popen(shlex.split(unit["ExecStart"][0]), env=env, cwd=folder,
                                   stdout=out, stderr=out, start_new_session=True)
    Path(root, "run").mkdir(exist_ok=True)
    Path(root, "run", path.stem + ".pid").write_text(str(process.pid))
    deadline = time.monotonic() + 120
    with httpx.Client(timeout=1) as client:   # (one for every try: each costs a TLS context)
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise SystemExit(f"{path.name} exited with {process.returncode}: "
                                 + journal.read_text()[-2000:])
            try:
                if client.get(f"http://127.0.0.1:{port}/healthz").status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
    raise SystemExit(f"{path.name} did not answer within 120 s")


def stop(path: Path) -> None:
    root, _, _ = _env()
    pid_file = Path(root, "run", path.stem + ".pid")
    if not pid_file.exists():
        return
    pid = int(pid_file.read_text())
    pid_file.unlink()
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return
        if state == "Z":                        # (exited; its reaper has not looked yet)
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)


def main(argv: list[str]) -> None:
    command, target = argv[1], Path(argv[2])
    if command == "subst":
        root, repo, port = _env()
        files = [p for p in target.rglob("*") if p.is_file()] if target.is_dir() else [target]
        for file in files:
            file.write_text(substitute(file.read_text(), root, repo, port))
    elif command == "start":
        start(target)
    elif command == "stop":
        stop(target)
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main(sys.argv)
