"""A fast play-phase simulator on rank counts, for search playouts.

No :class:`~baohuang.engine.actions.Action` objects and no events: each seat is a
list of 18 rank counts (indices 3..17, 16 = SJ, 17 = BJ), a play is a shape
tuple ``(rank, n, sj, bj)``.  The simulator keeps the flow of the play phase
(docs/rules.md §7: rounds, soft passes, 接风 by ``lead_after_out`` — teammate,
next, apply) with the engine's own functions
(:func:`~baohuang.engine.playphase.passes_needed`,
:func:`~baohuang.engine.playphase.round_leader`) and asks
:mod:`baohuang.engine.plays` what may be played (憋6, 烤牌, 不可以用2配牌 and what
beats what), :func:`baohuang.engine.scoring.game_ends` when the game is over and
:func:`baohuang.engine.scoring.settle` for the scores.
One approximation: the 特画 (``called_card_high``) is counted as a big joker
(:func:`baohuang.bots.hand_eval.rank_of`), so a play holding it is never beaten
here either, but here it does not beat a big joker.

Every seat is played by one fast greedy policy (:class:`RolloutPolicy`): a
leader leads his lowest group (or his whole hand when it is one play); a
follower passes on a partner's play, otherwise plays the cheapest shape that
beats, keeping jokers and 2s for when an opponent is close to going out.

>>> import random
>>> import baohuang as bh
>>> game = bh.Game.new(seed=3)
>>> while game.stage is not bh.Stage.PLAY:
...     game.apply(game.legal_actions()[0])
>>> from baohuang.bots.hand_eval import rank_counts_of
>>> counts = [rank_counts_of(game.hand(seat)) for seat in range(5)]
>>> sim = Simulator(game.rules)
>>> state = sim.opening(counts, game.emperor, game.guard, game.solo)
>>> scores = sim.finish(state, random.Random(0))
>>> len(scores), sum(scores)
(5, 0)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ...engine.playphase import next_holding, passes_needed, round_leader
from ...engine.plays import (
    BJ,
    SJ,
    TWO,
    answer_shapes,
    beatable,
    follow_shapes,
    playable,
    shape_beats,
    whole_hand_rank,
)
from ...engine.rules import LeadAfterOut, RuleSet
from ...engine.scoring import SoloKind, game_ends, settle

__all__ = ["PlayState", "RolloutPolicy", "Shape4", "Simulator"]

#: A play as ``(rank, n, sj, bj)`` — the fields of :class:`baohuang.engine.plays.Shape`.
Shape4 = tuple[int, int, int, int]



@dataclass(slots=True)
class PlayState:
    """The play phase of one (determinized) game, mutated by the simulator.

    ``royal[s]``: seat ``s`` is on the Emperor's side in this deal.
    ``last`` is the play to beat (``None`` when ``to_act`` leads) made by
    ``last_seat``; ``passes`` counts passes on it; ``applicant`` is the seat
    that asked for 接风 (``lead_after_out = apply``).
    """

    counts: list[list[int]]
    sizes: list[int]
    out: list[int]
    royal: list[bool]
    emperor: int
    guard: int
    solo: SoloKind | None
    to_act: int
    last: Shape4 | None = None
    last_seat: int = -1
    passes: int = 0
    applicant: int | None = None

    def copy(self) -> PlayState:
        return PlayState([c[:] for c in self.counts], self.sizes[:], self.out[:],
                         self.royal, self.emperor, self.guard, self.solo, self.to_act,
                         self.last, self.last_seat, self.passes, self.applicant)


@dataclass(frozen=True, slots=True)
class RolloutPolicy:
    """Knobs of the greedy rollout policy.

    ``save``: probability that a follower keeps his jokers and 2s instead of
    beating with them while the player to beat holds more than
    ``threat`` cards.  ``wander``: probability that a leader leads his
    second-lowest group instead of the lowest.
    """

    save: float = 0.7
    threat: int = 6
    wander: float = 0.1


class Simulator:
    """Plays out the rest of a game on rank counts under ``rules``."""

    __slots__ = ("_answers", "_apply", "_held_back", "_kaopai", "_lead_mode", "_scoring",
                 "policy", "rules")

    def __init__(self, rules: RuleSet, policy: RolloutPolicy | None = None) -> None:
        self.rules = rules
        self.policy = policy or RolloutPolicy()
        self._kaopai = rules.kaopai
        self._held_back = whole_hand_rank(rules)
        self._lead_mode = rules.lead_after_out
        self._apply = rules.lead_after_out is LeadAfterOut.APPLY
        self._scoring = rules.scoring
        self._answers: dict[Shape4, tuple[tuple[int, ...], frozenset[Shape4]]] = {}

    # -- building states -------------------------------------------------------
    def opening(self, counts: Sequence[Sequence[int]], emperor: int, guard: int,
                solo: SoloKind | None) -> PlayState:
        """The first lead of the play phase: the Emperor leads."""
        return self.state(counts, emperor, guard, solo, to_act=emperor)

    def state(self, counts: Sequence[Sequence[int]], emperor: int, guard: int,
              solo: SoloKind | None, *, to_act: int, out: Sequence[int] = (),
              last: Shape4 | None = None, last_seat: int = -1, passes: int = 0,
              applicant: int | None = None) -> PlayState:
        """A play-phase state (``out`` in finishing order)."""
        if solo is not None and guard != emperor:
            raise ValueError("a solo game has guard == emperor")
        royal = [s == emperor or (s == guard and solo is None) for s in range(5)]
        cs = [list(c) for c in counts]
        return PlayState(cs, [sum(c) for c in cs], list(out), royal, emperor, guard, solo,
                         to_act, last, last_seat, passes, applicant)

    # -- moves -------------------------------------------------------------------
    def play(self, st: PlayState, shape: Shape4 | None, *, ask_lead: bool = False) -> bool:
        """Apply the move of ``st.to_act``: a shape, or ``None`` to pass
        (``ask_lead``: 申请接风 instead of a plain pass).  Returns True when
        the game is over."""
        s = st.to_act
        if shape is None:
            if ask_lead and st.applicant is None:
                st.applicant = s
            self._pass(st, s)
            return False
        return self._play(st, s, shape)

    def _play(self, st: PlayState, s: int, shape: Shape4) -> bool:
        r, n, x, y = shape
        c = st.counts[s]
        if n:
            c[r] -= n
        c[SJ] -= x
        c[BJ] -= y
        st.sizes[s] -= n + x + y
        st.last, st.last_seat, st.passes, st.applicant = shape, s, 0, None
        if st.sizes[s] == 0:
            st.out.append(s)
            if self._over(st):
                return True
        st.to_act = self._next_in(st, s)
        return False

    def _pass(self, st: PlayState, s: int) -> None:
        st.passes += 1
        last_seat = st.last_seat
        gone = st.sizes[last_seat] == 0
        if st.passes < passes_needed(len(st.out), gone):
            st.to_act = self._next_in(st, s)
            return
        leader = round_leader(last_seat, gone, st.applicant, self._lead_mode, st.sizes,
                              st.royal.__getitem__)[0]
        st.last, st.passes, st.applicant, st.to_act = None, 0, None, leader

    @staticmethod
    def _next_in(st: PlayState, s: int) -> int:
        return next_holding(st.sizes, s)

    def _over(self, st: PlayState) -> bool:
        return game_ends(st.out, st.emperor, st.guard, st.solo, self._scoring)

    def is_over(self, st: PlayState) -> bool:
        """Whether the game in ``st`` has ended."""
        return self._over(st)

    # -- playing out -------------------------------------------------------------
    def run(self, st: PlayState, rng: random.Random) -> None:
        """Play ``st`` to the end with the rollout policy."""
        if self._over(st):
            return
        pol = self.policy
        save, threat, wander = pol.save, pol.threat, pol.wander
        rand = rng.random
        counts, sizes, royal, out = st.counts, st.sizes, st.royal, st.out
        kaopai, lead_mode, apply = self._kaopai, self._lead_mode, self._apply
        side = royal.__getitem__
        lead, follow, whole_beat = self._lead, self._follow, self._whole_hand_beat
        s, last, ls = st.to_act, st.last, st.last_seat
        passes, applicant = st.passes, st.applicant
        open_play = last is not None and beatable(last, kaopai)   # may it be beaten at all
        # the passes that end the round on the play to beat (made again at each play)
        needed = passes_needed(len(out), ls >= 0 and not sizes[ls])
        shape: Shape4 | None
        while True:
            if last is None:
                shape = lead(counts[s], sizes[s], rand() < wander)
            else:
                if not open_play:
                    shape = None
                elif royal[s] == royal[ls] and sizes[ls]:
                    # never beat a partner who is still in, unless going out
                    shape = (whole_beat(counts[s], last)
                             if kaopai or sizes[s] == last[1] + last[2] + last[3] else None)
                else:
                    shape = follow(counts[s], sizes[s], last, sizes[ls] <= threat, save, rand)
                if shape is None:                     # pass
                    if apply and applicant is None and not sizes[ls]:
                        applicant = s                 # 申请接风
                    passes += 1
                    if passes < needed:
                        s = (s + 1) % 5
                        while not sizes[s]:
                            s = (s + 1) % 5
                        continue
                    s = round_leader(ls, not sizes[ls], applicant, lead_mode, sizes, side)[0]
                    last, passes, applicant = None, 0, None
                    continue
            r, n, x, y = shape
            c = counts[s]
            c[r] -= n
            c[SJ] -= x
            c[BJ] -= y
            sizes[s] -= n + x + y
            last, ls, passes, applicant = shape, s, 0, None
            open_play = beatable(shape, kaopai)
            if not sizes[s]:
                out.append(s)
                if self._over(st):
                    break
                needed = passes_needed(len(out), True)
            else:
                needed = passes_needed(len(out), False)
            s = (s + 1) % 5
            while not sizes[s]:
                s = (s + 1) % 5
        st.to_act, st.last, st.last_seat, st.passes, st.applicant = s, last, ls, 0, None

    def choose(self, st: PlayState, rng: random.Random) -> tuple[Shape4 | None, bool]:
        """The rollout policy's move for ``st.to_act``: ``(shape, ask_lead)``,
        ``shape`` ``None`` for a pass.  :meth:`run` makes exactly these moves
        (drawing the same random numbers)."""
        pol = self.policy
        s, last, ls, sizes = st.to_act, st.last, st.last_seat, st.sizes
        if last is None:
            return self._lead(st.counts[s], sizes[s], rng.random() < pol.wander), False
        shape: Shape4 | None
        if not beatable(last, self._kaopai):
            shape = None
        elif st.royal[s] == st.royal[ls] and sizes[ls]:
            shape = (self._whole_hand_beat(st.counts[s], last)
                     if self._kaopai or sizes[s] == last[1] + last[2] + last[3] else None)
        else:
            shape = self._follow(st.counts[s], sizes[s], last, sizes[ls] <= pol.threat,
                                 pol.save, rng.random)
        ask = (shape is None and self._apply and st.applicant is None
               and not sizes[ls])
        return shape, ask

    def finish(self, st: PlayState, rng: random.Random, *, guard_open: bool = False,
               rebels: Sequence[int] = (), kicks: int = 0) -> tuple[int, ...]:
        """Play ``st`` to the end and settle the scores of all five seats."""
        self.run(st, rng)
        return self.scores(st, guard_open=guard_open, rebels=rebels, kicks=kicks)

    def scores(self, st: PlayState, *, guard_open: bool = False, rebels: Sequence[int] = (),
               kicks: int = 0) -> tuple[int, ...]:
        """Scores of a finished ``st`` (:func:`baohuang.engine.scoring.settle`)."""
        places: list[int | None] = [None] * 5
        for i, seat in enumerate(st.out):
            places[seat] = i + 1
        return settle(places, st.emperor, st.guard, rules=self.rules, solo=st.solo,
                      guard_open=guard_open and st.solo is None, rebels=rebels, kicks=kicks)

    # -- the greedy policy -----------------------------------------------------------
    # It only chooses: what may be played comes from :mod:`baohuang.engine.plays`.
    def _whole(self, c: list[int]) -> Shape4 | None:
        """The whole hand as one play, if it is one (and a legal one)."""
        rank = 0
        for r in range(3, 16):
            if c[r]:
                if rank:
                    return None
                rank = r
        shape = (rank, c[rank] if rank else 0, c[SJ], c[BJ])
        return shape if playable(shape, c, self.rules) else None

    def _lead(self, c: list[int], size: int, wander: bool) -> Shape4:
        """The whole hand when it is one play; else the lowest group (with
        ``wander`` the second lowest) that may be led alone, else jokers."""
        whole = self._whole(c)
        if whole is not None:
            return whole
        held_back = self._held_back
        first = 0
        for r in range(3, 16):
            if c[r] and r != held_back:
                if not first:
                    first = r
                    if not wander:
                        break
                else:
                    first = r
                    break
        if first:
            return (first, c[first], 0, 0)
        # only cards held back (憋6) and jokers: jokers first
        if c[SJ]:
            return (0, 0, c[SJ], 0)
        return (0, 0, 0, c[BJ])

    def _whole_hand_beat(self, c: list[int], last: Shape4) -> Shape4 | None:
        """Going out with the whole hand on ``last``, if it beats it."""
        whole = self._whole(c)
        if whole is not None and shape_beats(whole, last, self._kaopai):
            return whole
        return None

    def _follow(self, c: list[int], size: int, last: Shape4, urgent: bool, save: float,
                rand: Callable[[], float]) -> Shape4 | None:
        """The cheapest play that beats ``last``: going out with the whole hand;
        else as many cards of the lowest rank that will do (with as many big
        jokers as ``last`` has small ones); else a rank filled up with jokers or
        jokers alone, fewest jokers first (a big one counted three).  A play
        holding jokers or 2s is kept back with probability ``save`` unless
        ``urgent``.  What beats ``last`` comes from :meth:`answers`."""
        r1, n1, x1, y1 = last
        t = n1 + x1 + y1
        rules, kaopai = self.rules, self._kaopai
        if size == t or kaopai:
            whole = self._whole_hand_beat(c, last)
            if whole is not None:
                return whole
        if kaopai and x1 + y1:
            return self._cheapest(follow_shapes(c, last, rules), urgent, save, rand)
        if size < t:
            return None
        plain, valid = self.answers(last)
        held_back = self._held_back
        bj = c[BJ]
        if n1 and bj >= x1:
            for r in plain:
                if c[r] >= n1:
                    shape = (r, n1, 0, x1)
                    if r == held_back and not playable(shape, c, rules):
                        continue
                    if (r == TWO or x1) and not urgent and rand() < save:
                        return None
                    return shape
        # jokers must fill in: x1 big ones at least, and one more of either
        # when ranks must be filled
        sj = c[SJ]
        if bj < x1 or (n1 and sj + bj <= x1):
            return None
        options: list[Shape4] = []
        for r in range(r1 + 1, 16) if n1 else ():
            k = c[r]
            if k and k < n1:
                extra = n1 - k
                x2 = min(sj, extra)
                options.append((r, k, x2, x1 + extra - x2))
        x2 = min(sj, n1)
        options.append((0, 0, x2, x1 + n1 - x2))
        options.sort(key=_cost)
        for shape in options:
            if (shape[3] <= bj and shape in valid
                    and (shape[0] != held_back or playable(shape, c, rules))):
                return self._cheapest((shape,), urgent, save, rand)
        return None

    def answers(self, last: Shape4) -> tuple[tuple[int, ...], frozenset[Shape4]]:
        """What may be played on ``last`` (a play holding no big joker, the
        table's ``kaopai`` aside) by anyone holding the cards
        (:func:`baohuang.engine.plays.answer_shapes`; sixes under 憋6 are checked
        again by :func:`~baohuang.engine.plays.playable` on the real hand): the
        ranks ``r`` of the answers ``(r, n, 0, x)`` to ``(r1, n, x, 0)``, lowest
        first, and every answer.  Made once for each ``last`` and kept.

        >>> sim = Simulator(RuleSet())
        >>> plain, valid = sim.answers((13, 2, 1, 0))
        >>> plain                   # no jokers on 2s (不可以用2配牌)
        (14,)
        >>> (0, 0, 0, 3) in valid, (15, 2, 0, 1) in valid, (14, 1, 1, 1) in valid
        (True, False, True)
        """
        found = self._answers.get(last)
        if found is None:
            valid = frozenset((s[0], s[1], s[2], s[3]) for s in answer_shapes(last, self.rules))
            r1, n1, x1 = last[0], last[1], last[2]
            plain = tuple(r for r in range(r1 + 1, TWO + 1) if (r, n1, 0, x1) in valid)
            found = self._answers[last] = (plain, valid)
        return found

    @staticmethod
    def _cheapest(options: Sequence[Sequence[int]], urgent: bool, save: float,
                  rand: Callable[[], float]) -> Shape4 | None:
        if not options:
            return None
        best = min(options, key=_cost)
        if (best[0] == TWO or best[2] or best[3]) and not urgent and rand() < save:
            return None
        return best[0], best[1], best[2], best[3]


def _cost(shape: Sequence[int]) -> tuple[int, bool, int, int]:
    """The greedy follower's order: jokers spent (a big one counts three), a
    play of jokers alone last among equals, the lowest rank, the most cards."""
    return 3 * shape[3] + shape[2], shape[0] == 0, shape[0], -shape[1]
