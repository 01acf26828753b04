"""``baohuang play`` on a pseudo-terminal, as a person plays it: Enter takes the first
hint, "play again" starts a new game or ends, and lines typed ahead are answered in
order."""

from __future__ import annotations

import os
import re

from terminal.support import Terminal

PROMPT = r"(Your choice[^\n]*> |Your play[^\n]*> |Play again\?[^\n]*> )"


def test_enter_in_play_takes_the_first_hint_and_play_again_starts_a_new_game() -> None:
    with Terminal(["play", "--seed", "11", "--bots", "hosted", "--delay", "0"]) as term:
        plays = 0
        while True:
            prompt = term.expect(PROMPT)
            if "Play again?" in prompt:
                break
            if "Your play" in prompt:
                line = prompt.splitlines()[-1]
                # Enter is named in the prompt: the first hint, never a silent 托管 pass
                assert re.search(r"Enter = (hint 1: |\S*pass)", line), line
                plays += 1
            term.type("")
        assert plays > 0
        term.type("y")                             # play again: a new deal
        assert "保皇 Baohuang" in term.expect(r"seed \d+")
        term.expect(PROMPT)
        term.type("quit")
        term.expect("Bye")
        assert term.close() == 0


def test_play_again_answered_with_enter_ends() -> None:
    with Terminal(["play", "--seed", "12", "--bots", "hosted", "--delay", "0"]) as term:
        while "Play again?" not in term.expect(PROMPT):
            term.type("")
        term.type("")
        assert term.close() == 0
        assert "seed" not in term.buffer


def test_lines_typed_ahead_are_answered_in_order_not_dropped() -> None:
    """Everything typed while the bots play — whole lines, and a line begun before the
    prompt comes — reaches the next prompts in order; no prompt throws typed input away."""
    with Terminal(["play", "--seed", "11", "--bots", "hosted", "--delay", "0.2"]) as term:
        # before the program has read anything: "1" for the role phase's question (claim
        # the solo), "1" for hint 1 at the first play prompt, then "p" (refused when
        # leading) and "?" (the help) at the next
        os.write(term.fd, b"1\r1\rp\r?\r")
        while "Your play" not in term.expect(PROMPT):
            pass
        assert "You 出 play 6 6 6" in term.expect(r"Your play[^\n]*> ")
        answered = term.expect(r"Your play[^\n]*> ")
        assert "you lead: you must play, not pass" in answered
        answered = term.expect(r"Your play[^\n]*> ")
        assert "Ranks: BJ > SJ" in answered                 # the help, for the typed "?"
        # a play, then (while the four bots answer it) half a line typed ahead: the next
        # prompt gets those keys, and Enter completes the line
        term.type("")
        os.write(term.fd, b"?")
        term.expect(r"passes")
        term.expect(r"Your play[^\n]*> ")
        os.write(term.fd, b"\r")
        assert "Ranks: BJ > SJ" in term.expect(r"Your play[^\n]*> ")
        term.type("quit")
        term.expect("Bye")
        assert term.close() == 0
