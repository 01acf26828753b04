"""A match of ``baohuang play``: one human seat against four bots in the terminal.

Everything shown comes from ``game.view(seat)`` and
``game.events_for(seat, since)`` of the human seat; each bot gets its own
view.  Input is read line by line, so a game can be played from a pipe or
a file as well as from a terminal: Enter takes the suggested default (the
托管 answer), and at the end of the input the 托管 answer is taken for
every remaining decision.

>>> import io
>>> from rich.console import Console
>>> out = io.StringIO()
>>> session = Session(Console(file=out, width=100), Prompter(Console(file=out), io.StringIO("")),
...                   seed=4, games=1)
>>> totals = session.run()
>>> "result" in out.getvalue() and len(totals) == 5
True
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.text import Text as RichText

from ..bots import Bot, hosted_action, make_bot
from ..engine.actions import Action, ActionKind
from ..engine.cards import CardParseError, parse_card, parse_cards
from ..engine.events import Call, Deal, seen_event
from ..engine.events import EventKind as K
from ..engine.game import Game
from ..engine.match import Match
from ..engine.rules import RuleSet
from ..engine.state import IllegalAction, Stage
from ..engine.views import View
from .input import (
    AskLead,
    BadInput,
    Cards,
    Default,
    Help,
    Hint,
    Pass,
    Quit,
    ShowSuits,
    card_parse_message,
    missing_cards,
    parse_choice,
    parse_play_input,
)
from .prompter import Prompter
from .text import Lang, Text, describe_event, grouped_markup
from .view import (
    PublicMarks,
    hand_table,
    hint_actions,
    role_line,
    score_sheet,
    seat_table,
    suits_lines,
    totals_table,
)
from .words import choice_aliases, choice_label, help_lines, question

__all__ = ["BOT_LEVELS", "QuitGame", "Session", "bot_seed"]

A = ActionKind


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the bot at ``seat`` in a session with ``seed``."""
    return seed * 10 + seat


class QuitGame(Exception):
    """The player typed ``quit``."""


#: bots named by strength, as the web client names them
BOT_LEVELS: dict[str, tuple[str, str]] = {
    "random": ("电脑·简单", "Bot · Easy"), "heuristic": ("电脑·普通", "Bot · Normal"),
    "search": ("电脑·困难", "Bot · Hard"), "hosted": ("托管", "Auto-play"),
}


