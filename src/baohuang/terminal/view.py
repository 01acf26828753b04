"""What the terminal game draws: the hand grouped by rank, the table, play
hints and the score sheet.  Everything is computed from one seat's
:class:`~baohuang.engine.views.View` (and the events that seat saw), never from
the game itself.

>>> import baohuang as bh
>>> view = bh.Game.new(seed=3).view(0)
>>> groups = hand_groups(view.hand)
>>> sum(n for _, n in groups) == len(view.hand)
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from rich import box
from rich.cells import cell_len
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text as RichText

from ..engine.actions import Action
from ..engine.cards import Card, Rank
from ..engine.events import EventKind, Seen
from ..engine.hints import hint_order
from ..engine.views import View
from .text import Text, card_style, cards_markup

__all__ = [
    "PublicMarks",
    "badges",
    "grid",
    "hand_groups",
    "hand_table",
    "hint_actions",
    "role_line",
    "score_sheet",
    "seat_table",
    "suits_lines",
    "totals_table",
]


@dataclass
class PublicMarks:
    """Public marks gathered from the events a seat saw: who said 造反
    (the hoe 锄头 stays for the whole game) and who said 踢."""

    rebels: set[int] = field(default_factory=set)
    kickers: set[int] = field(default_factory=set)

    def see(self, ev: Seen) -> None:
        seat = ev.seat
        if seat is None:
            return
        if ev.kind is EventKind.REBEL:
            self.rebels.add(seat)
        elif ev.kind is EventKind.KICK:
            self.kickers.add(seat)


def hand_groups(hand: Sequence[Card]) -> list[tuple[str, int]]:
    """(label, count) per rank, high to low; the marked jokers BJ* and SJ*
    get their own label.

    >>> from baohuang import parse_cards
    >>> hand_groups(parse_cards("BJ* BJ SJ 9 9 10h 2"))
    [('BJ*', 1), ('BJ', 1), ('SJ', 1), ('2', 1), ('10', 1), ('9', 2)]
    """
    counts: Counter[str] = Counter()
    order: dict[str, tuple[int, int]] = {}
    for card in hand:
        label = card.rank.symbol + ("*" if card.marked else "")
        counts[label] += 1
        order[label] = (card.rank, int(card.marked))
    return [(label, counts[label]) for label in sorted(counts, key=order.__getitem__,
                                                        reverse=True)]


def grid(rows: Sequence[Sequence[str]], justify: str, gap: int = 2,
         styles: Sequence[str | None] | None = None) -> str:
    """Rows of markup cells as aligned lines (``justify``: one of ``l r c``
    per column).  Widths count terminal cells, so Chinese text lines up.

    >>> from baohuang.terminal.text import plain
    >>> print(plain(grid([["#", "name"], ["10", "皇帝"]], "rl")))
     #  name
    10  皇帝
    """
    widths = [0] * len(justify)
    cells_len = [[cell_len(RichText.from_markup(c).plain) for c in row] for row in rows]
    for lens in cells_len:
        for i, n in enumerate(lens):
            widths[i] = max(widths[i], n)
    lines = []
    for r, (row, lens) in enumerate(zip(rows, cells_len, strict=True)):
        parts = []
        for cell, n, width, how in zip(row, lens, widths, justify, strict=True):
            pad = width - n
            if how == "r":
                parts.append(" " * pad + cell)
            elif how == "c":
                parts.append(" " * (pad // 2) + cell + " " * (pad - pad // 2))
            else:
                parts.append(cell + " " * pad)
        line = (" " * gap).join(parts).rstrip()
        style = styles[r] if styles else None
        lines.append(f"[{style}]{line}[/]" if style else line)
    return "\n".join(lines)


def hand_table(view: View, text: Text) -> str:
    """The hand as two rows (markup): ranks (coloured, high to low) and counts."""
    groups = hand_groups(view.hand)
    called = view.called
    labels = [f"[bold]{text.term('hand')} ({len(view.hand)})[/] │"]
    counts = ["[dim]│[/]"]
    for label, n in groups:
        marked = label.endswith("*")
        rank = _label_rank(label)
        style = card_style(rank, marked)
        if called is not None and rank == called.rank and called in view.hand:
            style += " underline"
        labels.append(f"[{style}]{label}[/]")
        counts.append(f"[dim]{n}[/]")
    return grid([labels, counts], "r" + "c" * len(groups))


def _label_rank(label: str) -> Rank:
    symbol = label.rstrip("*")
    return next(r for r in Rank if r.symbol == symbol)


def suits_lines(hand: Sequence[Card]) -> list[str]:
    """The hand card by card with suits, one rank per line (markup).

    >>> from baohuang import parse_cards
    >>> from baohuang.terminal.text import plain
    >>> [plain(line) for line in suits_lines(parse_cards("9s 9h BJ*"))]
    ['BJ : BJ*', '9  : 9h 9s']
    """
    by_rank: dict[Rank, list[Card]] = {}
    for card in sorted(hand, reverse=True):
        by_rank.setdefault(card.rank, []).append(card)
    return [f"[{card_style(rank)}]{rank.symbol:<3}[/]: {cards_markup(cards)}"
            for rank, cards in by_rank.items()]


def hint_actions(view: View, legal: Sequence[Action], limit: int = 5) -> list[Action]:
    """The first ``limit`` plays in the engine's hint order (:func:`baohuang.hint_order`:
    whole natural sets, lowest first; then broken sets; then joker-padded plays; a
    hidden Guard's revealing plays last) — the same order the web client cycles.

    >>> import baohuang as bh
    >>> game = bh.Game.new(seed=5)
    >>> while game.stage is not bh.Stage.PLAY:
    ...     game.apply(game.legal_actions()[-1])
    >>> view = game.view(game.to_act)
    >>> hint_actions(view, view.legal_actions) == bh.hint_order(view)[:5]
    True
    """
    return hint_order(view, legal)[:limit]


def seat_table(view: View, text: Text, names: Sequence[str], marks: PublicMarks) -> str:
    """Each seat (markup lines): name, cards left, finishing place, public
    role badges; the player's own row in bold."""
    places = {seat: i + 1 for i, seat in enumerate(view.out)}
    rows = [["#", text("玩家", "player"), text("牌数", "cards"), text("名次", "place"),
             text("身份", "role")]]
    for seat in range(5):
        where = text.where(seat)
        name = names[seat] + (f" [dim]{where}[/]" if where else "")
        place = places.get(seat)
        rows.append([str(seat), name, str(view.hand_counts[seat]),
                     text.place(place) if place else "",
                     " ".join(badges(view, seat, text, marks))])
    styles = ["underline"] + ["bold" if seat == text.me else None for seat in range(5)]
    return grid(rows, "rlrll", styles=styles)


