"""Reading the player's answers in ``baohuang play``: a line each, from a terminal
(with line editing) or from a pipe or file (echoed, so that a transcript reads like a
session); once input ends, every later question gets ``None`` and 托管 answers."""

from __future__ import annotations

import contextlib
import sys
from typing import IO

from rich.console import Console
from rich.markup import escape

__all__ = ["Prompter"]


class Prompter:
    """Reads the player's answers, one line each.

    From a terminal it uses Rich's input (line editing); from a pipe or file
    it echoes what it read so the transcript reads like a session.  At the
    end of the input every later question gets ``None`` (take the default).
    """

    def __init__(self, console: Console, stream: IO[str] | None = None,
                 interactive: bool | None = None) -> None:
        self.console = console
        self.stream = stream if stream is not None else sys.stdin
        self.interactive = self.stream.isatty() if interactive is None else interactive
        self.eof = False
        self.eof_message = "(end of input: 托管 takes the default answer from now on)"
        if self.interactive:
            # line editing and history (↑ repeats the last play) where available
            with contextlib.suppress(ImportError):
                import readline  # noqa: F401

    def ask(self, prompt: str) -> str | None:
        """The next line (without its newline), or ``None`` once input ended."""
        if self.eof:
            return None
        if self.interactive:
            try:
                return self.console.input(prompt)
            except EOFError:
                self._ended()
                return None
        self.console.print(prompt, end="")
        line = self.stream.readline()
        if not line:
            self.console.print()
            self._ended()
            return None
        line = line.rstrip("\r\n")
        self.console.print(escape(line) if line.strip() else "[dim]⏎[/]", highlight=False)
        return line

    def _ended(self) -> None:
        self.eof = True
        self.console.print(f"[dim]{escape(self.eof_message)}[/]")
