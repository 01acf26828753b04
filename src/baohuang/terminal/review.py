"""``baohuang review RECORD.json``: 复盘, the review of a finished game in the terminal.

The record is a game's :meth:`~baohuang.engine.game.Game.record` (what tournaments and
the server store), a server replay (``GET /api/games/{id}/replay``, whose ``record``
it reads) or a match record (``records``, one game chosen by ``--game``).  Each seat
asked for (``--seat``, every seat by default) is reviewed by
:func:`baohuang.bots.review.review_record` with a Rich progress bar, then shown as a
table of its decisions: the choice made and its expected score, the best choice and
its, the points lost and the mark, and the best choice with every hand open (明牌).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ..bots.review import (
    DEFAULT_CPU_SECONDS,
    DEFAULT_PLAYOUTS,
    THRESHOLDS,
    ChoiceValue,
    Review,
    ReviewSettings,
    review_record,
)
from ..engine.actions import Action, ActionKind
from .text import Lang, Text

__all__ = ["load_record", "review_command"]

#: What each action kind is called in a review (中文, English).
KIND_WORDS: dict[ActionKind, tuple[str, str]] = {
    ActionKind.ACCEPT: ("当皇帝", "accept"), ActionKind.ABDICATE: ("让位", "abdicate"),
    ActionKind.STEAL: ("抢独", "steal solo"), ActionKind.CALL: ("叫侍卫", "call"),
    ActionKind.SOLO_OPEN: ("明独", "open solo"), ActionKind.SOLO_HIDDEN: ("暗独", "hidden solo"),
    ActionKind.GUARD_OPEN: ("明保", "open Guard"),
    ActionKind.GUARD_HIDDEN: ("暗保", "hidden Guard"),
    ActionKind.REBEL: ("造反", "rebel"), ActionKind.KICK: ("踢", "kick"),
    ActionKind.DECLINE: ("不要", "decline"), ActionKind.PLAY: ("出", "play"),
    ActionKind.PASS: ("过", "pass"), ActionKind.ASK_LEAD: ("申请接风", "ask to lead"),
    ActionKind.LEAVE: ("逃跑", "leave"),
}
#: The marks' words (中文, English) and styles.
MARK_WORDS: dict[str, tuple[str, str, str]] = {
    "inaccuracy": ("不精确", "inaccuracy", "yellow"),
    "mistake": ("失误", "mistake", "dark_orange"),
    "blunder": ("大错", "blunder", "bold red"),
}


def load_record(path: Path, game: int | None = None) -> dict[str, Any]:
    """The game record in the JSON file ``path`` (see the module doc); raises
    ``ValueError`` naming what is wrong."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path} is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path} holds no game record (a JSON object is needed)")
    if isinstance(data.get("record"), dict):          # a server replay
        data = data["record"]
    if isinstance(data.get("records"), list):         # a match record
        games = data["records"]
        index = len(games) - 1 if game is None else game
        if not 0 <= index < len(games):
            raise ValueError(f"the match record has games 0..{len(games) - 1}, not {index}")
        data = games[index]
    if not isinstance(data, dict) or "actions" not in data:
        raise ValueError(f"{path} holds no game record (no 'actions')")
    return data


def _action(action: Action, text: Text) -> str:
    word = text.pair(*KIND_WORDS[action.kind])
    if action.cards:
        return f"{word} {text.cards(action.cards)}"
    return word


def _value(choice: ChoiceValue) -> str:
    return f"{choice.expected:+.1f} ±{choice.error:.1f}"


def show(console: Console, review: Review, text: Text) -> None:
    """The review of one seat as a table and a summary."""
    table = Table(title=text.pair(f"复盘 {review.seat}号", f"Review of seat {review.seat}"),
                  show_lines=False)
    for zh, en, justify in (("#", "#", "right"), ("阶段", "stage", "left"),
                            ("你的选择", "choice made", "left"),
                            ("期望分", "expected", "right"), ("最佳", "best", "left"),
                            ("期望分", "expected", "right"), ("损失", "lost", "right"),
                            ("评价", "mark", "left"),
                            ("明牌最佳", "best, all hands open", "left")):
        table.add_column(text.pair(zh, en), justify=justify)   # type: ignore[arg-type]
    for d in review.decisions:
        mark = ""
        if d.mark is not None:
            zh, en, style = MARK_WORDS[d.mark]
            mark = f"[{style}]{text.pair(zh, en)}[/]"
        same = d.best.action == d.made.action
        table.add_row(str(d.index), d.stage.value, _action(d.made.action, text),
                      _value(d.made), "=" if same else _action(d.best.action, text),
                      "" if same else _value(d.best),
                      "" if same else f"{d.made.loss:.1f}", mark,
                      "" if d.open_best is None else _action(d.open_best.action, text))
    console.print(table)
    counts = review.counts()
    marks = ", ".join(f"{text.pair(*MARK_WORDS[name][:2])} {counts[name]}"
                      for name, _ in THRESHOLDS)
    series = " ".join(f"{d.made.expected:+.0f}" for d in review.decisions)
    console.print(text.pair("期望分走势", "expected score through the game") + f": {series}")
    console.print(f"{marks}; " + text.pair("实际得分", "final score") +
                  f" {review.final_score}; {review.cpu_seconds:.1f} s CPU" +
                  ("; " + text.pair("预算用尽，未完成", "budget spent, review partial")
                   if review.partial else ""))
    console.print(text.pair(
        "「明牌最佳」是看得见所有人手牌时的最佳选择，对局时无人能知。",
        "\"best, all hands open\" is the best choice with every hand open, which no "
        "player could know."), style="dim")


def review_command(
    record: Annotated[Path, typer.Argument(
        help="A game record (JSON): Game.record(), a server replay, or a match record.",
        exists=False)],
    seat: Annotated[int | None, typer.Option(
        min=0, max=4, help="The seat to review, 0-4 (every seat when not given).")] = None,
    game: Annotated[int | None, typer.Option(
        min=0, help="In a match record, the game to review (the last by default).")] = None,
    playouts: Annotated[int, typer.Option(
        min=1, help="Playouts per decision, spread over its choices.")] = DEFAULT_PLAYOUTS,
    cpu_seconds: Annotated[float, typer.Option(
        min=0.1, help="CPU seconds one seat's review may take.")] = DEFAULT_CPU_SECONDS,
    seed: Annotated[int, typer.Option(help="Seed of the review's deals.")] = 0,
    lang: Annotated[Lang, typer.Option(help="Language: both, zh or en.")] = Lang.BOTH,
) -> None:
    """复盘: the expected score of every choice of a seat's decisions in a finished game,
    the best one, and the mistakes (不精确 / 失误 / 大错)."""
    console = Console(highlight=False)
    try:
        data = load_record(record, game)
        settings = ReviewSettings(playouts=playouts, cpu_seconds=cpu_seconds, seed=seed)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="RECORD") from None
    seats = list(range(5)) if seat is None else [seat]
    for s in seats:
        text = Text(lang, me=s)
        with Progress(TextColumn(text.pair(f"复盘 {s}号", f"reviewing seat {s}")),
                      BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=console, transient=True) as bar:
            task = bar.add_task("review", total=None)

            def step(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)   # noqa: B023
            try:
                review = review_record(data, s, settings, progress=step)
            except ValueError as exc:
                raise typer.BadParameter(str(exc), param_hint="RECORD") from None
        show(console, review, text)
