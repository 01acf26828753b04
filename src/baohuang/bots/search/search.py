"""``search``: information-set search that sees only its own view.

The method is *determinized Monte Carlo with successive halving at the
root, anchored on a reference bot*.  At a decision with more than one legal
action:

1. The legal actions become *arms*.  In play, actions with the same shape
   (they differ only by which copy of the Guard card 侍卫牌 or of the called
   card they use) share one arm whose action reveals the least; when there
   are many shapes, the arms are pruned to the most natural ones (whole
   hand, whole groups, fewest jokers, lowest ranks, and pass).  The answer
   of the *anchor* bot (``heuristic`` by default) is always an arm.
2. Each round draws deals from a :class:`~.sampler.DealSampler` (hidden
   hands consistent with the view, the Guard seat drawn where unknown) and
   evaluates every surviving arm on the *same* deals and rollout seeds
   (common random numbers): the arm's move is applied and the game is played
   out by the fast :class:`~.rollout.Simulator`; the arm scores the seat's
   own final score.  After each round the worse half of the arms is dropped
   (never the anchor's).
3. The best surviving arm is chosen if it beats the anchor's arm by more
   than ``z`` standard errors of their paired score difference; otherwise
   the anchor's answer stands.  Playouts are perfect-information games
   played by a simple policy, so a small edge in them is not trusted.

Role-phase decisions (accept or abdicate 让位, 明独, 抢独, which card to call
叫侍卫, 明保/暗保, 明独/暗独, 造反, 踢) are the anchor's by default.  Searching
them (``role_search=True``) did not pay: with heuristic play around them,
searched role answers gained +0.18 points per seat (95% interval −0.12 to
+0.47) over heuristic's in 200 challenger-format deals, while taking 80 times
longer, and earlier versions went solo far too often (the greedy rebels of a
playout defend worse than real ones).  When searched, the role phase is
continued on each sampled deal by the rules engine itself (others and this
seat's own later decisions take the 托管 defaults), then the whole play
phase is rolled out; a move must also gain ``caution`` points on average
over the anchor's, because the playouts cannot see what staying hidden is
worth, and 抢独 / 明独 answers lose :data:`SOLO_BIAS` points.

Which seats' play is searched is ``play_roles``: by default the Emperor's with a
Guard, the Guard's and the rebels'.  The play of an Emperor playing alone
(独保, open or hidden; the role ``solo``) is the anchor's (add ``solo`` to
``play_roles`` to search it): in 2,000 challenger-format deals
(seed 0, 250 playouts per decision) search as the solo Emperor scored 4.3
points per game (95% interval ±2.0) below heuristic in the same seat, over
568 games, while as a rebel it gained +0.47 (±0.09); playouts, whose rebels
defend worse than real ones, overrate playing alone.

The budget is ``iterations`` playouts per decision (deterministic given the
seed and the view), or ``time_limit`` seconds when given: the search is
anytime, measured by ``clock`` (``time.perf_counter`` by default; tests
inject a clock of their own so that nothing depends on the machine) from the
moment :meth:`~SearchBot.choose` is called, the anchor's answer and the
sampler's set-up included.  Deals come from :meth:`SearchBot.sampler`
(:class:`~.sampler.DealSampler`; the ``belief`` bot of
:mod:`.belief_search` draws them from :class:`~baohuang.bots.belief.Belief`).

>>> import baohuang as bh
>>> from baohuang.bots import make_bot
>>> game = bh.Game.new(seed=5)
>>> bot = make_bot("search", seed=1)
>>> legal = game.legal_actions()
>>> bot.choose(game.view(game.to_act), legal) in legal
True
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ...engine.actions import Action, ActionKind
from ...engine.cards import GUARD_CARD, Card
from ...engine.plays import InvalidPlay, classify
from ...engine.rules import RuleSet
from ...engine.scoring import SoloKind
from ...engine.state import Stage
from ...engine.views import View
from ..base import Bot, make_bot, register, register_budget
from ..hand_eval import bot_shape, rank_counts_of
from ..hosted import hosted_action
from .rollout import PlayState, RolloutPolicy, Shape4, Simulator
from .sampler import DealSampler, SamplerError, World
from .worlds import RoleFacts, default_role_action, determinized_game, root_facts

__all__ = ["DEFAULT_ITERATIONS", "PLAY_ROLES", "SEARCHED_ROLES", "SearchBot",
           "determinized_game", "play_role"]

A = ActionKind
#: Playouts per decision of the registered ``search`` bot.
DEFAULT_ITERATIONS = 1000
#: Paired deals a move needs against the anchor's before it may replace it.
#: With fewer, the standard error of the difference is itself too noisy: the
#: expert level at 40 ms a move on a loaded machine (about one deal per
#: halving round) switched on noise and scored 0.28 points a game below
#: heuristic, its own anchor.
MIN_PAIRED = 10
#: Arms kept after pruning the legal shapes of one decision.
DEFAULT_MAX_ARMS = 12
#: Points taken off the playout mean of 抢独 and 明独 answers.  Measured on
#: 1,700 role decisions of ``shandong`` deals finished by ``heuristic``
#: players, 抢独 paid off only when playouts rated it 8 points above
#: declining, 明独 only from about 4 points (the greedy rebels of a playout
#: work together worse than real ones).
SOLO_BIAS: dict[ActionKind, float] = {ActionKind.STEAL: 7.0, ActionKind.SOLO_OPEN: 4.0}
#: The roles a seat plays in: ``solo`` is the Emperor playing alone (独保).
PLAY_ROLES = ("emperor", "guard", "rebel", "solo")
#: The roles whose play the search bot searches unless told otherwise.
SEARCHED_ROLES = frozenset({"emperor", "guard", "rebel"})


def play_role(view: View) -> str | None:
    """The role ``view``'s seat plays in, of :data:`PLAY_ROLES` (``None`` before
    it is known)."""
    if view.solo is not None and view.seat == view.emperor:
        return "solo"
    return view.role


class Deals(Protocol):
    """Where a search draws its deals from: a :class:`~.sampler.DealSampler`
    or anything else with its ``rules`` and ``sample``."""

    rules: RuleSet

    def sample(self, rng: random.Random) -> World: ...


@dataclass(slots=True)
class _Arm:
    """One candidate move: the action to return and what it does in a playout."""

    action: Action
    shape: Shape4 | None = None
    ask_lead: bool = False
    bias: float = 0.0            # subtracted from the playouts' mean (see SOLO_BIAS)
    total: float = 0.0
    n: int = 0
    values: dict[int, float] = field(default_factory=dict)   # deal number -> score

    @property
    def mean(self) -> float:
        return self.total / self.n - self.bias if self.n else -math.inf

    def add(self, deal: int, value: float) -> None:
        self.total += value
        self.n += 1
        self.values[deal] = value

    def gain_over(self, other: _Arm) -> tuple[float, float]:
        """Mean and standard error of this arm's score minus ``other``'s on
        the deals both were played on (common random numbers)."""
        diffs = [v - other.values[d] for d, v in self.values.items() if d in other.values]
        if len(diffs) < 2:
            return 0.0, math.inf
        mean = sum(diffs) / len(diffs) - self.bias + other.bias
        var = sum((x - mean) ** 2 for x in diffs) / (len(diffs) - 1)
        return mean, math.sqrt(var / len(diffs))


def _revealing(view: View) -> frozenset[Card]:
    """Cards whose play would show this seat as the hidden Guard (or hidden solo)."""
    cards: set[Card] = set()
    if view.role in ("guard", "emperor"):
        cards.add(GUARD_CARD)
        if view.called is not None:
            cards.add(view.called)
    return frozenset(cards)


@register("search")
class SearchBot:
    """Determinized Monte Carlo search over the legal actions (see module doc).

    ``iterations``: playouts per decision; ``time_limit``: seconds per
    decision instead (not reproducible); ``max_arms``: how many distinct
    moves are searched at most.  ``anchor``: the registered bot whose answer
    is always searched and kept unless another move beats it by ``z``
    standard errors of the paired difference (and, in the role phase, by
    ``caution`` points as well); with ``None`` play is not anchored and role
    answers are measured against the 托管 default.  ``role_search``: search
    role-phase decisions too (by default they are the anchor's, or 托管's
    without an anchor).  ``play_roles``: the roles (of
    :data:`PLAY_ROLES`) whose play is searched; in the others' the anchor's
    answer stands (by default :data:`SEARCHED_ROLES`: every role but ``solo``,
    the Emperor playing alone 独保; see the module doc).  ``stop``: end the
    search early, keeping the anchor's answer, when after a halving round no
    arm's gain over it is above ``-stop`` standard errors (``None``: never).
    ``min_paired``: the deals a move must have been compared with the
    anchor's on before it may replace it.
    """

    name = "search"

    def __init__(self, seed: int = 0, *, iterations: int = DEFAULT_ITERATIONS,
                 time_limit: float | None = None, max_arms: int = DEFAULT_MAX_ARMS,
                 anchor: str | None = "heuristic", z: float = 1.0, caution: float = 1.0,
                 role_search: bool = False,
                 play_roles: Iterable[str] = SEARCHED_ROLES,
                 stop: float | None = None, min_paired: int = MIN_PAIRED,
                 policy: RolloutPolicy | None = None,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        if iterations < 1:
            raise ValueError(f"iterations must be at least 1, not {iterations}")
        if time_limit is not None and time_limit <= 0:
            raise ValueError(f"time_limit must be positive, not {time_limit}")
        if max_arms < 2:
            raise ValueError(f"max_arms must be at least 2, not {max_arms}")
        self.seed = seed
        self.iterations = iterations
        self.time_limit = time_limit
        self.max_arms = max_arms
        self.caution = caution
        self.role_search = role_search
        self.play_roles = frozenset(play_roles)
        if not self.play_roles <= set(PLAY_ROLES):
            unknown = ", ".join(sorted(self.play_roles - set(PLAY_ROLES)))
            raise ValueError(f"unknown role {unknown} in play_roles "
                             f"(roles: {', '.join(PLAY_ROLES)})")
        self.stop = stop
        self.min_paired = min_paired
        self.z = z
        self.policy = policy or RolloutPolicy()
        self.clock = clock
        self._start = 0.0
        if anchor == self.name:
            raise ValueError("the search bot cannot anchor on itself")
        self._anchor: Bot | None = None if anchor is None else make_bot(anchor, seed)
        self._sims: dict[RuleSet, Simulator] = {}
        #: Playouts made by the last :meth:`choose` call (for benchmarks).
        self.last_playouts = 0
        #: ``(action, mean score, playouts)`` of every arm of the last search.
        self.last_arms: list[tuple[Action, float, int]] = []

    # -- the Bot protocol ------------------------------------------------------
    def choose(self, view: View, legal: Sequence[Action]) -> Action:
        if not legal:
            raise ValueError("no legal action to choose from")
        self.last_playouts = 0
        self.last_arms = []
        self._start = self.clock()
        if len(legal) == 1 or view.seat is None:
            return legal[0]
        if not self.searches(view):
            if self._anchor is not None:
                return self._anchor.choose(view, legal)
            return hosted_action(view, legal)
        try:
            sampler = self.sampler(view)
        except SamplerError:
            return hosted_action(view, legal)
        rules = sampler.rules
        sim = self._sims.get(rules)
        if sim is None:
            sim = self._sims[rules] = Simulator(rules, self.policy)
        rng = random.Random(f"search/{self.seed}/{view.seat}/{view.deal_no}/"
                            f"{len(view.events)}/{' '.join(map(str, view.hand))}")
        anchor = self._anchor.choose(view, legal) if self._anchor is not None else None
        if view.stage is Stage.PLAY:
            return self._choose_play(view, legal, anchor, sampler, sim, rng)
        return self._choose_role(view, legal, anchor, sampler, sim, rng)

    def searches(self, view: View) -> bool:
        """Whether this decision is searched: a role-phase answer with ``role_search``,
        a play by a seat whose role is one of ``play_roles``."""
        if view.stage is Stage.PLAY:
            return play_role(view) in self.play_roles
        return self.role_search

    def sampler(self, view: View) -> Deals:
        """The deals this search draws for ``view`` (consistent with it)."""
        return DealSampler(view)

    # -- play phase ------------------------------------------------------------------
    def _choose_play(self, view: View, legal: Sequence[Action], anchor: Action | None,
                     sampler: Deals, sim: Simulator, rng: random.Random) -> Action:
        if anchor is not None and anchor.kind is A.PLAY and len(anchor.cards) == len(view.hand):
            return anchor       # going out: nothing to weigh
        arms = self._play_arms(view, legal, sampler.rules, anchor)
        if len(arms) == 1:
            return arms[0].action
        keep = next((a for a in arms if a.action == anchor), None)
        if keep is None and anchor is not None and anchor.kind is A.PLAY:
            key = bot_shape(classify(anchor.cards, sampler.rules))
            keep = next((a for a in arms if a.shape == key and not a.ask_lead), None)
        me = view.seat
        assert me is not None
        base = root_facts(view, sampler.rules)
        stake = (view.guard_open, view.rebels, view.kicks)
        roll = random.Random()

        def make_root(world: World) -> PlayState | None:
            if view.emperor is None or world.guard is None:
                return None
            counts = [world.counts(s) for s in range(5)]
            return sim.state(counts, view.emperor, world.guard, world.solo, to_act=me, **base)

        def evaluate(arm: _Arm, root: Any, seed: int) -> float:
            st: PlayState = root.copy()
            over = sim.play(st, arm.shape, ask_lead=arm.ask_lead)
            roll.seed(seed)
            if not over:
                sim.run(st, roll)
            return sim.scores(st, guard_open=stake[0], rebels=stake[1], kicks=stake[2])[me]

        best = self._halving(arms, keep, make_root, evaluate, sampler, rng)
        return self._verdict(best, keep, 0.0).action

    def _play_arms(self, view: View, legal: Sequence[Action], rules: RuleSet,
                   anchor: Action | None) -> list[_Arm]:
        special = _revealing(view)
        by_shape: dict[Shape4 | None, _Arm] = {}
        reveal: dict[Shape4 | None, int] = {}
        extra: list[_Arm] = []
        for action in legal:
            if action.kind is A.PLAY:
                try:
                    shape = classify(action.cards, rules)
                except InvalidPlay:
                    continue
                key: Shape4 | None = bot_shape(shape)
                shows = sum(1 for c in action.cards if c in special)
                if (key not in by_shape or shows < reveal[key]
                        or (shows == reveal[key] and action == anchor)):
                    by_shape[key], reveal[key] = _Arm(action, key), shows
            elif action.kind is A.PASS:
                by_shape[None] = _Arm(action, None)
                reveal[None] = 0
            elif action.kind is A.ASK_LEAD:
                extra.append(_Arm(action, None, ask_lead=True))
        arms = list(by_shape.values())
        if len(arms) + len(extra) > self.max_arms:
            counts = rank_counts_of(view.hand)
            size = len(view.hand)
            arms.sort(key=lambda a: (a.action != anchor, _prior(a.shape, counts, size)))
            arms = arms[:self.max_arms - len(extra)]
        return arms + extra if arms or extra else [_Arm(legal[0])]

    # -- role phase --------------------------------------------------------------------
    def _choose_role(self, view: View, legal: Sequence[Action], anchor: Action | None,
                     sampler: Deals, sim: Simulator, rng: random.Random) -> Action:
        me = view.seat
        assert me is not None
        if anchor is None:
            anchor = hosted_action(view, legal)     # role answers need a reference
        arms = [_Arm(a, bias=SOLO_BIAS.get(a.kind, 0.0)) for a in legal]
        if len(arms) > self.max_arms:
            arms.sort(key=lambda a: (a.action != anchor, str(a.action)))
            arms = arms[:self.max_arms]
        keep = next((a for a in arms if a.action == anchor), None)
        facts = RoleFacts.read(view)
        rules = sampler.rules
        roll = random.Random()

        def make_root(world: World) -> Any:
            return world

        def evaluate(arm: _Arm, root: Any, seed: int) -> float:
            world: World = root
            game = facts.game(world, rules, seed)
            if game is None or arm.action not in game.legal_actions():
                return 0.0
            game.apply(arm.action)
            deal_no = game.deal_no
            while game.stage not in (Stage.PLAY, Stage.OVER) and game.deal_no == deal_no:
                options = game.legal_actions()
                if not options:
                    return 0.0      # a deal the rules could not have reached
                game.apply(default_role_action(game, options))
            if game.stage is not Stage.PLAY or game.deal_no != deal_no:
                return 0.0          # a redeal: a fresh deal is worth nothing either way
            e, g = game.emperor, game.guard
            assert e is not None and g is not None
            solo: SoloKind | None = "open" if game.solo == "open" else (
                "hidden" if game.solo else None)
            play = sim.opening([rank_counts_of(game.hand(s)) for s in range(5)], e, g, solo)
            roll.seed(seed)
            public = game.view(None)
            return sim.finish(play, roll, guard_open=public.guard_open, rebels=public.rebels,
                              kicks=public.kicks)[me]

        best = self._halving(arms, keep, make_root, evaluate, sampler, rng)
        return self._verdict(best, keep, self.caution).action

    def _verdict(self, best: _Arm, keep: _Arm | None, margin: float) -> _Arm:
        """``best`` when it beats the anchor's arm ``keep`` clearly enough, on
        at least ``min_paired`` deals both were played on."""
        if keep is None or best is keep:
            return best
        if sum(1 for d in best.values if d in keep.values) < self.min_paired:
            return keep
        gain, se = best.gain_over(keep)
        return best if gain > margin and gain > self.z * se else keep

    # -- the root bandit -------------------------------------------------------------------
    def _halving(self, arms: list[_Arm], keep: _Arm | None, make_root: Callable[[World], Any],
                 evaluate: Callable[[_Arm, Any, int], float], sampler: Deals,
                 rng: random.Random) -> _Arm:
        """Successive halving over ``arms`` with common deals and rollout seeds;
        ``keep`` is never dropped.  Returns the best surviving arm."""
        alive = list(arms)
        rounds = max(1, math.ceil(math.log2(len(alive))))
        start = self._start
        playouts = deal = 0
        for rnd in range(rounds):
            if self.time_limit is None:
                worlds = max(1, self.iterations // (rounds * len(alive)))
                deadline = math.inf
            else:
                worlds = 10 ** 9
                deadline = start + self.time_limit * (rnd + 1) / rounds
            done = 0
            misses = 0
            # a deal is begun only when it should end before the deadline (at
            # the pace of this round's deals so far), so the budget holds
            began = now = self.clock() if self.time_limit is not None else 0.0
            while done < worlds and (done == 0 or now + (now - began) / done < deadline):
                world = sampler.sample(rng)
                seed = rng.getrandbits(32)
                root = make_root(world)
                if root is None:
                    misses += 1
                    if misses > 50:
                        break
                    continue
                for arm in alive:
                    arm.add(deal, evaluate(arm, root, seed))
                playouts += len(alive)
                done += 1
                deal += 1
                if self.time_limit is not None:
                    now = self.clock()
            alive.sort(key=lambda a: a.mean, reverse=True)
            if rnd < rounds - 1 and self._hopeless(alive, keep):
                alive = [keep] if keep is not None else alive
                break
            if rnd < rounds - 1:
                survivors = alive[:max(1, (len(alive) + 1) // 2)]
                if keep is not None and keep not in survivors:
                    survivors.append(keep)
                alive = survivors
        self.last_playouts = playouts
        self.last_arms = [(a.action, a.mean, a.n) for a in arms]
        return alive[0]

    def _hopeless(self, alive: list[_Arm], keep: _Arm | None) -> bool:
        """No arm is within ``stop`` standard errors of beating the anchor's."""
        if self.stop is None or keep is None:
            return False
        for arm in alive:
            if arm is keep:
                continue
            gain, se = arm.gain_over(keep)
            if gain + self.stop * se > 0:
                return False
        return True

    def __repr__(self) -> str:
        budget = (f"time_limit={self.time_limit}" if self.time_limit is not None
                  else f"iterations={self.iterations}")
        roles = ("" if self.play_roles == SEARCHED_ROLES
                 else f" play_roles={','.join(r for r in PLAY_ROLES if r in self.play_roles)}")
        return f"<{type(self).__name__} seed={self.seed} {budget}{roles}>"


def _prior(shape: Shape4 | None, counts: list[int], size: int) -> tuple[int, int, int, int]:
    """Which shapes to keep when there are too many: pass and the whole hand
    first, then whole groups, then fewest jokers, then low ranks."""
    if shape is None:
        return (0, 0, 0, 0)
    r, n, x, y = shape
    if n + x + y == size:
        return (0, 0, 0, 1)
    breaks = 1 if n and n != counts[r] else 0
    return (1, x + 2 * y, breaks, r)


@register_budget("search")
def search_with_budget(seed: int, iterations: int) -> SearchBot:
    """``search-N``: the search bot with ``N`` playouts per decision.

    >>> from baohuang.bots import make_bot
    >>> make_bot("search-250", seed=3)
    <SearchBot seed=3 iterations=250>
    """
    return SearchBot(seed, iterations=iterations)
