"""Play shapes and beating: every example of docs/rules.md §3."""

from __future__ import annotations

import pytest
from helpers import rules
from hypothesis import given, settings
from hypothesis import strategies as st

import baohuang as bh
from baohuang import InvalidPlay, Shape, beats, classify, parse_cards
from baohuang.engine.plays import (
    BJ,
    SJ,
    answer_shapes,
    beatable,
    follow_shapes,
    joker_follow_shapes,
    joker_lead_shapes,
    lead_shapes,
    plain_follow_ranks,
    playable,
    rank_counts,
    rank_lead_shapes,
    shape_beats,
    whole_hand_rank,
)

KAOPAI = rules(kaopai=True)
TWOS = rules(jokers_with_twos=True)
SIXES = rules(hold_sixes=True)


@pytest.mark.parametrize(("text", "shape"), [
    ("9", Shape(9, 1, 0, 0)),
    ("7 7", Shape(7, 2, 0, 0)),
    ("8 8 8", Shape(8, 3, 0, 0)),
    ("9 9 9 9", Shape(9, 4, 0, 0)),
    (" ".join(["Q"] * 16), Shape(12, 16, 0, 0)),
    ("BJ 7 7", Shape(7, 2, 0, 1)),
    ("SJ 8 8 8", Shape(8, 3, 1, 0)),
    ("BJ SJ 9 9 9 9", Shape(9, 4, 1, 1)),
    ("SJ", Shape(0, 0, 1, 0)),
    ("BJ BJ", Shape(0, 0, 0, 2)),
    ("BJ SJ SJ", Shape(0, 0, 2, 1)),
    ("2 2 2", Shape(15, 3, 0, 0)),
    ("BJ* SJ* 6", Shape(6, 1, 1, 1)),
])
def test_classify_legal_shapes(text: str, shape: Shape) -> None:
    assert classify(parse_cards(text)) == shape
    assert classify(parse_cards(text)).size == len(parse_cards(text))


@pytest.mark.parametrize("text", ["9 10", "6 7 8 9 10", "BJ 9 9 8", "J Q", "2 A"])
def test_no_straights_and_no_mixed_ranks(text: str) -> None:
    with pytest.raises(InvalidPlay, match="one rank"):
        classify(parse_cards(text))


def test_empty_play_is_invalid() -> None:
    with pytest.raises(InvalidPlay, match="at least one card"):
        classify([])


def test_jokers_with_twos_option() -> None:
    for text in ("SJ 2 2", "BJ 2", "BJ SJ 2 2 2"):
        with pytest.raises(InvalidPlay, match="2"):
            classify(parse_cards(text))
        with pytest.raises(InvalidPlay):
            classify(parse_cards(text), rules())
        assert classify(parse_cards(text), TWOS).rank == 15
    assert classify(parse_cards("2 2")) == Shape(15, 2, 0, 0)
    assert beats("BJ 2 2", "SJ K K", TWOS)
    assert not beats("SJ 2 2", "SJ K K", TWOS)
    with pytest.raises(InvalidPlay):
        beats("BJ 2 2", "SJ K K")


@pytest.mark.parametrize(("new", "old"), [
    ("8 8 8 8", "7 7 7 7"),
    ("BJ SJ SJ SJ", "A A A A"),
    ("SJ 8 8 8", "7 7 7 7"),
    ("SJ 7 7 7", "6 6 6 6"),
    ("BJ 9 9 9 9", "SJ 7 7 7 7"),
    ("BJ 6 6 6 6", "SJ 5 5 5 5"),
    ("BJ BJ J J J", "SJ SJ 9 9 9"),
    ("BJ BJ BJ J J", "SJ SJ 9 9 9"),
    ("2", "A"), ("SJ", "2"), ("BJ", "SJ"), ("BJ BJ", "SJ SJ"), ("BJ", "2"),
])
def test_beating_examples(new: str, old: str) -> None:
    assert beats(new, old)
    assert beats(new, old, KAOPAI)


