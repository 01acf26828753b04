"""Running the installed ``baohuang`` command in the terminal tests: with piped input,
or on a pseudo-terminal (so that it is interactive)."""

from __future__ import annotations

import os
import re
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path


def baohuang_command() -> list[str]:
    script = Path(sys.executable).parent / "baohuang"
    if script.exists():
        return [str(script)]
    found = shutil.which("baohuang")
    return [found] if found else [sys.executable, "-m", "baohuang.cli"]


def run_play(args: list[str], lines: list[str] | str) -> subprocess.CompletedProcess[str]:
    """``baohuang play ARGS`` with ``lines`` piped to its standard input."""
    text = lines if isinstance(lines, str) else "".join(line + "\n" for line in lines)
    env = {**os.environ, "COLUMNS": "160", "NO_COLOR": "1", "TERM": "dumb"}
    return subprocess.run([*baohuang_command(), "play", *args], input=text, capture_output=True,
                          text=True, timeout=120, env=env, check=False)


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r")


class Terminal:
    """``baohuang ARGS`` on a pseudo-terminal (so it is interactive): wait for output,
    type lines."""

    def __init__(self, args: list[str]) -> None:
        import fcntl
        import struct
        import termios
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 160, 0, 0))
        env = {**os.environ, "COLUMNS": "160", "LINES": "50", "NO_COLOR": "1"}
        self.proc = subprocess.Popen([*baohuang_command(), *args], stdin=slave, stdout=slave,
                                     stderr=slave, env=env, start_new_session=True)
        os.close(slave)
        self.fd = master
        self.buffer = ""

    def expect(self, pattern: str, timeout: float = 60) -> str:
        """The output up to the end of the first match of ``pattern`` (consumed)."""
        deadline = time.monotonic() + timeout
        while True:
            found = re.search(pattern, self.buffer)
            if found:
                text, self.buffer = self.buffer[:found.end()], self.buffer[found.end():]
                return text
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern!r} in {self.buffer[-600:]!r}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:            # the program ended
                    data = b""
                assert data or re.search(pattern, self.buffer), \
                    f"ended without {pattern!r}: {self.buffer[-600:]!r}"
                self.buffer += _ANSI.sub("", data.decode("utf-8", "replace"))

    def type(self, line: str) -> None:
        os.write(self.fd, (line + "\r").encode())

    def close(self) -> int:
        try:
            code = self.proc.wait(30)
        finally:
            os.close(self.fd)
        return code

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        """A program still running when the test ends (it failed) is killed."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.close()
