"""Legal plays cross-checked against brute force: enumerate every
sub-multiset of a small hand, keep those an independent reading of docs/rules.md
§3 allows, and compare with lead_shapes/follow_shapes and with a real game's
legal actions (with and without kaopai, hold_sixes, jokers_with_twos)."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence

from helpers import rules
from hypothesis import given, settings
from hypothesis import strategies as st

import baohuang as bh
from baohuang import Action, ActionKind, RuleSet, Shape
from baohuang.engine.plays import follow_shapes, lead_shapes

SJ, BJ, TWO, SIX = 16, 17, 15, 6


# -- an independent oracle ------------------------------------------------------

def valid(ranks: Sequence[int], r: RuleSet) -> bool:
    plain = {x for x in ranks if x < SJ}
    if not ranks or len(plain) > 1:
        return False
    has_joker = any(x >= SJ for x in ranks)
    return not (plain == {TWO} and has_joker and not r.jokers_with_twos)


def positional(new: Sequence[int], old: Sequence[int]) -> bool:
    """Same size and every card higher, position by position, high to low."""
    return len(new) == len(old) and all(
        a > b for a, b in zip(sorted(new, reverse=True), sorted(old, reverse=True), strict=True))


def covered(new: Sequence[int], old: Sequence[int]) -> bool:
    """烤牌: every old card covered by its own group of new cards (an old BJ by
    2 BJ or 3 SJ, an old SJ by 1 BJ or 2 SJ, an old rank card by one higher
    card); whatever is left over must be jokers."""
    olds = sorted(old, reverse=True)

    def search(i: int, left: Counter[int]) -> bool:
        if i == len(olds):
            return all(x >= SJ for x in left.elements())
        o = olds[i]
        if o == BJ:
            groups = [Counter({BJ: 2}), Counter({SJ: 3})]
        elif o == SJ:
            groups = [Counter({BJ: 1}), Counter({SJ: 2})]
        else:
            groups = [Counter({x: 1}) for x in left if x > o]
        for group in groups:
            if all(left[x] >= n for x, n in group.items()) and search(i + 1, left - group):
                return True
        return False
    return search(0, Counter(new))


def allowed(new: Sequence[int], old: Sequence[int] | None, hand_size: int, r: RuleSet) -> bool:
    if not valid(new, r):
        return False
    if r.hold_sixes and SIX in new and len(new) != hand_size:
        return False
    if old is None:
        return True
    if positional(new, old):
        return True
    return r.kaopai and any(x >= SJ for x in old) and covered(new, old)


def to_shape(ranks: Sequence[int]) -> Shape:
    plain = [x for x in ranks if x < SJ]
    return Shape(plain[0] if plain else 0, len(plain), ranks.count(SJ), ranks.count(BJ))


def brute(hand: Counter[int], old: Sequence[int] | None, r: RuleSet) -> set[Shape]:
    keys = sorted(hand)
    size = sum(hand.values())
    out = set()
    for pick in itertools.product(*(range(hand[k] + 1) for k in keys)):
        ranks = [k for k, n in zip(keys, pick, strict=True) for _ in range(n)]
        if ranks and allowed(ranks, old, size, r):
            out.add(to_shape(ranks))
    return out


def counts_of(hand: Counter[int]) -> list[int]:
    counts = [0] * 18
    for k, n in hand.items():
        counts[k] += n
    return counts


# -- the oracle agrees with the sources' examples ----------------------------------

def _r(text: str) -> list[int]:
    return [int(c.rank) for c in bh.parse_cards(text)]


def test_oracle_reads_the_examples() -> None:
    assert positional(_r("BJ BJ J J J"), _r("SJ SJ 9 9 9"))
    assert not positional(_r("9 9 9 9"), _r("SJ 8 8 8"))
    assert covered(_r("BJ BJ BJ SJ 8 8"), _r("BJ SJ 7 7 7"))
    assert covered(_r("BJ BJ SJ SJ SJ"), _r("BJ BJ"))
    assert not covered(_r("BJ 9"), _r("SJ"))


# -- pure functions -----------------------------------------------------------------

RANK_POOL = [6, 7, 9, 14, 15, SJ, BJ]
hands = st.dictionaries(st.sampled_from(RANK_POOL), st.integers(1, 3), min_size=1, max_size=5)
options = st.fixed_dictionaries({"kaopai": st.booleans(), "hold_sixes": st.booleans(),
                                 "jokers_with_twos": st.booleans()})


@st.composite
def last_plays(draw: st.DrawFn) -> list[int]:
    rank = draw(st.sampled_from([0, 6, 7, 8, 10, 13, 14, 15]))
    n = 0 if rank == 0 else draw(st.integers(1, 3))
    x, y = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    if n + x + y == 0:
        x = 1
    return [rank] * n + [SJ] * x + [BJ] * y


@settings(max_examples=250, deadline=None)
@given(hand=hands, opts=options)
def test_lead_shapes_match_brute_force(hand: dict[int, int], opts: dict[str, bool]) -> None:
    r = rules("shandong", **opts)
    got = lead_shapes(counts_of(Counter(hand)), r)
    assert len(got) == len(set(got))
    assert set(got) == brute(Counter(hand), None, r)


@settings(max_examples=400, deadline=None)
@given(hand=hands, old=last_plays(), opts=options)
def test_follow_shapes_match_brute_force(hand: dict[int, int], old: list[int],
                                         opts: dict[str, bool]) -> None:
    if TWO in old and max(old) >= SJ:       # such a last play needs the option
        opts = {**opts, "jokers_with_twos": True}
    r = rules("shandong", **opts)
    got = follow_shapes(counts_of(Counter(hand)), to_shape(old), r)
    assert len(got) == len(set(got))
    assert set(got) == brute(Counter(hand), old, r)
    for shape in got:        # and the shape rule agrees
        assert bh.engine.plays.shape_beats(shape, to_shape(old), r.kaopai)


# -- a real game's legal actions ------------------------------------------------------

def _check_game_position(game: bh.Game) -> bool:
    """Compare the legal plays of the seat to act with brute force when its
    hand is small enough; True when compared."""
    seat = game.to_act
    assert seat is not None
    hand = Counter(int(c.rank) for c in game.hand(seat))
    if sum(hand.values()) > 9:
        return False
    view = game.view(seat)
    r = game.rules
    old = None if view.last_play is None else [int(c.rank) for c in view.last_play[1]]
    legal = game.legal_actions()
    plays = [a for a in legal if a.kind is ActionKind.PLAY]
    held = Counter(game.hand(seat))
    for a in plays:
        assert not Counter(a.cards) - held, f"{a} is not held"
    assert len(set(legal)) == len(legal)
    got = {bh.classify(a.cards, r) for a in plays}
    assert got == brute(hand, old, r)
    assert (Action(ActionKind.PASS) in legal) == (old is not None)
    return True


OPTION_MIXES = [
    ("shandong", {}),
    ("shandong", {"kaopai": True}),
    ("shandong", {"hold_sixes": True}),
    ("shandong", {"kaopai": True, "hold_sixes": True, "jokers_with_twos": True}),
    ("lianzhong_classic", {"kaopai": True}),
    ("lianzhong_simple", {"hold_sixes": True, "jokers_with_twos": True}),
    ("seed001_216", {"kaopai": True, "hold_sixes": True}),
    ("seed001_216", {}),
]


def test_game_legal_actions_match_brute_force() -> None:
    compared = 0
    for i, (preset, opts) in enumerate(OPTION_MIXES):
        for seed in range(4):
            game = bh.Game.new(rules(preset, **opts), seed)
            rng = random.Random(seed * 31 + i)
            while not game.is_over:
                if game.stage is bh.Stage.PLAY:
                    compared += _check_game_position(game)
                game.apply(rng.choice(game.legal_actions()))
    assert compared > 200


# -- the hidden Guard: one action per way of showing (or not) a revealing card -------

def test_hidden_guard_has_one_action_per_way_to_include_a_revealing_card() -> None:
    """While the Guard is hidden, its legal plays are every allowed choice of cards
    told apart only by rank and by whether a card would reveal the Guard (the marked
    joker in card mode, the called card in call mode) — each choice once."""
    compared = 0
    for preset in ("shandong", "lianzhong_classic", "seed001_216"):
        for seed in range(100):
            game = bh.Game.new(rules(preset), seed)
            rng = random.Random(seed)
            while not game.is_over:
                st_ = game._st
                seat = game.to_act
                if (game.stage is bh.Stage.PLAY and seat is not None
                        and st_.special_cards(seat) and len(game.hand(seat)) <= 10):
                    special = st_.special_cards(seat)
                    held = Counter((int(c.rank), c in special) for c in game.hand(seat))
                    view = game.view(seat)
                    old = None if view.last_play is None else \
                        [int(c.rank) for c in view.last_play[1]]
                    keys = sorted(held)
                    want = set()
                    for pick in itertools.product(*(range(held[k] + 1) for k in keys)):
                        chosen = Counter({k: n for k, n in zip(keys, pick, strict=True) if n})
                        ranks = sorted(k[0] for k in chosen.elements())
                        if ranks and allowed(ranks, old, sum(held.values()), game.rules):
                            want.add(frozenset(chosen.items()))
                    plays = [a for a in game.legal_actions() if a.kind is ActionKind.PLAY]
                    got = [frozenset(Counter((int(c.rank), c in special)
                                             for c in a.cards).items()) for a in plays]
                    assert len(got) == len(set(got)), "a choice is listed twice"
                    assert set(got) == want
                    compared += 1
                game.apply(rng.choice(game.legal_actions()))
    assert compared > 100