def badges(view: View, seat: int, text: Text, marks: PublicMarks) -> list[str]:
    """The role badges of ``seat`` that ``view`` may show (markup)."""
    out: list[str] = []
    if view.candidate == seat:
        out.append(f"[yellow]{text.term('emperor_card')}[/]")
    if seat == view.emperor:
        out.append(f"[bold yellow]{text.term('emperor')}[/]")
        if view.solo == "open":
            out.append(f"[yellow]{text.term('solo_open')}[/]")
        elif view.solo == "hidden":
            out.append(f"[yellow]{text.term('solo_hidden')}[/]")
    elif seat == view.guard:
        out.append(f"[bold yellow]{text.term('guard')}[/]")
        if view.guard_open:
            out.append(f"[yellow]{text.term('guard_open')}[/]")
        elif seat == text.me and view.stage.value != "over":
            secret = text("只有你知道", "only you know")
            out.append(f"[dim]{text.term('guard_hidden')} ({secret})[/]")
    if seat in marks.rebels:
        out.append(f"[bold red]⚒ {text.term('rebel')}[/]")
    if seat in marks.kickers:
        out.append(f"[red]{text.term('kick')}[/]")
    return out


def score_sheet(view: View, text: Text, names: Sequence[str], marks: PublicMarks,
                totals: Sequence[int] | None, title: str) -> RenderableType:
    """The result of a finished game: places, scores and running totals."""
    result = view.result or {}
    places: list[int | None] = list(result.get("places", [None] * 5))
    scores: list[int] = list(result.get("scores", [0] * 5))
    order: list[int] = list(result.get("order", []))
    table = Table(title=title, box=box.ROUNDED, title_style="bold", padding=(0, 1))
    table.add_column("#", justify="right")
    table.add_column(text("玩家", "player"), no_wrap=True)
    table.add_column(text("身份", "role"))
    table.add_column(text("名次", "place"), no_wrap=True)
    table.add_column(text("剩牌", "left"), justify="right")
    table.add_column(text("得分", "score"), justify="right")
    if totals is not None:
        table.add_column(text("总分", "total"), justify="right")
    for seat in range(5):
        place = places[seat]
        if place is not None:
            where = text.place(place)
        elif seat in order:
            where = f"[dim]({text.place(order.index(seat) + 1)})[/]"
        else:
            where = "—"
        score = scores[seat]
        style = "green" if score > 0 else "red" if score < 0 else "dim"
        row = [str(seat), names[seat], " ".join(badges(view, seat, text, marks)) or
               text.term("rebels_side"), where, str(view.hand_counts[seat]),
               f"[{style}]{score:+d}[/]"]
        if totals is not None:
            row.append(f"[bold]{totals[seat]:+d}[/]")
        table.add_row(*row, style="bold" if seat == text.me else None)
    won = result.get("royal_won")
    if result.get("left") is not None:
        headline = f"{text.seat(result['left'])} {text.term('leave')}"
    elif won is None:
        headline = text.term("draw")
    elif won:
        headline = text(f"{text.term('royal_side')}赢了", f"The {text.term('royal_side')} wins")
    else:
        headline = text(f"{text.term('rebels_side')}赢了", f"The {text.term('rebels_side')} wins")
    stake = f"{text.term('stake')} ×{view.stake}"
    return Group(table, RichText.from_markup(f"[bold]{headline}[/]  ·  {stake}"))


