"""Positions built by hand: the state behind :meth:`baohuang.Game.setup`.

A position is a game in any stage with given hands and declarations — for
tests, puzzles and a search bot's determinizations (a deal sampled from one
seat's view, continued from where the real game is).  Everything is checked
as far as it can be without the history: five hands, seats 0..4, a stage
that agrees with the declarations, a trick that is a legal play shape.

>>> import baohuang as bh
>>> hands = ["BJ 9 9", "8 8", "SJ* 5", "7", "6 6 6"]
>>> game = bh.Game.setup(bh.RuleSet(), hands, emperor=0, guard=2, to_act=1,
...                      last=(0, "9 9"))
>>> [str(a) for a in game.legal_actions()]
['pass']
>>> game.apply(game.legal_actions()[0]); game.to_act
2
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from .cards import RANK_OF, RANK_SLOTS, Card, parse_cards
from .events import Event, EventKind, Play
from .plays import InvalidPlay, classify
from .rules import RuleSet
from .scoring import SoloKind
from .state import GameState, IllegalAction, Stage

__all__ = ["build_state"]

Hand = str | Iterable[Card]

#: the stages in which the Emperor is known
_AFTER_EMPEROR = (Stage.EMPEROR_SOLO, Stage.STEAL, Stage.CALL, Stage.GUARD, Stage.REBELLION,
                  Stage.KICK, Stage.PLAY)
#: the stages in which the Guard is known
_AFTER_GUARD = (Stage.GUARD, Stage.REBELLION, Stage.KICK, Stage.PLAY)


def _seat(name: str, value: int | None, *, optional: bool = True) -> None:
    if value is None and optional:
        return
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 5:
        raise IllegalAction(f"{name} must be a seat 0..4, not {value!r}")


def _seats(name: str, values: Iterable[int]) -> list[int]:
    out = list(values)
    for v in out:
        _seat(name, v, optional=False)
    if len(set(out)) != len(out):
        raise IllegalAction(f"{name} names a seat twice: {out}")
    return out


def build_state(rules: RuleSet, hands: Sequence[Hand], *, to_act: int,
                stage: Stage = Stage.PLAY, seed: int = 0, dealer: int = 0, deal_no: int = 0,
                emperor: int | None = None, guard: int | None = None,
                solo: SoloKind | None = None, called: Card | str | None = None,
                guard_open: bool = False, guard_public: bool | None = None,
                stolen: bool = False, candidate: int | None = None,
                first_candidate: int | None = None, declines: int = 0,
                pool: Iterable[Card] = (), asking: Iterable[int] = (),
                votes: Mapping[int, bool] | None = None, rebels: Iterable[int] = (),
                kicks: int = 0, last: tuple[int, str | Sequence[Card]] | None = None,
                passes: int = 0, applicant: int | None = None, out: Iterable[int] = (),
                leader: int | None = None,
                played: Iterable[tuple[int, str | Sequence[Card]]] = ()) -> GameState:
    """The state of :meth:`baohuang.Game.setup` (see there); raises
    :class:`IllegalAction` naming what does not fit."""
    if len(hands) != 5:
        raise IllegalAction(f"a position needs 5 hands, not {len(hands)}")
    _seat("to_act", to_act, optional=False)
    for name, seat in (("dealer", dealer), ("emperor", emperor), ("guard", guard),
                       ("candidate", candidate), ("first_candidate", first_candidate),
                       ("applicant", applicant), ("leader", leader)):
        _seat(name, seat)
    if stage is Stage.OVER:
        raise IllegalAction("a position is a game in progress, not stage 'over'")
    if stage in _AFTER_EMPEROR and emperor is None:
        raise IllegalAction(f"stage {stage.value} needs the emperor's seat")
    if stage in _AFTER_GUARD and guard is None:
        raise IllegalAction(f"stage {stage.value} needs the guard's seat")
    if solo is not None and solo not in ("open", "hidden"):
        raise IllegalAction(f"solo must be 'open', 'hidden' or None, not {solo!r}")
    if solo is not None and (guard is None or guard != emperor):
        raise IllegalAction("a solo game has guard == emperor")
    if solo is None and guard is not None and guard == emperor and stage is not Stage.GUARD:
        raise IllegalAction("guard == emperor needs solo 'open' or 'hidden' (or stage guard, "
                            "where he is still to choose)")
    st = GameState(rules=rules, seed=seed, dealer=dealer, tribute=None, deal_no=deal_no)
    st.hands = [Counter(parse_cards(h) if isinstance(h, str) else h) for h in hands]
    st.counts = [[0] * RANK_SLOTS for _ in range(5)]
    for hand, counts in zip(st.hands, st.counts, strict=True):
        for card, k in hand.items():
            counts[RANK_OF[card]] += k
    st.stage, st.to_act = stage, to_act
    st.emperor, st.guard, st.solo, st.stolen = emperor, guard, solo, stolen
    st.called = parse_cards(called)[0] if isinstance(called, str) else called
    st.guard_open = guard_open
    st.guard_public = (guard_open or solo == "open") if guard_public is None else guard_public
    st.candidate = to_act if candidate is None else candidate
    st.first_candidate = st.candidate if first_candidate is None else first_candidate
    st.declines, st.pool = declines, list(pool)
    st.asking = _seats("asking", asking)
    st.votes = dict(votes or {})
    st.rebels, st.kicks = _seats("rebels", rebels), kicks
    st.out = _seats("out", out)
    st.passes, st.applicant = passes, applicant
    st.leader = (to_act if last is None else last[0]) if leader is None else leader
    if last is not None:
        if stage is not Stage.PLAY:
            raise IllegalAction("only the play stage has a trick to beat")
        by, cards = last
        _seat("last", by, optional=False)
        trick = tuple(parse_cards(cards) if isinstance(cards, str) else cards)
        try:
            shape = classify(trick, rules)
        except InvalidPlay as exc:
            raise IllegalAction(f"last: {exc}") from None
        st.last = (by, (shape.rank, shape.n, shape.sj, shape.bj, shape.th), trick)
    for by, cards in played:
        _seat("played", by, optional=False)
        shown = parse_cards(cards) if isinstance(cards, str) else list(cards)
        st.events.append(Event(EventKind.PLAY, by, Play([str(c) for c in shown])))
    if to_act in st.out or not st.hands[to_act]:
        raise IllegalAction(f"seat {to_act} is out and cannot act")
    return st
