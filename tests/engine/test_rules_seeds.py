"""Issue 14's rules, each test taken from the wording of a seed text (quoted in
its docstring): classic 造反, the Emperor's open solo in call mode, the tribute
split, 逼位 by three copies, and the 五人局 preset (``wurenju``) of seed 000."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from helpers import act, actor, find_game, kinds, rules, through_roles

import baohuang as bh
from baohuang import ActionKind, Game, RuleError, Stage
from baohuang.engine.scoring import decided, wurenju_outcome

A = ActionKind
WURENJU = rules("wurenju")
BEFORE = json.loads((Path(__file__).parent.parent / "data" / "before_wurenju.json").read_text())


def _cards(text: str) -> list[bh.Card]:
    return bh.parse_cards(text)


# -- 1. 联众 经典: 造反 on, 踢 off ------------------------------------------------------

def test_classic_has_rebellion_and_no_kick() -> None:
    """Seed 002, 经典玩法: "造反功能：同简单玩法"."""
    classic = bh.RuleSet.preset("lianzhong_classic")
    assert classic.rebellion and not classic.kick
    game = find_game(classic, lambda g: True)
    through_roles(game, lambda g: A.SOLO_HIDDEN if A.SOLO_HIDDEN in kinds(g)
                  else A.GUARD_HIDDEN if A.GUARD_HIDDEN in kinds(g) else None)
    assert "rebel" in [e["type"] for e in game.events_for(None)] or any(
        e["type"] == "no_rebel" for e in game.events_for(None))


# -- 2. 明独保 declared outright in call mode ----------------------------------------------

@pytest.mark.parametrize("steal_solo", [False, True])
def test_the_emperor_may_declare_open_solo_instead_of_calling(steal_solo: bool) -> None:
    """Seed 002: "皇帝可以选择叫自己手中四张同花色同点数的牌“暗独保”，或是直接声明“明独保”"
    — whatever he holds, and whether or not 抢独 is allowed."""
    game = find_game(rules("lianzhong_classic", steal_solo=steal_solo),
                     lambda g: A.ACCEPT in kinds(g))
    e = actor(game)
    act(game, A.ACCEPT)
    while game.stage is not Stage.CALL:
        act(game, A.DECLINE)
    assert kinds(game) == [A.CALL, A.SOLO_OPEN]
    act(game, A.SOLO_OPEN)
    assert game.solo == "open" and game.emperor == game.guard == e
    assert game.view(None).called is None
    assert any(e["type"] == "solo" and e["open"] for e in game.events_for(None))


def test_calling_a_card_held_four_times_is_hidden_solo() -> None:
    """Seed 002: "叫自己手中四张同花色同点数的牌“暗独保”" — no open choice after it."""
    game = find_game(rules("lianzhong_classic", steal_solo=False),
                     lambda g: A.ACCEPT in kinds(g) and any(
                         n == 4 and c.rank < bh.Rank.TWO
                         for c, n in Counter(g.hand(actor(g))).items()))
    e = actor(game)
    act(game, A.ACCEPT)
    four = next(a for a in game.legal_actions()
                if a.kind is A.CALL and game.hand(e).count(a.cards[0]) == 4)
    game.apply(four)
    assert game.to_act == e and kinds(game) == [A.SOLO_HIDDEN]


# -- 3. the tribute split ----------------------------------------------------------------

def test_the_guard_takes_the_middle_tribute_card() -> None:
    """Seed 001: "“保皇派”吃贡时得到其他三人贡牌中中间大小的牌"."""
    hands = [Counter(_cards(text)) for text in ("9", "9", "A 7", "2 8", "K 6")]
    basis = bh.TributeBasis(emperor=0, guard=1, solo=None, royal_won=True, order=(0, 1, 2, 3, 4))
    moves = {(giver, receiver, str(card)) for giver, receiver, card
             in bh.tribute_transfers(basis, hands)}
    assert moves == {(3, 0, "2"), (2, 1, "A"), (4, 0, "K")}


# -- 4. 逼位 by three copies ---------------------------------------------------------------

def _bi_wei(rule: str) -> bh.RuleSet:
    return rules("lianzhong_simple", abdication="to_prev", forced_call=True, forced_call_rule=rule)


def _first_with(game: Game, test: Any) -> int | None:
    c = actor(game)
    for i in range(5):
        seat = (c - i) % 5
        if test(Counter(game.hand(seat))):
            return seat
    return None


def _threes(hand: Counter[bh.Card]) -> int:
    return sum(1 for c, n in hand.items() if n == 3 and c.rank < bh.Rank.TWO)


def test_forced_call_takes_a_player_with_exactly_three_copies_of_a_card() -> None:
    """Seed 000: "如果玩家手里有且只有 3 张同点数同花色的牌就必须叫庄" — three copies,
    not four; a second such card does not excuse him (the default reading)."""
    assert bh.RuleSet().forced_call_rule is bh.ForcedCallRule.THREE_NOT_FOUR

    def differs(g: Game) -> bool:
        new = _first_with(g, lambda h: _threes(h) >= 1)
        old = _first_with(g, lambda h: _threes(h) == 1)
        return new is not None and new != old and new != actor(g)
    game = find_game(_bi_wei("three_not_four"), differs)
    expected = _first_with(game, lambda h: _threes(h) >= 1)
    older = Game.new(_bi_wei("one_set_of_three"), game.seed)
    for g in (game, older):
        for _ in range(5):
            act(g, A.ABDICATE)
    assert expected is not None and game.emperor == expected
    assert _threes(Counter(game.hand(expected))) >= 2
    assert older.emperor != expected


# -- 5. 五人局 ------------------------------------------------------------------------------

def test_wurenju_deals_all_216_cards_from_the_dealer() -> None:
    """Seed 000, 五人局: the whole deck is dealt (no Emperor card held back); whoever
    holds the marked big joker ("标记皇帝") is the first candidate."""
    game = Game.new(WURENJU, seed=3)
    sizes = [len(game.hand(s)) for s in range(5)]
    assert sizes == [44, 43, 43, 43, 43]
    holder = next(s for s in range(5) if bh.EMPEROR_CARD in game.hand(s))
    assert game.events_for(None)[1] == {"type": "candidate", "seat": holder}


def test_the_existing_presets_deal_as_before() -> None:
    """The options added for 五人局 leave every earlier preset's deals unchanged."""
    for preset, deals in BEFORE["deals"].items():
        for seed, hands in deals.items():
            game = Game.new(bh.RuleSet.preset(preset), seed=int(seed))
            assert [" ".join(str(c) for c in game.hand(s)) for s in range(5)] == hands