def role_line(view: View, text: Text) -> str:
    """The stake, the player's own role and the called card (markup)."""
    t = text
    parts = [f"{t.term('stake')} ×{view.stake}"]
    if view.role == "emperor":
        solo = {"open": " " + t.term("solo_open"), "hidden": " " + t.term("solo_hidden")}
        parts.append(f"{t('你是', 'you are')} [bold yellow]{t.term('emperor')}"
                     f"{solo.get(view.solo or '', '')}[/]")
    elif view.role == "guard":
        parts.append(f"{t('你是', 'you are')} [bold yellow]{t.term('guard')}[/]")
    elif view.role == "rebel":
        parts.append(f"{t('你是', 'you are on the')} {t.term('rebels_side')}")
    if view.called is not None:
        parts.append(f"{t('叫的牌', 'called card')} {cards_markup((view.called,))}")
    return " · ".join(parts)


def totals_table(scores: Sequence[Sequence[int]], totals: Sequence[int], names: Sequence[str],
                 text: Text) -> Table:
    """A match's scores game by game, and the running totals."""
    t = text
    table = Table(title=t.pair("比赛总分", "Match totals"), title_style="bold")
    table.add_column(t("座位", "seat"), justify="right")
    table.add_column(t("玩家", "player"))
    for i in range(len(scores)):
        table.add_column(t(f"第{i + 1}局", f"game {i + 1}"), justify="right")
    table.add_column(t("总分", "total"), justify="right")
    for seat in range(5):
        table.add_row(str(seat), names[seat], *(f"{game[seat]:+d}" for game in scores),
                      f"[bold]{totals[seat]:+d}[/]", style="bold" if seat == t.me else None)
    return table
