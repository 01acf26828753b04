"""``baohuang play``: the real command with piped input (the parsing of what is
typed: test_terminal_input.py; on a pseudo-terminal: test_terminal_pty.py).

The expected outcomes come from playing the same match in-process with the
same bots: Enter is the 托管 answer, so a session of Enters must end exactly
like a match where the player's seat is played by ``hosted_action``.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable

import pytest
from rich.console import Console

import baohuang as bh
from baohuang import Action, ActionKind, Game, Match, RuleSet, Stage
from baohuang.bots import hosted_action, make_bot
from baohuang.engine.events import EventKind, seen_event
from baohuang.terminal.input import (
    Cards,
    parse_bots,
    parse_play_input,
)
from baohuang.terminal.prompter import Prompter
from baohuang.terminal.session import Session, bot_seed
from baohuang.terminal.text import EVENT_HANDLERS, Lang, Text, describe_event, plain
from baohuang.terminal.view import hand_groups, hint_actions
from terminal.support import run_play

A = ActionKind
PRESETS = list(bh.PRESETS)

def sheet_scores(out: str) -> list[list[int]]:
    """The score column (and total column, if any) of every score sheet row,
    seat by seat, in the order printed."""
    rows: list[list[int]] = []
    for line in out.splitlines():
        m = re.match(r"^│\s*(\d)\s*│(.*)│\s*$", line)
        if m:
            cells = [c.strip() for c in line.strip("│").split("│")]
            numbers = [int(c) for c in cells if re.fullmatch(r"[+-]\d+", c)]
            rows.append(numbers)
    return rows


# -- playing the same match in-process ------------------------------------------

Answer = Callable[[int, Game], "str | Action | None"]


def simulate(rules: RuleSet, seed: int, games: int = 1, me: int = 0, bots: str = "heuristic",
             answer: Answer | None = None, eof: bool = False,
             enters: int | None = None) -> tuple[Match, int]:
    """Play the match the terminal plays, the player's seat answered by
    ``answer(prompt_number, game)`` (typed cards, or None for Enter: in play the
    first hint, or a pass when nothing beats; else the 托管 default) at every
    decision that the terminal asks about (more than one legal action); ``eof``:
    the input has ended, 托管 answers everything (``enters``: after that many
    prompts).  Returns the finished match and the number of prompts."""
    match = Match(rules, seed=seed, games=games)
    names = parse_bots(bots)
    others = [s for s in range(5) if s != me]
    players = {s: make_bot(n, seed=bot_seed(seed, s)) for s, n in zip(others, names, strict=True)}
    prompts = 0
    while not match.is_over:
        game = match.game
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            legal = game.legal_actions()
            if seat != me:
                game.apply(players[seat].choose(game.view(seat), legal))
                continue
            typed: str | Action | None = None
            ended = eof or (enters is not None and prompts >= enters)
            if len(legal) > 1:
                typed = answer(prompts, game) if answer else None
                prompts += 1
            if typed is None:
                view = game.view(me)
                hints = hint_actions(view, legal) if game.stage is Stage.PLAY else []
                passes = [a for a in legal if a.kind is A.PASS]
                if ended or game.stage is not Stage.PLAY:
                    game.apply(hosted_action(view, legal))
                else:
                    game.apply(hints[0] if hints else passes[0] if passes
                               else hosted_action(view, legal))
            elif isinstance(typed, Action):
                game.apply(typed)
            else:
                game.apply(game.play_cards(typed))
        match.advance()
    return match, prompts


def first_play_prompt(rules: RuleSet, seed: int,
                      want: Callable[[Game], bool] = lambda g: True) -> tuple[int, Game] | None:
    """The number of the player's first play-phase prompt for which
    ``want(game)`` holds, and a copy of the game at that moment."""
    found: list[tuple[int, Game]] = []

    def answer(n: int, game: Game) -> None:
        if not found and game.stage is Stage.PLAY and want(game):
            found.append((n, game.copy()))
        return None

    simulate(rules, seed, answer=answer)
    return found[0] if found else None


# -- the command -------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_pressing_enter_all_game_long_finishes_with_the_score_sheet(preset: str) -> None:
    rules = RuleSet.preset(preset)
    match, prompts = simulate(rules, seed=5)
    proc = run_play(["--rules", preset, "--seed", "5"], [""] * (prompts + 5))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "end of input" not in out          # Enter alone finished the game
    assert "Game 1/1 结果 result" in out
    assert "Your play" in out and "你 You" in out
    assert sheet_scores(out) == [[s] for s in match.results[0].scores]


def test_end_of_input_takes_the_default_for_the_rest_of_the_game() -> None:
    rules = RuleSet.preset("lianzhong_simple")
    match, _ = simulate(rules, seed=8, me=2, eof=True)
    proc = run_play(["--rules", "lianzhong_simple", "--seed", "8", "--seat", "2"], "")
    assert proc.returncode == 0, proc.stderr
    assert "you sit in seat 2" in proc.stdout
    assert "end of input: 托管 takes the default" in proc.stdout
    assert sheet_scores(proc.stdout) == [[s] for s in match.results[0].scores]


def _typed_play(game: Game) -> str:
    """A legal play other than the default, typed without suits."""
    view = game.view(game.to_act)
    default = hosted_action(view, view.legal_actions)
    plays = [a for a in view.legal_actions if a.kind is A.PLAY and a != default
             and not any(c.is_joker for c in a.cards)]
    best = max(plays, key=lambda a: (len(a.cards), a.cards[0]))
    return " ".join(c.rank.symbol for c in best.cards)


def test_typed_plays_are_played() -> None:
    rules = RuleSet.preset("shandong")

    def several_cards(game: Game) -> bool:
        return any(a.kind is A.PLAY and len(a.cards) > 1 for a in game.legal_actions())

    seed = next(s for s in range(40) if first_play_prompt(rules, s, several_cards))
    found = first_play_prompt(rules, seed, several_cards)
    assert found is not None
    number, at = found
    typed = _typed_play(at)

    match, prompts = simulate(rules, seed, answer=lambda n, g: typed if n == number else None)
    lines = [""] * number + [typed] + [""] * (prompts + 5)
    proc = run_play(["--seed", str(seed)], lines)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"> {typed}\nYou 出 play {typed}" in out
    assert "end of input" not in out
    assert sheet_scores(out) == [[s] for s in match.results[0].scores]


def test_bad_input_gets_a_message_and_the_same_prompt() -> None:
    rules = RuleSet.preset("shandong")

    def following_a_single(game: Game) -> bool:
        view = game.view(game.to_act)
        return view.last_play is not None and len(view.last_play[1]) == 1

    seed = next(s for s in range(40) if first_play_prompt(rules, s, following_a_single))
    found = first_play_prompt(rules, seed, following_a_single)
    assert found is not None
    number, at = found
    hand = at.view(at.to_act).hand
    ranks = sorted({c.rank for c in hand if not c.is_joker})
    pair = next(r for r in ranks if sum(c.rank == r for c in hand) >= 2).symbol
    held = sum(c.rank == ranks[0] for c in hand)
    bad = [
        "9 9 x",                                   # not a card
        f"{ranks[0].symbol} {ranks[1].symbol}",    # two ranks: no play shape
        " ".join([ranks[0].symbol] * (held + 1)),  # more than held
        f"{pair} {pair}",                          # a pair on a single: does not beat
        "17",                                      # no such hint
    ]
    match, prompts = simulate(rules, seed)
    proc = run_play(["--seed", str(seed)], [""] * number + bad + [""] * (prompts + 5))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "not a card: 'x'" in out
    assert "only one rank besides jokers" in out
    assert f"you hold only {held}× {ranks[0].symbol}, not {held + 1}" in out
    assert f"{pair} does not beat" in out
    assert "no hint 17" in out
    # each bad line was followed by the same prompt, and the game went on untouched
    after = out.split("> 9 9 x\n", 1)[1]
    assert after.count("Your play (Enter = ") >= len(bad)
    assert sheet_scores(out) == [[s] for s in match.results[0].scores]


def test_a_two_game_match_shows_tribute_and_running_totals() -> None:
    rules = RuleSet.preset("seed001_216")
    match, prompts = simulate(rules, seed=6, games=2)
    second = Game.from_record(match.records[1])
    assert any(ev["type"] == "tribute" for ev in second.events_for(0))
    proc = run_play(["--rules", "seed001_216", "--seed", "6", "--games", "2"],
                    [""] * (prompts + 10))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "Game 2/2" in out
    assert re.search(r"(Seat \d|You) 进贡 tribute → (Seat \d|You)", out)
    assert "Match totals" in out
    sheets = sheet_scores(out)
    first, second_game = match.results
    totals = [a + b for a, b in zip(first.scores, second_game.scores, strict=True)]
    assert sheets[:5] == [[s, s] for s in first.scores]
    assert sheets[5:10] == [[s, t] for s, t in zip(second_game.scores, totals, strict=True)]
    assert sheets[10:] == [[a, b, t] for a, b, t in
                           zip(first.scores, second_game.scores, totals, strict=True)]


def test_asking_to_lead_when_offered() -> None:
    rules = RuleSet.preset("seed001_216")
    offered: list[int] = []

    def answer(n: int, game: Game) -> None:
        if not offered and any(a.kind is A.ASK_LEAD for a in game.legal_actions()):
            offered.append(n)

    simulate(rules, 29, bots="random", answer=answer)
    assert offered
    out = io.StringIO()
    console = Console(file=out, width=120)
    lines = "\n" * offered[0] + "ask\n"
    Session(console, Prompter(console, io.StringIO(lines)), rules=rules, seed=29,
            bots=["random"] * 4).run()
    after = out.getvalue().split("> ask\n", 1)[1]
    assert after.startswith("You 申请接风 ask to lead\n")


@pytest.mark.parametrize(("args", "message"), [
    (["--bots", "nosuch"], "unknown bot 'nosuch'; registered bots: "),
    (["--bots", "hosted,random"], "one bot name or 4 names"),
    (["--option", "kaopia=on"], "unknown rule option 'kaopia'"),
    (["--option", "hold_sixes=maybe"], "takes on/off, not 'maybe'"),
    (["--rules", "nowhere"], "unknown preset 'nowhere'"),
    (["--seat", "5"], "--seat"),
])
def test_bad_command_line_exits_non_zero_with_a_clear_message(args: list[str],
                                                               message: str) -> None:
    proc = run_play(args, "")
    assert proc.returncode != 0
    assert message in proc.stderr + proc.stdout
    assert "result" not in proc.stdout


# -- a session in-process ---------------------------------------------------------------


@pytest.mark.parametrize("lang", list(Lang))
def test_a_session_in_each_language_ends_with_its_totals(lang: Lang) -> None:
    out = io.StringIO()
    console = Console(file=out, width=120)
    session = Session(console, Prompter(console, io.StringIO("\n" * 5)), seed=9,
                      lang=lang, bots=["random", "hosted", "random", "hosted"])
    totals = session.run()
    match, _ = simulate(RuleSet(), 9, bots="random,hosted,random,hosted", enters=5)
    assert totals == list(match.totals)
    text = out.getvalue()
    assert ("结果" in text) == (lang is not Lang.EN)
    assert ("result" in text) == (lang is not Lang.ZH)


def test_every_event_a_seat_sees_has_its_own_line() -> None:
    for preset in PRESETS:
        for seed in range(2):
            game = Game.new(RuleSet.preset(preset), seed)
            bots = [make_bot("random", seed=seed * 5 + s) for s in range(5)]
            while not game.is_over:
                seat = game.to_act
                assert seat is not None
                game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
            text = Text(Lang.BOTH, me=0)
            for ev in game.view(0).seen():
                line = plain(describe_event(ev, text))
                if ev.kind in (EventKind.DEAL, EventKind.OVER):
                    assert line is None
                else:
                    assert ev.kind in EVENT_HANDLERS and line, (ev, line)
    # every kind an event can have but the two shown otherwise has its line
    assert set(EVENT_HANDLERS) == set(EventKind) - {EventKind.DEAL, EventKind.OVER}


WURENJU = RuleSet.preset("wurenju")


def _session(rules: RuleSet, seed: int, lines: list[str], lang: Lang = Lang.BOTH) -> str:
    out = io.StringIO()
    console = Console(file=out, width=240)      # (no wrapped sentences)
    Session(console, Prompter(console, io.StringIO("".join(f"{x}\n" for x in lines))),
            rules=rules, seed=seed, lang=lang).run()
    return out.getvalue()


def test_a_wurenju_game_where_the_guard_types_his_tehua() -> None:
    """Seed 4: the player is the called Guard; at his third prompt a lone TH is legal."""
    hand_has_th: list[int] = []

    def answer(n: int, game: Game) -> str | None:
        view = game.view(0)
        if (not hand_has_th and game.stage is Stage.PLAY
                and Action(A.PLAY, (bh.TEHUA_CARD,)) in view.legal_actions):
            hand_has_th.append(n)
            return "th"
        return None

    match, prompts = simulate(WURENJU, 4, answer=answer)
    assert hand_has_th
    lines = [""] * hand_has_th[0] + ["th"] + [""] * (prompts + 5)
    out = plain(_session(WURENJU, 4, lines)) or ""
    assert "You are the 侍卫 Guard: your" in out and "特画 tehua TH" in out
    assert "手牌 hand (43) │  TH  BJ" in out           # the TH leads the hand
    assert "> th\nYou 出 play TH" in out
    assert "end of input" not in out
    assert [r[0] for r in sheet_scores(out)] == list(match.results[0].scores)
    zh = plain(_session(WURENJU, 4, lines, Lang.ZH)) or ""
    assert "你是侍卫，你的" in zh and "变成了特画 TH" in zh


def test_the_call_offers_the_open_solo_and_it_is_played() -> None:
    """Seed 1: the player becomes Emperor and is asked to call (second prompt)."""
    def answer(n: int, game: Game) -> Action | None:
        if game.stage is Stage.CALL:
            assert Action(A.SOLO_OPEN) in game.legal_actions()
            return Action(A.SOLO_OPEN)
        return None

    match, prompts = simulate(WURENJU, 1, answer=answer)
    lines = ["", "明独保"] + [""] * (prompts + 5)
    out = plain(_session(WURENJU, 1, lines, Lang.ZH)) or ""
    assert "也可以不叫，直接明独保" in out
    assert re.search(r"\d\) 明独保 \(不叫侍卫，一个人打四家\)", out)
    assert "你 明独" in out
    assert [r[0] for r in sheet_scores(out)] == list(match.results[0].scores)
    en = plain(_session(WURENJU, 1, [""] * (prompts + 5), Lang.EN)) or ""
    assert "open solo (call no Guard: alone against four)" in en
    assert "it becomes the tehua TH" in en


def test_the_tehua_parses_prints_and_sorts_first() -> None:
    assert bh.parse_cards("th 9 9") == [bh.TEHUA_CARD, *bh.parse_cards("9 9")]
    assert parse_play_input("TH 9 9", hints=3) == Cards("TH 9 9")
    assert hand_groups(bh.parse_cards("9 BJ TH SJ* 2")) == [
        ("TH", 1), ("BJ", 1), ("SJ*", 1), ("2", 1), ("9", 1)]
    line = plain(describe_event(seen_event({"type": "play", "seat": 2,
                                            "cards": ["TH", "BJ", "9", "9"]}),
                                Text(Lang.EN, me=0)))
    assert line == "Seat 2 plays TH BJ 9 9"
    call = {"type": "call", "seat": 1, "card": "9h"}
    assert "becomes the tehua TH" in (plain(describe_event(seen_event(call),
                                                           Text(Lang.EN, 0, tehua=True)))
                                      or "")
    assert "TH" not in (plain(describe_event(seen_event(call), Text(Lang.EN, 0))) or "")
    mine = plain(describe_event(seen_event({**call, "tehua": "TH"}),
                                Text(Lang.ZH, 0, tehua=True))) or ""
    assert "特画" in mine and "你是侍卫" in mine


def test_clockwise_then_two_abdicates_to_the_next_seat() -> None:
    from baohuang.terminal.words import abdicate_target
    game = Game.new(WURENJU, seed=0)
    assert abdicate_target(game.view(3), 3) == 4