@pytest.mark.parametrize("index", range(6))
def test_replays_saved_before_still_replay(index: int) -> None:
    saved = BEFORE["replays"][index]
    game = Game.from_record(saved["record"])
    assert game.result is not None
    # (the same result; a result now also tells how its scores came about)
    result = game.result.to_dict()
    assert {key: result[key] for key in saved["result"]} == saved["result"]
    assert [game.result.unit * share * game.result.stake
            for share in game.result.shares] == saved["result"]["scores"]


def test_clockwise_then_two_first_passes_alone_then_adds_a_two() -> None:
    """Seed 000: "当有人抓到皇帝而当不起，就要顺时针让，抓到皇帝的把皇帝拿出来，往后如果还是当不起
    就要添2让"."""
    game = find_game(WURENJU, lambda g: kinds(g) == [A.ABDICATE] and any(
        c.rank is bh.Rank.TWO for c in g.hand((actor(g) + 1) % 5)))
    first = actor(game)
    act(game, A.ABDICATE)
    passed = game.events_for(None)[-1]
    assert passed["type"] == "abdicate" and passed["to"] == (first + 1) % 5
    assert passed["count"] == 1                                   # the Emperor card alone
    if kinds(game) == [A.ABDICATE]:
        act(game, A.ABDICATE)
        assert game.events_for(None)[-1]["count"] == 2            # with one 2 added


def test_wurenju_goes_to_bi_wei_when_all_five_decline() -> None:
    """Seed 000: "如果都当不起再转或者重新抓牌" and 逼位 (on in 五人局)."""
    game = find_game(WURENJU, lambda g: all(
        not [c for c, n in Counter(g.hand(s)).items() if n >= 3 and c.rank < bh.Rank.TWO]
        or s != actor(g) for s in range(5)) and kinds(g) == [A.ABDICATE])
    for _ in range(60):
        if game.stage is not Stage.EMPEROR:
            break
        act(game, A.ABDICATE if A.ABDICATE in kinds(game) else A.ACCEPT)
    types = [e["type"] for e in game.events_for(None)]
    assert "emperor" in types or "redeal" in types


def test_called_card_high_needs_call_mode() -> None:
    with pytest.raises(RuleError, match="called_card_high"):
        bh.RuleSet().replace(called_card_high=True)
    with pytest.raises(RuleError, match="hold_back_emperor_card"):
        bh.RuleSet().replace(hold_back_emperor_card=False)


def _wurenju_in_play(seed: int = 0) -> Game:
    """A 五人局 game in play with a Guard other than the Emperor."""
    for s in range(seed, seed + 400):
        game = Game.new(WURENJU, s)
        through_roles(game, lambda g: A.CALL if g.stage is Stage.CALL else None)
        if game.stage is Stage.PLAY and game.guard != game.emperor:
            return game
    raise AssertionError("no seed gives a 2-against-3 game")


