"""Accuracy of the belief model by turn, against the truth and a uniform baseline.

Plays ``--games`` games with ``--bots`` in every seat (default ``heuristic``)
and, at every ``--every``-th decision of the play phase, asks every seat's
view three questions:

- *Guard*, from the views that do not know the Guard (rebels before a
  reveal; the Emperor in ``call`` mode): the seat with the highest
  probability is the Guard (ties share the hit) and the Brier score
  ``Σ (p − [Guard])²``, for the uniform baseline
  (:func:`baohuang.bots.inference.base_probabilities`), the inference
  (:func:`~baohuang.bots.inference.guard_probabilities`) and the belief
  (:class:`~baohuang.bots.belief.Belief`).  The truth of a hidden solo is
  the Emperor.
- *Hands*, from every view: the L1 distance between the expected rank counts
  of the other seats and their true counts, per unseen card (0 is exact;
  the uniform baseline spreads every unseen card over the unseen places).

Rows are by round of play (the number of leads so far).  The table is written
into ``bench/bots.md`` between ``<!-- belief -->`` markers (``--out``).

    python bench/belief.py --games 200 --seed 0
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import baohuang as bh
from baohuang.bots import make_bot
from baohuang.bots.belief import Belief, uniform_expected
from baohuang.bots.inference import base_probabilities, guard_probabilities, rounds_played
from baohuang.engine.plays import rank_counts
from baohuang.engine.state import Stage

OUT = Path(__file__).with_name("bots.md")
START, END = "<!-- belief -->", "<!-- /belief -->"
BINS = ((1, 1), (2, 2), (3, 3), (4, 5), (6, 10), (11, 20), (21, 40), (41, 10**9))


def bin_of(rounds: int) -> str:
    r = rounds + 1
    for lo, hi in BINS:
        if lo <= r <= hi:
            return str(lo) if lo == hi else (f"{lo}+" if hi > 10**8 else f"{lo}–{hi}")
    return "?"


@dataclass(slots=True)
class Row:
    guard_n: int = 0
    acc: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    brier: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    hand_n: int = 0
    cards: int = 0
    l1: list[float] = field(default_factory=lambda: [0.0, 0.0])


def hit(probs: tuple[float, ...] | list[float], truth: int) -> float:
    top = max(probs)
    best = [s for s, p in enumerate(probs) if p >= top - 1e-12]
    return 1.0 / len(best) if truth in best else 0.0


def brier(probs: tuple[float, ...] | list[float], truth: int) -> float:
    return sum((p - (1.0 if s == truth else 0.0)) ** 2 for s, p in enumerate(probs))


def measure(games: int, seed: int, bots: str, every: int, samples: int,
            rules: bh.RuleSet) -> dict[str, Row]:
    rows: dict[str, Row] = {}
    for g in range(games):
        game = bh.Game.new(rules, seed=seed * 100_000 + g)
        players = [make_bot(bots, seed=seed * 10 + s) for s in range(5)]
        decision = 0
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            if game.stage is Stage.PLAY and decision % every == 0:
                ask(game, rows, samples)
            if game.stage is Stage.PLAY:
                decision += 1
            game.apply(players[seat].choose(game.view(seat), game.legal_actions()))
        print(f"\r  {g + 1}/{games} games", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return rows


def ask(game: bh.Game, rows: dict[str, Row], samples: int) -> None:
    e, g = game.emperor, game.guard
    if e is None or g is None:
        return
    truth_hands = [rank_counts(game.hand(s)) for s in range(5)]
    for seat in range(5):
        view = game.view(seat)
        belief = Belief(view, samples=samples, seed=seat)
        row = rows.setdefault(bin_of(rounds_played(view)), Row())
        base = base_probabilities(view)
        if max(base) < 1.0:
            row.guard_n += 1
            for i, probs in enumerate((base, guard_probabilities(view), belief.guard)):
                row.acc[i] += hit(probs, g)
                row.brier[i] += brier(probs, g)
        unseen = sum(view.hand_counts[s] for s in range(5) if s != seat)
        if not unseen:
            continue
        row.hand_n += 1
        row.cards += unseen
        for i, expected in enumerate((uniform_expected(view), belief.expected)):
            row.l1[i] += sum(abs(x - t) for s in range(5) if s != seat
                             for x, t in zip(expected[s], truth_hands[s], strict=True))


def render(rows: dict[str, Row], command: str, seconds: float) -> str:
    order = [bin_of(lo - 1) for lo, _ in BINS]
    out = [START, "## Belief model (`baohuang.bots.belief`) by round", "",
           f"- command: `{command}` ({seconds:.0f} s)", "",
           "Guard: views that do not know the Guard; *acc* = the Guard has the highest "
           "probability (ties share); Brier = Σ (p − [Guard])².  *uniform* is "
           "`base_probabilities`, *inference* `guard_probabilities`, *belief* "
           "`Belief.guard` (inference prior × the play model's likelihood of the passes).  "
           "Hands: L1 distance of the expected rank counts of the other seats from "
           "the truth, per unseen card (0 is exact), uniform spread against the belief.", "",
           "| round | guard questions | acc uniform | acc inference | acc belief "
           "| Brier uniform | Brier inference | Brier belief | hand questions "
           "| L1/card uniform | L1/card belief |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for key in order:
        row = rows.get(key)
        if row is None:
            continue
        n = max(row.guard_n, 1)
        acc = " | ".join(f"{a / n:.3f}" if row.guard_n else "—" for a in row.acc)
        bri = " | ".join(f"{b / n:.3f}" if row.guard_n else "—" for b in row.brier)
        cards = max(row.cards, 1)
        l1 = " | ".join(f"{v / cards:.3f}" if row.cards else "—" for v in row.l1)
        out.append(f"| {key} | {row.guard_n} | {acc} | {bri} | {row.hand_n} | {l1} |")
    out.append(END)
    return "\n".join(out) + "\n"


def write_section(path: Path, section: str) -> None:
    """Replace the marked section of ``path`` (or append it)."""
    text = path.read_text() if path.exists() else ""
    if START in text and END in text:
        head, rest = text.split(START, 1)
        tail = rest.split(END, 1)[1].lstrip("\n")
        text = head + section + tail
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text)


def section(path: Path) -> str | None:
    """The marked section of ``path``, if any."""
    text = path.read_text() if path.exists() else ""
    if START in text and END in text:
        return START + text.split(START, 1)[1].split(END, 1)[0] + END + "\n"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bots", default="heuristic")
    parser.add_argument("--every", type=int, default=4, help="ask every K-th play decision")
    parser.add_argument("--samples", type=int, default=16,
                        help="deals per Guard placement of each belief")
    parser.add_argument("--rules", default="shandong")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = measure(args.games, args.seed, args.bots, args.every, args.samples,
                   bh.RuleSet.preset(args.rules))
    command = "python bench/belief.py " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    text = render(rows, command.strip(), time.perf_counter() - start)
    write_section(args.out, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
