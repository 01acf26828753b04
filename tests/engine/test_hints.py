"""The hint order (engine/hints.py), from its wording: the smallest play that does the
job first, whole natural sets before joker-padded ones, not breaking a bigger set when a
smaller one does; a hidden Guard's revealing plays last."""

from __future__ import annotations

from typing import Any

import baohuang as bh
from baohuang import ActionKind, Game, RuleSet, hint_order
from baohuang.bots import make_bot

OTHERS = ["3 3 4 4 5", "3 4 5 7", "4 4 5 5 7", "3 3 7 7 9"]


def _hints(hand: str, *, last: str | None = None, **position: Any) -> list[str]:
    """The hints of seat 0 holding ``hand``, leading or (``last``) following seat 4."""
    extra: dict[str, Any] = {"emperor": 1, "guard": 2}
    extra.update(position)
    if last is not None:
        extra["last"] = (4, last)
    game = Game.setup(RuleSet(), [hand, *OTHERS], to_act=0, **extra)
    view = game.view(0)
    return [" ".join(_rank(str(c)) for c in a.cards) for a in hint_order(view)]


def _rank(card: str) -> str:
    """A card's rank as the hints are compared here (``9`` for ``9s``; ``SJ*`` kept)."""
    return card[:-1] if card[-1] in "shdc" else card


def test_following_natural_pairs_before_joker_padded_ones() -> None:
    hints = _hints("6s 6h 9c BJ", last="5s 5h")
    assert hints == ["6 6", "BJ 6", "BJ 9"]


def test_following_a_smaller_whole_set_before_breaking_a_bigger_one() -> None:
    # a pair of 8s does the job: the three 7s stay whole
    hints = _hints("7s 7h 7d 8c 8d", last="6s 6h")
    assert hints == ["8 8", "7 7"]


def test_following_a_single_the_lowest_single_card_first() -> None:
    hints = _hints("4s 9c 9d Ks SJ BJ", last="3s")
    assert hints[:2] == ["4", "K"]             # whole "sets" of one, lowest first
    assert hints[2] == "9"                     # then breaking the pair of 9s
    assert hints[3:] == ["SJ", "BJ"]           # jokers last, 小王 before 大王


def test_jokers_fewest_then_smallest() -> None:
    hints = _hints("5s SJ BJ BJ", last="4s 4h 4d")
    padded = [h for h in hints if h.endswith("5")]
    assert padded == sorted(padded, key=lambda h: (len(h.split()), "BJ BJ" in h))


def test_leading_whole_groups_lowest_first_then_broken_then_jokers() -> None:
    hints = _hints("3s 3h 5c 9s 9h 9d SJ")
    assert hints[:3] == ["3 3", "5", "9 9 9"]
    first_joker = next(i for i, h in enumerate(hints) if "SJ" in h)
    assert all("SJ" not in h for h in hints[:first_joker])
    assert all("SJ" in h for h in hints[first_joker:])
    assert len(hints) == len(set(hints))


def test_a_hidden_guard_shows_himself_last() -> None:
    # seat 0 is the hidden Guard holding the Guard card (小王*): its plays come last
    hints = _hints("6s SJ* SJ", last="5s", emperor=1, guard=0)
    assert hints == ["6", "SJ", "SJ*"]


def test_hints_are_the_plays_of_legal_once_each() -> None:
    for seed in range(4):
        game = Game.new(seed=seed)
        bots = [make_bot("random", seed=seed + s) for s in range(5)]
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            view, legal = game.view(seat), game.legal_actions()
            if game.stage is bh.Stage.PLAY:
                hints = hint_order(view, legal)
                plays = {a for a in legal if a.kind is ActionKind.PLAY}
                assert set(hints) == plays and len(hints) == len(plays)
            game.apply(bots[seat].choose(view, legal))