def test_the_guards_copy_of_the_called_card_becomes_tehua() -> None:
    """Seed 000, 五人局: "扑克大小顺序：小保、皇帝（大王中的一个标记出）和大王、小王、2…" — the
    小保 (the fourth copy of the called card) ranks above the big jokers; only the
    Guard learns that his card changed."""
    game = _wurenju_in_play()
    g, e = game.guard, game.emperor
    assert g is not None and e is not None
    called = game.view(None).called
    assert called is not None
    assert bh.TEHUA_CARD in game.hand(g) and called not in game.hand(g)
    assert game.hand(e).count(called) == 3
    call = next(ev for ev in game.events_for(g) if ev["type"] == "call")
    assert call["tehua"] == "TH"
    for seat in range(5):
        if seat != g:
            assert "tehua" not in next(ev for ev in game.events_for(seat) if ev["type"] == "call")


def test_tehua_beats_a_big_joker_and_nothing_beats_it() -> None:
    """The 特画 stands above 大王, so a play holding it cannot be beaten."""
    high = WURENJU
    assert bh.beats("TH 9 9", "BJ 8 8", rules=high)
    assert bh.beats("TH", "BJ", rules=high) and not bh.beats("BJ", "TH", rules=high)
    assert not bh.beats("BJ BJ BJ", "TH SJ 9", rules=high)
    assert not bh.beats("TH BJ 9", "BJ BJ 8", rules=high)        # BJ does not beat BJ
    assert bh.beats("TH BJ BJ", "BJ BJ", rules=high.replace(kaopai=True))
    assert bh.classify(_cards("TH 9 9")) == bh.Shape(9, 2, 0, 0, 1)


def test_the_guard_plays_tehua_as_a_joker_and_shows_himself() -> None:
    game = _wurenju_in_play()
    g = game.guard
    assert g is not None
    # play on until the Guard leads
    rng = random.Random(0)
    while game.to_act != g or game.view(None).last_play is not None:
        legal = game.legal_actions()
        passes = [a for a in legal if a.kind is A.PASS]
        game.apply(passes[0] if passes else rng.choice(legal))
        assert not game.is_over
    legal = game.legal_actions()
    alone = bh.Action(A.PLAY, (bh.TEHUA_CARD,))
    assert alone in legal
    attached = [a for a in legal if bh.TEHUA_CARD in a.cards and len(a.cards) > 1]
    assert attached and all(a.cards[0] == bh.TEHUA_CARD for a in attached)
    game.apply(attached[0])
    assert all(game.view(s).guard == g for s in range(5))
    assert any(ev["type"] == "reveal" for ev in game.events_for(None))
    # nobody can beat it: everyone may only pass, and the Guard leads again
    while game.to_act != g:
        assert [a.kind for a in game.legal_actions()] in ([A.PASS], [A.PASS, A.ASK_LEAD])
        game.apply(game.legal_actions()[0])
    assert game.view(None).last_play is None


@pytest.mark.parametrize(("order", "expected"), [
    ((0, 1), 1), ((0, 2, 1), 1), ((2, 0, 1), 0), ((0, 2, 3), -1), ((2, 3), -1), ((2, 0, 3), -1),
])
def test_wurenju_outcome(order: tuple[int, ...], expected: int) -> None:
    """Seed 000: "皇帝或者小保必须有跑第一的，剩下一个跑前三名为胜，如果皇帝小保跑了2、3名为平，
    剩下情况为皇帝小保负" (Emperor seat 0, Guard seat 1)."""
    places = [0] * 5
    rest = [s for s in range(5) if s not in order]
    for i, seat in enumerate((*order, *rest)):
        places[seat] = i + 1
    assert wurenju_outcome(places, 0, 1) == expected
    assert decided(order, 0, 1, False) and not decided(order[:-1], 0, 1, False)


def test_wurenju_scores() -> None:
    """Win: Guard +1, Emperor +2, each rebel −1; a draw scores nothing (reading)."""
    assert bh.settle([1, 3, 2, None, None], 0, 2, rules=WURENJU) == (2, -1, 1, -1, -1)
    assert bh.settle([2, 1, 3, None, None], 0, 2, rules=WURENJU) == (0, 0, 0, 0, 0)
    assert bh.settle([1, 2, 3, None, None], 0, 4, rules=WURENJU) == (-2, 1, 1, 1, -1)
    assert bh.settle([2, 1, None, None, None], 0, 0, rules=WURENJU,
                     solo="hidden") == (0, 0, 0, 0, 0)
    assert bh.settle([1, None, None, None, None], 0, 0, rules=WURENJU,
                     solo="open") == (4, -1, -1, -1, -1)


def test_wurenju_games_end_as_soon_as_the_result_is_fixed() -> None:
    rng = random.Random(5)
    draws = 0
    for seed in range(40):
        game = Game.new(WURENJU, seed)
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions()))
        result = game.result
        assert result is not None and result.emperor is not None and result.guard is not None
        out = [s for s in result.order if result.places[s] is not None]
        assert decided(out, result.emperor, result.guard, result.solo is not None)
        assert len(out) <= 3 or result.left is not None
        draws += result.royal_won is None
    assert draws > 0