class Session:
    """A match of ``games`` games: the player at ``seat``, bots elsewhere."""

    def __init__(self, console: Console, prompter: Prompter, *, rules: RuleSet | None = None,
                 seed: int = 0, games: int = 1, seat: int = 0,
                 bots: Sequence[str] = ("heuristic",) * 4, lang: Lang = Lang.BOTH,
                 delay: float | None = None) -> None:
        if not 0 <= seat < 5:
            raise ValueError(f"--seat must be 0..4, not {seat}")
        self.console = console
        self.prompter = prompter
        self.rules = rules or RuleSet()
        self.seed = seed
        self.match = Match(self.rules, seed=seed, games=games)
        self.me = seat
        self.text = Text(lang, seat, tehua=self.rules.called_card_high)
        if lang is Lang.ZH:
            prompter.eof_message = "（输入结束：以后都由托管选择默认项）"
        others = [s for s in range(5) if s != seat]
        self.bots: dict[int, Bot] = {s: make_bot(name, seed=bot_seed(seed, s))
                                     for s, name in zip(others, bots, strict=True)}
        self.names = [self.text.pair("你", "You") if s == seat
                      else self.text.pair(*BOT_LEVELS.get(self.bots[s].name,
                                                          (self.bots[s].name,) * 2))
                      for s in range(5)]
        # A short pause after each bot move lets a person follow the table.
        self.delay = delay if delay is not None else 0.25 if prompter.interactive else 0.0
        self.out = False
        self.marks = PublicMarks()
        self.since = 0
        self.shown_hand: tuple[object, ...] | None = None
        self.only_choice = False

    # -- the match -----------------------------------------------------------
    def run(self) -> list[int]:
        """Play the whole match; returns the running totals."""
        t = self.text
        preset = self.rules.preset_name() or t("自定义规则", "custom rules")
        self.console.print(
            f"[bold]保皇 Baohuang[/] · {escape(preset)} · seed {self.seed} · "
            f"{t('你坐', 'you sit in seat')} {self.me} · "
            f"{t('输入 ? 查看帮助', 'type ? for help')}")
        while True:
            game = self.match.game
            self.play_game(game)
            self.match.advance()
            self.show_result(game)
            if self.match.is_over:
                break
            if not self.prompter.eof and self.prompter.interactive:
                self.prompter.ask(f"[dim]{t('回车开始下一局', 'Enter: next game')}[/] ")
        if self.match.games > 1:
            self.show_totals()
        return list(self.match.totals)

    def again(self) -> bool:
        """After the match, in a terminal: "play again?" (y: yes; Enter or n: no)."""
        if self.prompter.eof or not self.prompter.interactive:
            return False
        t = self.text
        while True:
            answer = self.prompter.ask(f"[bold]{t('再来一局？', 'Play again?')}[/] [y/N]> ")
            word = (answer or "").strip().lower()
            if word in ("y", "yes", "是", "好", "再来"):
                return True
            if word in ("", "n", "no", "否", "不"):
                return False
            self.console.print(t("输入 y 再来一局，n 或回车结束。",
                                 "Type y to play again, n or Enter to stop."))

    def play_game(self, game: Game) -> None:
        self.marks = PublicMarks()
        self.text = replace(self.text, called=None, emperor=None)
        self.since = 0
        self.shown_hand = None
        self.out = False
        while not game.is_over:
            with self.console:          # one write for all new lines
                self.show_events(game)
            seat = game.to_act
            assert seat is not None
            if seat == self.me:
                self.decide(game)
            else:
                bot = self.bots[seat]
                game.apply(bot.choose(game.view(seat), game.legal_actions()))
                if self.delay and not self.prompter.eof and not self.out:
                    time.sleep(self.delay)
        self.show_events(game)

    # -- showing -----------------------------------------------------------------
    def show_events(self, game: Game) -> None:
        t = self.text
        events = game.events_for(self.me, self.since)
        self.since += len(events)
        for ev in events:
            seen = seen_event(ev)
            kind, seat, data = seen.kind, seen.seat, seen.data
            self.marks.see(seen)
            if kind is K.OUT and seat == self.me:
                self.out = True     # no more pauses: the rest is quick
            if isinstance(data, Call):
                self.text = replace(t, called=parse_card(data.card))
            elif (kind is K.EMPEROR or kind is K.SOLO) and seat is not None:
                self.text = replace(t, emperor=seat)
            t = self.text
            if isinstance(data, Deal):
                number = self.match.index + 1
                redeal = t(f" · 第{data.deal + 1}次发牌", f" · deal {data.deal + 1}") \
                    if data.deal else ""
                self.console.rule(
                    f"[bold]{t(f'第{number}局', f'Game {number}')}/{self.match.games}{redeal} · "
                    f"{t('发牌', 'dealer')} {t.seat(data.dealer)}[/]")
                continue
            if kind is K.PLAY_STARTS and len(self.marks.rebels) == 1:
                lone = next(iter(self.marks.rebels))
                doubled = t(f"{t.seat(lone)}的得分加倍",
                            f"only the score of {t.seat(lone)} is doubled")
                self.console.print(f"[red]{t('造反失败', 'The rebellion fails')}: {doubled}[/]")
            line = describe_event(seen, t)
            if line is not None and self.only_choice and seat == self.me:
                line += f" [dim]({t('唯一选择', 'the only choice')})[/]"
                self.only_choice = False
            if line is not None:
                self.console.print(line, highlight=False)

    def show_hand(self, view: View) -> None:
        self.console.print(hand_table(view, self.text))
        self.shown_hand = view.hand

    def show_table(self, view: View) -> None:
        self.console.print(seat_table(view, self.text, self.names, self.marks))
        self.console.print(role_line(view, self.text))

    def show_result(self, game: Game) -> None:
        t = self.text
        view = game.view(self.me)
        number = len(self.match.results)
        title = (f"{t(f'第{number}局', f'Game {number}')}/{self.match.games} "
                 f"{t.term('result')}")
        totals = self.match.totals if self.match.games > 1 else None
        self.console.print(score_sheet(view, t, self.names, self.marks, totals, title))
        for seat, cards in sorted(view.hands.items()):
            if seat != self.me:
                self.console.print(f"[dim]{t.seat(seat)} {t('剩下', 'held')}:[/] "
                                   f"{grouped_markup(cards)}",
                                   highlight=False)

    def show_totals(self) -> None:
        self.console.print(totals_table([r.scores for r in self.match.results],
                                        self.match.totals, self.names, self.text))

    # -- deciding -------------------------------------------------------------
    def decide(self, game: Game) -> None:
        view = game.view(self.me)
        legal = list(view.legal_actions)
        default = hosted_action(view, legal)
        if len(legal) == 1:
            # Answered without asking; the event line it makes says so.
            self.only_choice = True
            game.apply(legal[0])
            return
        if self.prompter.eof:
            game.apply(default)
            return
        if view.stage is Stage.PLAY:
            self.decide_play(game, view, legal, default)
        else:
            self.decide_role(game, view, legal, default)

    def decide_role(self, game: Game, view: View, legal: list[Action], default: Action) -> None:
        t = self.text
        if self.shown_hand != view.hand:
            self.show_hand(view)
        self.console.print(f"[bold]{question(view, t, self.marks)}[/]")
        d = legal.index(default)
        aliases = []
        for i, action in enumerate(legal):
            mark = f"  [green]← {t('默认', 'default')} (托管)[/]" if i == d else ""
            self.console.print(f"  [bold cyan]{i + 1}[/]) {choice_label(action, view, t)}{mark}",
                               highlight=False)
            aliases.append(choice_aliases(action))
        while True:
            answer = self.prompter.ask(f"[bold]{t('你的选择', 'Your choice')}[/] [1-{len(legal)}, "
                                       f"{t('回车', 'Enter')}={d + 1}]> ")
            if answer is None:
                game.apply(default)
                return
            if answer.strip() in ("?", "？", "help"):
                self.console.print(t("输入选项的编号，或直接回车选默认项。",
                                     "Type the number of a choice, or press Enter for the "
                                     "default (the cautious 托管 answer)."))
                continue
            if answer.strip() in ("quit", "exit"):
                raise QuitGame
            picked = parse_choice(answer, aliases, d)
            if isinstance(picked, str):
                self.console.print(f"[red]{escape(picked)}[/]")
                continue
            game.apply(legal[picked])
            return

    def decide_play(self, game: Game, view: View, legal: list[Action], default: Action) -> None:
        t = self.text
        hints = hint_actions(view, legal)
        with self.console:
            self.show_status(view, legal, hints)
        # Enter takes the first hint, said in the prompt (never the 托管 pass unasked);
        # with nothing to play, Enter passes (the prompt says so)
        enter = hints[0] if hints else next((a for a in legal if a.kind is A.PASS), default)
        said = (f"{t('提示', 'hint')} 1: {t.cards(enter.cards)}" if hints
                else choice_label(enter, view, t))
        prompt = (f"[bold]{t('出牌', 'Your play')}[/] [dim]({t('回车', 'Enter')} = "
                  f"{said}, ? = {t('帮助', 'help')})[/]> ")
        while True:
            answer = self.prompter.ask(prompt)
            if answer is None:
                game.apply(default)
                return
            error = self.try_play(game, view, legal, hints, enter, answer)
            if error is None:
                return
            if error:
                self.console.print(f"[red]{error}[/]", highlight=False)

    def show_status(self, view: View, legal: list[Action], hints: list[Action]) -> None:
        """The table, the play to beat, the hand and the hints."""
        t = self.text
        self.show_table(view)
        if view.last_play is None:
            self.console.print(f"[bold]{t('你先出', 'You lead')}[/] "
                               f"({t('任意牌型', 'any play')})")
        else:
            seat, cards = view.last_play
            where = t.where(seat)
            self.console.print(f"[bold]{t.term('to_beat')}:[/] {t.seat(seat)}"
                               f"{f' ({where})' if where else ''}: {t.cards(cards)}",
                               highlight=False)
        self.show_hand(view)
        options = [f"[bold cyan]{i + 1}[/]) {t.cards(a.cards)}" for i, a in enumerate(hints)]
        if any(a.kind is A.PASS for a in legal):
            options.append(f"[bold cyan]p[/]) {t.term('pass', t.me)}")
        if any(a.kind is A.ASK_LEAD for a in legal):
            options.append(f"[bold cyan]ask[/]) {t.term('ask_lead', t.me)}")
        line = f"{t.term('hints')}: " + "   ".join(options)
        if cell_len(RichText.from_markup(line).plain) > self.console.width:
            line = f"{t.term('hints')}:\n  " + "\n  ".join(options)
        self.console.print(line, highlight=False)

    def try_play(self, game: Game, view: View, legal: list[Action], hints: list[Action],
                 default: Action, answer: str) -> str | None:
        """Apply what ``answer`` asks for; the error message (markup) when it
        cannot be done (the game is then unchanged), or ``None``."""
        t = self.text
        command = parse_play_input(answer, len(hints))
        action: Action
        if isinstance(command, Default):
            action = default
        elif isinstance(command, Pass):
            if not any(a.kind is A.PASS for a in legal):
                return escape(t("你先出，不能过", "you lead: you must play, not pass"))
            action = Action(A.PASS)
        elif isinstance(command, AskLead):
            if not any(a.kind is A.ASK_LEAD for a in legal):
                return escape(t("现在不能申请接风", "you cannot ask to lead now (申请接风)"))
            action = Action(A.ASK_LEAD)
        elif isinstance(command, Hint):
            action = hints[command.number - 1]
        elif isinstance(command, Help):
            self.show_help(view)
            return ""
        elif isinstance(command, ShowSuits):
            for line in suits_lines(view.hand):
                self.console.print(line, highlight=False)
            return ""
        elif isinstance(command, Quit):
            raise QuitGame
        elif isinstance(command, BadInput):
            return escape(command.message)
        else:
            assert isinstance(command, Cards)
            resolved = self.resolve_cards(game, view, command.text)
            if isinstance(resolved, str):
                return resolved
            action = resolved
        try:
            game.apply(action)
        except IllegalAction as exc:
            if "does not beat" in exc.reason and view.last_play is not None:
                return t(f"{t.cards(action.cards)} 压不过 {t.cards(view.last_play[1])}"
                         "（要同样张数，每张都更大，或者过）",
                         f"{t.cards(action.cards)} does not beat {t.cards(view.last_play[1])} "
                         "(play as many cards, each one higher, or pass)")
            return escape(exc.reason)
        return None

    def show_help(self, view: View) -> None:
        for line in help_lines(view, self.text):
            self.console.print(line, highlight=False)

    def resolve_cards(self, game: Game, view: View, typed: str) -> Action | str:
        """The play action for typed cards, or the message naming what is wrong."""
        try:
            wanted = parse_cards(typed)
        except CardParseError as exc:
            return escape(card_parse_message(exc))
        short = missing_cards(view.hand, wanted)
        if short is not None:
            return escape(short)
        try:
            return game.play_cards(typed)
        except (IllegalAction, CardParseError) as exc:
            return escape(str(exc))