@pytest.mark.parametrize(("new", "old"), [
    ("9 9 9 9", "SJ 8 8 8"),          # 套牌不能压同张数的王挂牌
    ("SJ", "SJ"),                     # SJ does not beat SJ
    ("BJ", "BJ"),
    ("7 7 7 7", "7 7 7 7"),           # strictly higher at every position
    ("9 9 9", "8 8"),                 # same number of cards
    ("9 9", "8 8 8"),
    ("SJ 9 9 9", "SJ 8 8 8"),         # SJ does not beat SJ
    ("BJ 7 7 7", "SJ 8 8 8"),         # every card must beat a card
    ("SJ SJ 9 9", "BJ 8 8 8"),
    ("2 2", "SJ SJ"),
])
def test_non_beating_examples(new: str, old: str) -> None:
    assert not beats(new, old)


ALL_RANKS = ["6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]


@pytest.mark.parametrize("old", ["BJ", "BJ 6", "BJ SJ 9 9", "BJ BJ", "BJ 2 2 2"])
def test_nothing_beats_a_big_joker_play_without_kaopai(old: str) -> None:
    size = len(old.split())
    old_rules = TWOS   # so that every joker + 2 candidate is a shape too
    candidates = []
    for y in range(size + 1):
        for x in range(size + 1 - y):
            n = size - x - y
            for r in ALL_RANKS if n else [""]:
                text = " ".join(["BJ"] * y + ["SJ"] * x + [r] * n)
                candidates.append(text)
    assert candidates
    for new in candidates:
        assert not beats(new, old, old_rules), new


@pytest.mark.parametrize(("new", "old"), [
    ("BJ BJ 8 8 8 8", "BJ 7 7 7 7"),
    ("BJ BJ BJ SJ 8 8", "BJ SJ 7 7 7"),
    ("BJ BJ SJ SJ", "BJ SJ"),
    ("BJ BJ SJ SJ SJ", "BJ BJ"),
    ("BJ BJ BJ", "BJ SJ"),
    ("BJ SJ SJ", "SJ SJ"),
    ("BJ SJ SJ SJ", "BJ SJ"),
    ("BJ BJ BJ SJ SJ", "BJ SJ SJ"),
    # the basic kaopai rules they are derived from
    ("BJ BJ", "BJ"), ("SJ SJ", "SJ"), ("SJ SJ SJ", "BJ"), ("BJ", "SJ"),
])
def test_kaopai_examples(new: str, old: str) -> None:
    assert beats(new, old, KAOPAI)
    assert not beats(new, old) or len(new.split()) == len(old.split())


@pytest.mark.parametrize(("new", "old"), [
    ("SJ SJ", "BJ"),                  # an old BJ needs 2 BJ or 3 SJ
    ("BJ BJ", "BJ SJ"),               # the SJ is left uncovered
    ("BJ BJ 8 8", "BJ 8 8"),          # rank cards must be higher
    ("BJ 9 9", "SJ 8"),               # every new rank card covers an old one
    ("BJ BJ BJ", "BJ BJ"),            # 2 BJ per old BJ
    ("SJ 8 8 8 8 8", "SJ 7 7 7 7"),   # the SJ is not covered
    ("9 9 9 9 9", "SJ 8 8 8 8"),
])
def test_kaopai_non_examples(new: str, old: str) -> None:
    assert not beats(new, old, KAOPAI)


def test_kaopai_only_on_a_play_with_a_joker() -> None:
    assert not beats("SJ 9 9 9", "8 8 8", KAOPAI)
    assert not beats("BJ 9", "8", KAOPAI)
    # a new rank card must cover an old rank card; only jokers may be extra
    assert not beats("BJ 9", "SJ", KAOPAI)
    assert beats("BJ SJ", "SJ", KAOPAI)


def test_beats_parses_and_checks_shapes() -> None:
    with pytest.raises(InvalidPlay):
        beats("9 10", "8 8")
    with pytest.raises(InvalidPlay):
        beats("9 9", "7 8")
    with pytest.raises(bh.CardParseError):
        beats("9 x", "8 8")
    assert beats(parse_cards("9 9"), parse_cards("8 8"))


def test_hold_sixes_only_the_whole_hand() -> None:
    hand = parse_cards("6 6 7 SJ")
    counts = rank_counts(hand)
    shapes = lead_shapes(counts, SIXES)
    assert not [s for s in shapes if s.rank == 6]
    assert Shape(7, 1, 1, 0) in shapes and Shape(0, 0, 1, 0) in shapes
    assert not playable(Shape(6, 2, 0, 0), counts, SIXES)
    assert playable(Shape(6, 2, 0, 0), counts, rules())
    last = rank_counts(parse_cards("6 6 SJ"))
    assert set(lead_shapes(last, SIXES)) == {Shape(6, 2, 1, 0), Shape(0, 0, 1, 0)}
    assert playable(Shape(6, 2, 1, 0), last, SIXES)
    assert not playable(Shape(6, 2, 0, 0), last, SIXES)
    # following: the sixes may only go as the whole hand
    assert follow_shapes(rank_counts(parse_cards("6 6 7")), Shape(5, 2, 0, 0), SIXES) == []
    assert follow_shapes(rank_counts(parse_cards("6 6 7")), Shape(5, 2, 0, 0), rules()) == \
        [Shape(6, 2, 0, 0)]
    assert follow_shapes(rank_counts(parse_cards("6 6")), Shape(5, 2, 0, 0), SIXES) == \
        [Shape(6, 2, 0, 0)]


def test_twos_lead_alone_but_not_with_jokers() -> None:
    counts = rank_counts(parse_cards("2 2 SJ BJ"))
    shapes = set(lead_shapes(counts, rules()))
    assert {Shape(15, 1, 0, 0), Shape(15, 2, 0, 0)} <= shapes
    assert not [s for s in shapes if s.rank == 15 and s.has_joker]
    assert Shape(15, 2, 1, 1) in set(lead_shapes(counts, TWOS))


def test_shape_text() -> None:
    assert str(classify(parse_cards("9 BJ SJ 9"))) == "BJ SJ 9 9"


# -- the shortcuts the engine and the playouts take are the rule itself ----------------

_counts = st.lists(st.integers(0, 4), min_size=13, max_size=13).flatmap(
    lambda ranks: st.tuples(st.integers(0, 2), st.integers(0, 2)).map(
        lambda jokers: [0, 0, 0, *ranks, jokers[0], jokers[1], 0]))
_last = st.tuples(st.integers(3, 15), st.integers(1, 4), st.integers(0, 1),
                  st.integers(0, 1)).map(lambda t: Shape(*t))
_rules = st.sampled_from([bh.RuleSet(), KAOPAI, TWOS, SIXES,
                          rules(kaopai=True, hold_sixes=True, jokers_with_twos=True)])


@given(_counts, _last, _rules)
@settings(max_examples=300, deadline=None)
def test_shortcuts_agree_with_the_shapes(counts: list[int], last: Shape,
                                         ruleset: bh.RuleSet) -> None:
    """``plain_follow_ranks`` is ``follow_shapes`` when no joker is involved, and
    ``joker_follow_shapes`` when one is; ``answer_shapes`` less what the hand
    cannot play is ``follow_shapes`` (烤牌 on jokers aside); a play that is not
    ``beatable`` has no follow; ``rank_lead_shapes`` and
    ``joker_lead_shapes`` make up ``lead_shapes``; every shape made is ``playable``."""
    if sum(counts) == 0:
        return
    follows = follow_shapes(counts, last, ruleset)
    ranks = plain_follow_ranks(counts, last, ruleset)
    if ranks is not None:
        assert follows == [Shape(r, last.n, 0, 0) for r in ranks]
    else:
        assert joker_follow_shapes(counts, last, ruleset) == follows
    if not beatable(last, ruleset.kaopai):
        assert follows == []
    assert all(playable(s, counts, ruleset) and shape_beats(s, last, ruleset.kaopai)
               for s in follows)
    if not (ruleset.kaopai and last.has_joker):
        # the table of answers, less what the hand does not hold or may not play
        held = [a for a in answer_shapes(tuple(last[:4]), ruleset)
                if counts[SJ] >= a.sj and counts[BJ] >= a.bj
                and (not a.n or counts[a.rank] >= a.n) and playable(a, counts, ruleset)]
        assert sorted(held) == sorted(follows)
    leads = [s for r in range(3, 16) if counts[r]
             for s in rank_lead_shapes(r, counts, ruleset)]
    assert lead_shapes(counts, ruleset) == leads + list(joker_lead_shapes(counts))
    assert all(playable(s, counts, ruleset) for s in leads)
    six = whole_hand_rank(ruleset)
    if six is not None and counts[six]:
        assert all(s.size == sum(counts) for s in rank_lead_shapes(six, counts, ruleset))
