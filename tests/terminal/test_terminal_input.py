"""Parsing what is typed at ``baohuang play``: plays, choices, bot lists and rule
options; the hand's groups and the hints offered."""

from __future__ import annotations

import pytest

import baohuang as bh
from baohuang import Action, ActionKind, Game, RuleSet, Stage
from baohuang.bots import hosted_action, make_bot
from baohuang.bots.base import UnknownBot
from baohuang.terminal.app import build_rules
from baohuang.terminal.input import (
    AskLead,
    BadInput,
    Cards,
    Default,
    Help,
    Hint,
    Pass,
    Quit,
    ShowSuits,
    expand_repeats,
    missing_cards,
    parse_bots,
    parse_choice,
    parse_play_input,
)
from baohuang.terminal.view import hand_groups, hint_actions

A = ActionKind


@pytest.mark.parametrize(("typed", "hints", "expected"), [
    ("", 3, Default()),
    ("   ", 0, Default()),
    ("p", 3, Pass()),
    ("PASS", 3, Pass()),
    ("过", 3, Pass()),
    ("不要", 3, Pass()),
    ("ask", 3, AskLead()),
    ("?", 3, Help()),
    ("s", 3, ShowSuits()),
    ("quit", 3, Quit()),
    ("1", 3, Hint(1)),
    ("3", 3, Hint(3)),
    ("2", 3, Hint(2)),
    ("2", 1, Cards("2")),          # no hint 2: the card 2
    ("play 2", 5, Cards("2")),
    ("10", 5, Cards("10")),
    ("9 9 9", 5, Cards("9 9 9")),
    ("bj 8 8", 5, Cards("bj 8 8")),
    ("10h 10h", 5, Cards("10h 10h")),
    ("9x3", 5, Cards("9 9 9")),
    ("BJ,SJ,7x2", 5, Cards("BJ SJ 7 7")),
    ("0", 4, BadInput("no hint 0: the hints are numbered 1 to 4")),
    ("11", 0, BadInput("no hint 11: there are no hints now")),
    ("play", 3, Cards("play")),     # not a command: reported as a bad card later
])
def test_parse_play_input(typed: str, hints: int, expected: object) -> None:
    assert parse_play_input(typed, hints) == expected


def test_expand_repeats_keeps_other_tokens() -> None:
    assert expand_repeats("sj 10x3 Q") == "sj 10 10 10 Q"
    assert expand_repeats("x") == "x"
    assert expand_repeats("9x0") == "9x0"


def test_missing_cards_names_what_is_not_held() -> None:
    hand = bh.parse_cards("BJ* BJ SJ* 9s 9s 9h 10d")
    assert missing_cards(hand, bh.parse_cards("BJ BJ SJ 9 9 9 10")) is None
    assert missing_cards(hand, bh.parse_cards("BJ BJ BJ")) == "you hold only 2× BJ, not 3"
    assert missing_cards(hand, bh.parse_cards("9s 9s 9s")) == "you hold only 2× 9s, not 3"
    assert missing_cards(hand, bh.parse_cards("9h 9 9 9")) == "you hold only 2× 9, not 3"
    assert missing_cards(hand, bh.parse_cards("K")) == "you hold no K"


def test_parse_choice() -> None:
    aliases = [["accept", "当皇帝", "y"], ["abdicate", "让位"]]
    assert parse_choice("", aliases, default=1) == 1
    assert parse_choice("1", aliases, default=1) == 0
    assert parse_choice("让位", aliases, default=0) == 1
    assert parse_choice("Y", aliases, default=1) == 0
    assert parse_choice("9", aliases, default=0) == \
        "choose 1 to 2, or press Enter for the default (1)"
    assert isinstance(parse_choice("maybe", aliases, default=0), str)


def test_parse_bots() -> None:
    assert parse_bots("random") == ["random"] * 4
    assert parse_bots("hosted,random,hosted,random") == ["hosted", "random", "hosted", "random"]
    with pytest.raises(UnknownBot, match=r"unknown bot 'smart'; registered bots: .*hosted"):
        parse_bots("hosted,smart,hosted,hosted")
    with pytest.raises(UnknownBot, match="one bot name or 4 names"):
        parse_bots("hosted,hosted")


def test_build_rules_applies_options_in_order() -> None:
    rules = build_rules("lianzhong_simple", ["kaopai=on", "hold_sixes=on", "kaopai=off"])
    assert rules == RuleSet.preset("lianzhong_simple").replace(hold_sixes=True)
    with pytest.raises(bh.RuleError, match="unknown preset"):
        build_rules("nowhere", [])


def test_hand_groups_mark_the_marked_jokers() -> None:
    hand = bh.parse_cards("SJ* SJ BJ* 2 2 9h 9s 6")
    assert hand_groups(hand) == [("BJ*", 1), ("SJ*", 1), ("SJ", 1), ("2", 2), ("9", 2),
                                 ("6", 1)]


def test_hints_are_legal_and_cheapest_first() -> None:
    for seed in range(6):
        game = Game.new(seed=seed)
        bots = [make_bot("random", seed=seed + s) for s in range(5)]
        checked = 0
        while not game.is_over and checked < 20:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            legal = game.legal_actions()
            if game.stage is Stage.PLAY:
                hints = hint_actions(view, legal)
                assert all(h in legal for h in hints)
                assert bool(hints) == any(a.kind is A.PLAY for a in legal)
                assert len({str(h) for h in hints}) == len(hints)
                # the engine's one hint order (tests/engine/test_hints.py), jokers last
                assert hints == bh.hint_order(view, legal)[:5]
                jokers = [any(c.is_joker for c in h.cards) for h in hints]
                assert jokers == sorted(jokers)
                checked += 1
            game.apply(bots[seat].choose(view, legal))


def test_pass_is_never_a_hint_and_hints_never_exceed_five() -> None:
    game = Game.new(seed=1)
    while game.stage is not Stage.PLAY:
        game.apply(hosted_action(game.view(game.to_act), game.legal_actions()))
    view = game.view(game.to_act)
    hints = hint_actions(view, view.legal_actions)
    assert 0 < len(hints) <= 5
    assert all(h.kind is A.PLAY for h in hints)
    assert Action(A.PASS) not in hints


# -- 五人局 (wurenju): the 特画 TH and the open solo at the call --------------------------
