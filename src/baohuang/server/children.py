"""A child process that a test, a benchmark or ``baohuang cluster`` starts, and stops
on exit: SIGTERM, and SIGKILL when it has not ended within 15 seconds."""

from __future__ import annotations

import abc
import subprocess
from types import TracebackType
from typing import Self

__all__ = ["ChildProcess"]


class ChildProcess(abc.ABC):
    """Started by :meth:`start` (which sets ``process``), stopped by :meth:`stop`;
    a context manager that does both."""

    process: subprocess.Popen[bytes] | None = None

    @abc.abstractmethod
    def start(self) -> None:
        """Start the process and return once it serves."""

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as if the machine lost it."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        """SIGTERM (a clean shutdown), then SIGKILL after 15 seconds."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
