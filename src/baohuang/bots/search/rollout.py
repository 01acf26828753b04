"""A fast play-phase simulator on rank counts, for search playouts.

No :class:`~baohuang.engine.actions.Action` objects and no events: each seat is a
list of 18 rank counts (indices 3..17, 16 = SJ, 17 = BJ), a play is a shape
tuple ``(rank, n, sj, bj)``.  The simulator follows the play rules of
docs/rules.md §3 and §7 exactly as :mod:`baohuang.engine.playphase` does — rounds, soft
passes, 接风 (``lead_after_out``: teammate, next, apply), the early end of a
game, 憋6 (``hold_sixes``), 烤牌 (``kaopai``), 不可以用2配牌
(``jokers_with_twos``) — and settles the result with
:func:`baohuang.engine.scoring.settle`.  One approximation: the 特画
(``called_card_high``) is counted as a big joker
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

from ...engine.plays import Shape, follow_shapes, shape_beats
from ...engine.rules import LeadAfterOut, RuleSet, Scoring
from ...engine.scoring import SoloKind, decided, settle

__all__ = ["PlayState", "RolloutPolicy", "Shape4", "Simulator"]

#: A play as ``(rank, n, sj, bj)`` — the fields of :class:`baohuang.engine.plays.Shape`.
Shape4 = tuple[int, int, int, int]

SJ, BJ, TWO, SIX = 16, 17, 15, 6
_TEAMS, _OPEN_SOLO, _HIDDEN_SOLO, _PLACEMENT, _WURENJU = 0, 1, 2, 3, 4


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

    __slots__ = ("_end", "_hold", "_jw2", "_kaopai", "_lead_mode", "policy", "rules")

    def __init__(self, rules: RuleSet, policy: RolloutPolicy | None = None) -> None:
        self.rules = rules
        self.policy = policy or RolloutPolicy()
        self._kaopai = rules.kaopai
        self._hold = rules.hold_sixes
        self._jw2 = rules.jokers_with_twos
        self._lead_mode = {LeadAfterOut.TEAMMATE: 0, LeadAfterOut.NEXT: 1,
                           LeadAfterOut.APPLY: 2}[rules.lead_after_out]
        self._end = {Scoring.PLACEMENT: _PLACEMENT, Scoring.WURENJU: _WURENJU}.get(
            rules.scoring, _TEAMS)

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
        needed = 5 - len(st.out) - (0 if gone else 1)
        if st.passes < needed:
            st.to_act = self._next_in(st, s)
            return
        if not gone:
            leader = last_seat
        elif st.applicant is not None:
            leader = st.applicant
        else:
            leader = self._lead_after_out(st, last_seat)
        st.last, st.passes, st.applicant, st.to_act = None, 0, None, leader

    @staticmethod
    def _next_in(st: PlayState, s: int) -> int:
        sizes = st.sizes
        for step in (1, 2, 3, 4, 5):
            t = (s + step) % 5
            if sizes[t]:
                return t
        return s

    def _lead_after_out(self, st: PlayState, out_seat: int) -> int:
        if self._lead_mode == 0:
            side = st.royal[out_seat]
            for step in (1, 2, 3, 4):
                t = (out_seat + step) % 5
                if st.sizes[t] and st.royal[t] == side:
                    return t
        return self._next_in(st, out_seat)

    def _over(self, st: PlayState) -> bool:
        out = st.out
        if self._end == _PLACEMENT:
            return len(out) >= 4
        if self._end == _WURENJU:
            return decided(out, st.emperor, st.guard, st.solo is not None)
        if st.solo == "open":
            return len(out) >= 1
        if st.solo == "hidden":
            return st.emperor in out or len(out) >= 2
        royal = st.royal
        royal_in = sum(1 for s in range(5) if royal[s] and st.sizes[s])
        return royal_in == 0 or royal_in == 5 - len(out)

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
        kaopai, lead_mode = self._kaopai, self._lead_mode
        lead, follow, whole_beat = self._lead, self._follow, self._whole_hand_beat
        s, last, ls = st.to_act, st.last, st.last_seat
        passes, applicant = st.passes, st.applicant
        shape: Shape4 | None
        while True:
            if last is None:
                shape = lead(counts[s], sizes[s], rand() < wander)
            else:
                size = sizes[s]
                if last[3] and not kaopai:
                    shape = None                      # nothing beats a big joker
                elif royal[s] == royal[ls] and sizes[ls]:
                    # never beat a partner who is still in, unless going out
                    shape = (whole_beat(counts[s], size, last)
                             if kaopai or size == last[1] + last[2] + last[3] else None)
                elif not kaopai and size < last[1] + last[2] + last[3]:
                    shape = None
                else:
                    shape = follow(counts[s], size, last, sizes[ls] <= threat, save, rand)
                if shape is None:                     # pass
                    gone = not sizes[ls]
                    if lead_mode == 2 and applicant is None and gone:
                        applicant = s                 # 申请接风
                    passes += 1
                    if passes < 5 - len(out) - (0 if gone else 1):
                        s = (s + 1) % 5
                        while not sizes[s]:
                            s = (s + 1) % 5
                        continue
                    if not gone:
                        s = ls
                    elif applicant is not None:
                        s = applicant
                    else:
                        s = self._lead_after_out(st, ls)
                    last, passes, applicant = None, 0, None
                    continue
            r, n, x, y = shape
            c = counts[s]
            c[r] -= n
            c[SJ] -= x
            c[BJ] -= y
            sizes[s] -= n + x + y
            last, ls, passes, applicant = shape, s, 0, None
            if not sizes[s]:
                out.append(s)
                if self._over(st):
                    break
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
        size = sizes[s]
        t = last[1] + last[2] + last[3]
        shape: Shape4 | None
        if last[3] and not self._kaopai:
            shape = None
        elif st.royal[s] == st.royal[ls] and sizes[ls]:
            shape = (self._whole_hand_beat(st.counts[s], size, last)
                     if self._kaopai or size == t else None)
        elif not self._kaopai and size < t:
            shape = None
        else:
            shape = self._follow(st.counts[s], size, last, sizes[ls] <= pol.threat, pol.save,
                                 rng.random)
        ask = (shape is None and self._lead_mode == 2 and st.applicant is None
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
    def _whole(self, c: list[int], size: int) -> Shape4 | None:
        """The whole hand as one play, if it is one."""
        rank = 0
        for r in range(3, 16):
            if c[r]:
                if rank:
                    return None
                rank = r
        x, y = c[SJ], c[BJ]
        if rank == TWO and (x or y) and not self._jw2:
            return None
        return (rank, c[rank] if rank else 0, x, y)

    def _lead(self, c: list[int], size: int, wander: bool) -> Shape4:
        whole = self._whole(c, size)
        if whole is not None:
            return whole
        hold = self._hold
        first = 0
        for r in range(3, 16):
            if c[r] and not (hold and r == SIX):
                if not first:
                    first = r
                    if not wander:
                        break
                else:
                    first = r
                    break
        if first:
            return (first, c[first], 0, 0)
        # only sixes (held back) and jokers: jokers first
        if c[SJ]:
            return (0, 0, c[SJ], 0)
        return (0, 0, 0, c[BJ])

    def _beats(self, new: Shape4, old: Shape4) -> bool:
        r2, n2, x2, y2 = new
        r1, n1, x1, y1 = old
        if self._kaopai and x1 + y1:
            return shape_beats(Shape(*new), Shape(*old), True)
        if y1 or n2 + x2 + y2 != n1 + x1 + y1 or y2 < x1:
            return False
        return not (n2 and r2 <= r1)

    def _whole_hand_beat(self, c: list[int], size: int, last: Shape4) -> Shape4 | None:
        whole = self._whole(c, size)
        if whole is not None and self._beats(whole, last):
            return whole
        return None

    def _follow(self, c: list[int], size: int, last: Shape4, urgent: bool, save: float,
                rand: Callable[[], float]) -> Shape4 | None:
        r1, n1, x1, y1 = last
        t = n1 + x1 + y1
        if size < t:
            return None
        if size == t:
            whole = self._whole_hand_beat(c, size, last)
            if whole is not None:
                return whole
        if self._kaopai and x1 + y1:
            return self._follow_kaopai(c, last, urgent, save, rand)
        bj = c[BJ]
        if bj < x1:
            return None
        hold = self._hold
        if n1:
            for r in range(r1 + 1, 16):
                if c[r] >= n1:
                    if hold and r == SIX and t != size:
                        continue
                    if x1 and r == TWO and not self._jw2:
                        continue
                    if (r == TWO or x1) and not urgent and rand() < save:
                        return None
                    return (r, n1, 0, x1)
        # jokers must fill in
        sj = c[SJ]
        best: Shape4 | None = None
        best_cost = 99
        if n1:
            for r in range(r1 + 1, 16):
                k = c[r]
                if not k or k >= n1:
                    continue
                if r == TWO and not self._jw2:
                    continue
                if hold and r == SIX and t != size:
                    continue
                extra = n1 - k
                x2 = min(sj, extra)
                y2 = x1 + extra - x2
                if y2 > bj:
                    continue
                cost = 3 * y2 + x2
                if cost < best_cost:
                    best, best_cost = (r, k, x2, y2), cost
        extra = n1
        x2 = min(sj, extra)
        y2 = x1 + extra - x2
        if y2 <= bj and 3 * y2 + x2 < best_cost:
            best = (0, 0, x2, y2)
        if best is None:
            return None
        if not urgent and rand() < save:
            return None
        return best

    def _follow_kaopai(self, c: list[int], last: Shape4, urgent: bool, save: float,
                       rand: Callable[[], float]) -> Shape4 | None:
        options = follow_shapes(c, Shape(*last), self.rules)
        if not options:
            return None
        best = min(options, key=lambda s: (3 * s.bj + s.sj, s.rank, -s.n))
        if not urgent and rand() < save:
            return None
        return (best.rank, best.n, best.sj, best.bj)
