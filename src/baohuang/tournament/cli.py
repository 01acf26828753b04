"""``baohuang tournament``: a duplicate (or challenger) tournament between
bots, shown as tables or printed as one JSON object."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from ..bots.base import UnknownBot
from ..engine.rules import PRESETS, RuleError, RuleSet
from .core import CLOCKS, FORMATS, Tournament, TournamentError
from .execute import local, on_ray
from .stats import ROLES, RoleStats, TournamentReport, inference_row, role_cells

__all__ = ["render", "tournament_command"]


def _ci(stats: RoleStats) -> str:
    if stats.ci95 is None:
        return "—"
    lo, hi = stats.ci95
    return f"±{(hi - lo) / 2:.3f}"


_BUCKETS = (*((str(r), r, r) for r in range(1, 11)), ("11–20", 11, 20), ("21–40", 21, 40),
            ("41+", 41, 10**9))


def _round_buckets(rounds: dict[int, list[float]]) -> list[tuple[str, list[float]]]:
    """Rounds 1–10 one by one, then in groups (the JSON has every round)."""
    out = []
    for name, lo, hi in _BUCKETS:
        sums = [0.0] * 5
        for r, v in rounds.items():
            if lo <= r <= hi:
                sums = [a + b for a, b in zip(sums, v, strict=True)]
        if sums[0]:
            out.append((name, sums))
    return out


def _roles_table(title: str, caption: str | None = None) -> Table:
    roles = Table(title=title, caption=caption, box=box.SIMPLE_HEAD)
    roles.add_column("bot")
    for role in ROLES:
        roles.add_column(role, justify="right")
    return roles


def render(report: TournamentReport, console: Console, clock: str = "wall") -> None:
    """Tables of a tournament's results."""
    preset = report.rules.preset_name() or "custom rules"
    table = Table(title=f"{report.format} tournament: {report.deals} deals, {report.games} games, "
                        f"seed {report.seed}, {preset}", box=box.SIMPLE_HEAD,
                  caption="mean score per game; ±: its 95% interval (deals as the unit)")
    for col in ("bot", "games", "mean", "±95%", "win rate"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    roles = _roles_table("by role: mean score per game (games)")
    # (in duplicate play a bot's games by role mix its lone seats with its four copies'
    # around another bot: the lone seats alone say what it makes of a role)
    alone = _roles_table("by role, lone seats only", "alone against four of another bot")
    for label, bot in report.bots.items():
        table.add_row(label, str(bot.games), f"{bot.mean:+.3f}", _ci(bot.overall),
                      f"{bot.win_rate:.1%}")
        roles.add_row(label, *role_cells(bot.by_role))
        alone.add_row(label, *role_cells(bot.alone))
    console.print(table)
    console.print(roles)
    if report.format == "duplicate":
        console.print(alone)
    if len(report.pairs) > 1 or report.format == "challenger":
        title = ("challenger's gain per seat over each opponent's baseline"
                 if report.format == "challenger"
                 else "pairs (mean of the first bot against the second)")
        pairs = Table(title=title, box=box.SIMPLE_HEAD)
        for col in ("pair", "games", "mean", "±95%"):
            pairs.add_column(col, justify="left" if col == "pair" else "right")
        for name, p in report.pairs.items():
            pairs.add_row(name, str(p.games), f"{p.mean:+.3f}", _ci(p))
        console.print(pairs)
    if report.inference:
        for viewer, rounds in report.inference.items():
            inf = Table(title=f"Guard inference from the {viewer}'s view while the Guard "
                              "is hidden, by round (base: no behaviour)", box=box.SIMPLE_HEAD)
            for col in ("round", "n", "accuracy", "base", "Brier", "base Brier"):
                inf.add_column(col, justify="right")
            for name, sums in _round_buckets(rounds):
                row = inference_row(sums)
                inf.add_row(name, str(row["n"]), f"{row['accuracy']:.3f}",
                            f"{row['base_accuracy']:.3f}", f"{row['brier']:.3f}",
                            f"{row['base_brier']:.3f}")
            console.print(inf)
    if report.timing:
        times = Table(title="time per decision" if clock == "wall"
                      else "CPU time per decision", box=box.SIMPLE_HEAD)
        for col in ("bot", "decisions", "p50 ms", "p99 ms", "playouts/s"):
            times.add_column(col, justify="left" if col == "bot" else "right")
        for label, t in report.timing.items():
            d = t.to_dict()
            times.add_row(label, str(t.decisions), f"{d['p50_ms']:.3f}", f"{d['p99_ms']:.3f}",
                          str(d.get("playouts_per_s", "—")))
        console.print(times)


def tournament_command(
    bots: Annotated[str, typer.Option(help="Bots by name, comma separated (at least two; "
                                           "a repeated name is labelled name#2).")],
    deals: Annotated[int, typer.Option(min=1, help="Number of deals.")] = 100,
    seed: Annotated[int, typer.Option(help="Seed of the deals and of the bots.")] = 0,
    rules: Annotated[str, typer.Option(
        help=f"Rule preset: {', '.join(PRESETS)} (see `baohuang rules`).")] = "shandong",
    option: Annotated[list[str] | None, typer.Option(
        "--option", "-o", help="Change one rule option: NAME=VALUE (repeatable).")] = None,
    jobs: Annotated[int, typer.Option(min=1, help="Local worker processes.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    ray: Annotated[str | None, typer.Option(
        "--ray", metavar="ADDRESS",
        help="Run the games as Ray tasks on the cluster at ADDRESS ('auto', "
             "'ray://host:10001', or 'local' for a Ray instance on this machine).")] = None,
    inference: Annotated[bool, typer.Option(
        help="Measure Guard inference (when the bots provide it).")] = True,
    inference_every: Annotated[int, typer.Option(
        min=1, help="Score the Guard inference on every K-th deal only.")] = 1,
    timing: Annotated[bool, typer.Option(
        help="Also report time per decision (varies from run to run).")] = False,
    format: Annotated[str, typer.Option(
        "--format", help="duplicate: every bot alone in every seat against each other "
                         "bot, 10 games per pair and deal; challenger: the first bot alone "
                         "in every seat against each other bot, plus that bot's all-five "
                         "baseline game, 6 games per opponent and deal.")] = "duplicate",
    clock: Annotated[str, typer.Option(
        "--clock", help="What bots with a think time (expert, search-N with a time limit) "
                        "think by, and what --timing times: wall, the clock a player "
                        "waits by; cpu, the CPU time of the process playing the games (its "
                        "threads too), as if it had "
                        "a core to itself however busy the machine (for strength "
                        "measured on a loaded machine).")] = "wall",
) -> None:
    """Duplicate tournament: every bot in every seat of the same deals.

    Each deal is played once per seat arrangement: for every pair of bots
    A, B, A alone in each seat against four B, and B alone in each seat
    against four A (10 games per pair and deal).  Scores are per seat and
    game; the 95% interval treats deals as the independent unit.

    With --format challenger the first bot is the challenger: it plays
    alone in each seat against four copies of each other bot B, and B plays
    the deal once in all five seats; the challenger's gain is its score minus
    B's score in the same seat of that baseline game (5 challenger games per
    deal and opponent instead of 25: the format for a slow challenger).
    """
    try:
        ruleset = RuleSet.preset(rules)
    except RuleError as exc:
        raise typer.BadParameter(str(exc), param_hint="--rules") from None
    try:
        ruleset = ruleset.with_assignments(option or [])
    except RuleError as exc:
        raise typer.BadParameter(str(exc), param_hint="--option") from None
    if format not in FORMATS:
        raise typer.BadParameter(f"unknown tournament format {format!r} "
                                 f"(one of: {', '.join(FORMATS)})", param_hint="--format")
    if clock not in CLOCKS:
        raise typer.BadParameter(f"unknown clock {clock!r} (one of: {', '.join(CLOCKS)})",
                                 param_hint="--clock")
    names = [b.strip() for b in bots.split(",") if b.strip()]
    try:
        t = Tournament(names, deals, seed, ruleset, inference=inference, timing=timing,
                       inference_every=inference_every, format=format, clock=clock)
    except UnknownBot as exc:
        raise typer.BadParameter(str(exc), param_hint="--bots") from None
    except TournamentError as exc:
        raise typer.BadParameter(str(exc), param_hint="--bots") from None
    executor = local(jobs) if ray is None else on_ray(ray)
    err = Console(stderr=True)
    show = not as_json and sys.stderr.isatty()
    try:
        if show:
            with Progress(TextColumn("deals"), BarColumn(), MofNCompleteColumn(),
                          TimeRemainingColumn(), console=err, transient=True) as bar:
                task = bar.add_task("deals", total=deals)
                report = t.run(executor, progress=lambda k: bar.advance(task, k))
        else:
            report = t.run(executor)
    except TournamentError as exc:
        err.print(f"[red]error:[/red] {escape(str(exc))}")
        raise typer.Exit(1) from None
    if as_json:
        sys.stdout.write(json.dumps(report.to_dict()) + "\n")
    else:
        render(report, Console(), clock)
