"""复盘 (game review): every decision of one seat in a finished game, weighed.

For each decision the seat made (role phase and play) with more than one legal
answer, :func:`review_decision` estimates the **expected score of each legal
choice from that seat's view at that moment**: deals of the hidden cards are
drawn from the seat's :class:`~baohuang.bots.belief.Belief` (the Guard placement
from its posterior, the hands by sampling-importance-resampling against the
others' passes — the deals the ``belief`` search bot plays out), each choice is
applied on every deal and the game played out by the fast
:class:`~baohuang.bots.search.rollout.Simulator` (common deals and rollout seeds
for all choices, so their differences are measured paired).  In the role phase
the rest of the role phase on each deal takes the 托管 defaults, as in
:class:`~baohuang.bots.search.search.SearchBot`'s role search, and 抢独 / 明独
carry its measured :data:`~baohuang.bots.search.search.SOLO_BIAS`.  Choices are
grouped as the search bot groups them: plays of the same shape are one choice
(the copy of the Guard card or called card played does not change a playout),
and with many shapes only :attr:`ReviewSettings.max_choices` are weighed — the
ones the search would keep, always including the one made and ``heuristic``'s.

A decision's **loss** is the best choice's expected score minus the one made
(paired mean on the same deals, with its standard error).  Marks, with
:data:`THRESHOLDS` (points of the game's score lost, and the loss must be more
than :data:`MARK_Z` standard errors, so that noise is not marked):

============  ===============  ============
mark          zh               points lost
============  ===============  ============
inaccuracy    不精确           ≥ 1
mistake       失误             ≥ 2.5
blunder       大错             ≥ 5
============  ===============  ============

(A game's stake is 3 points a seat in the usual presets, so a blunder is close
to turning a won game into a lost one.)

The **full-information answer** (明牌) of each decision is the same playouts on
the *true* deal — every hand open — with :attr:`ReviewSettings.playouts` rollout
seeds spread over the choices: "with every hand open, the best play was …".  It
is an answer no player could have known, and labelled so.

The review is deterministic: its deals are seeded from the game record (its seed,
the seat, the action's number) and :attr:`ReviewSettings.seed`.  Its cost is
bounded by :attr:`ReviewSettings.playouts` per decision and by
:attr:`ReviewSettings.cpu_seconds` of CPU (``time.process_time``) for the whole
review; a review that reaches that budget stops there and says so
(:attr:`Review.partial`), the only case in which two runs may differ.

Measured (``bench/review.py``, ``bench/review.md``): at the default budget a seat's
whole game takes 25 s of CPU on average (16 decisions; the slowest of ten, 32 s); the
expert level's answer was the review's best choice at 56% of 84 decisions, in its top
three at 88%, and lost 0.47 points by the review's estimate.

>>> import baohuang as bh
>>> from baohuang.bots import make_bot
>>> game = bh.Game.new(seed=4)
>>> bots = [make_bot("heuristic", seed=s) for s in range(5)]
>>> while not game.is_over:
...     game.apply(bots[game.to_act].choose(game.view(game.to_act), game.legal_actions()))
>>> review = review_record(game.record(), 0, ReviewSettings(playouts=24))
>>> review.seat, review.final_score == game.result.scores[0], review.partial
(0, True, False)
>>> all(d.best.expected >= d.made.expected for d in review.decisions)
True
"""

from __future__ import annotations

import copy
import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from ..engine.actions import Action, ActionKind
from ..engine.cards import GUARD_CARD, Card
from ..engine.game import Game
from ..engine.plays import InvalidPlay, classify
from ..engine.rules import RuleSet
from ..engine.scoring import SoloKind
from ..engine.state import Stage
from ..engine.views import View
from .belief import Belief
from .hand_eval import bot_shape, rank_counts_of
from .heuristic import HeuristicBot
from .search.rollout import PlayState, Shape4, Simulator
from .search.sampler import DealSampler, SamplerError, World
from .search.search import SOLO_BIAS
from .search.worlds import RoleFacts, default_role_action, root_facts

__all__ = ["DEFAULT_CPU_SECONDS", "DEFAULT_PLAYOUTS", "MARK_Z", "THRESHOLDS", "ChoiceValue",
           "Decision", "Mark", "Review", "ReviewSettings", "decision_points", "decisions_of",
           "mark_of", "record_salt", "review_decision", "review_record", "review_step",
           "start_review"]

A = ActionKind
Mark = Literal["inaccuracy", "mistake", "blunder"]
#: Points of expected score lost from which a decision is marked, mildest first.
THRESHOLDS: Final[tuple[tuple[Mark, float], ...]] = (
    ("inaccuracy", 1.0), ("mistake", 2.5), ("blunder", 5.0))
#: A loss is marked only when it is more than this many standard errors.
MARK_Z: Final = 2.0
#: Playouts per decision (spread over its choices) of the default review.
DEFAULT_PLAYOUTS: Final = 4000
#: CPU seconds (``time.process_time``) a whole review may take by default.
DEFAULT_CPU_SECONDS: Final = 90.0
#: Deals drawn per Guard placement to weigh the placements (as the belief bot).
BELIEF_SAMPLES: Final = 12


@dataclass(frozen=True, slots=True)
class ReviewSettings:
    """How much a review may spend: ``playouts`` per decision (split over its
    choices: each choice is played out on ``playouts // choices`` deals, at least
    :attr:`min_deals`), ``max_choices`` weighed at most, ``cpu_seconds`` for the
    whole review; ``seed`` varies the deals drawn."""

    playouts: int = DEFAULT_PLAYOUTS
    max_choices: int = 12
    min_deals: int = 8
    cpu_seconds: float = DEFAULT_CPU_SECONDS
    seed: int = 0

    def __post_init__(self) -> None:
        if self.playouts < 1:
            raise ValueError(f"playouts must be at least 1, not {self.playouts}")
        if self.max_choices < 2:
            raise ValueError(f"max_choices must be at least 2, not {self.max_choices}")
        if self.min_deals < 2:
            raise ValueError(f"min_deals must be at least 2, not {self.min_deals}")
        if not self.cpu_seconds > 0:
            raise ValueError(f"cpu_seconds must be positive, not {self.cpu_seconds}")

    def to_dict(self) -> dict[str, Any]:
        return {"playouts": self.playouts, "max_choices": self.max_choices,
                "min_deals": self.min_deals, "cpu_seconds": self.cpu_seconds,
                "seed": self.seed}


@dataclass(frozen=True, slots=True)
class ChoiceValue:
    """One choice of a decision: its ``action``, its ``expected`` score from the
    seat's view with the ``error`` (standard error) of that mean over ``deals``,
    its ``loss`` against the best choice (paired, with ``loss_error``), and its
    expected score with every hand open (``open_expected``)."""

    action: Action
    expected: float
    error: float
    deals: int
    loss: float = 0.0
    loss_error: float = 0.0
    open_expected: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action.to_dict(), "expected": round(self.expected, 3),
                "error": round(self.error, 3), "deals": self.deals,
                "loss": round(self.loss, 3), "loss_error": round(self.loss_error, 3),
                "open_expected": None if self.open_expected is None
                else round(self.open_expected, 3)}


@dataclass(frozen=True, slots=True)
class Decision:
    """One reviewed decision: the action's number in the record (``index``), the
    stage, the ``choices`` best first, the one ``made`` and the ``best``, the
    ``mark`` (or ``None``) and the best choice with every hand open."""

    index: int
    stage: Stage
    choices: tuple[ChoiceValue, ...]
    made: ChoiceValue
    mark: Mark | None
    open_best: ChoiceValue | None

    @property
    def best(self) -> ChoiceValue:
        return self.choices[0]

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "stage": self.stage.value,
                "made": self.made.to_dict(), "best": self.best.to_dict(),
                "loss": round(self.made.loss, 3), "loss_error": round(self.made.loss_error, 3),
                "mark": self.mark,
                "open_best": None if self.open_best is None else self.open_best.to_dict(),
                "choices": [c.to_dict() for c in self.choices]}


@dataclass(slots=True)
class Review:
    """The review of one seat's game: its decisions, the seat's expected score
    after each (``series``: the choice made, the best choice), its final score, the
    CPU seconds spent and whether the budget cut it short (``partial``)."""

    seat: int
    settings: ReviewSettings
    decisions: list[Decision] = field(default_factory=list)
    final_score: int | None = None
    cpu_seconds: float = 0.0
    partial: bool = False
    total: int = 0

    def add(self, decision: Decision | None, cpu_seconds: float) -> None:
        """One step's result (``None``: a decision that could not be weighed)."""
        if decision is not None:
            self.decisions.append(decision)
        self.cpu_seconds += cpu_seconds

    def series(self) -> list[dict[str, Any]]:
        return [{"index": d.index, "expected": round(d.made.expected, 3),
                 "best": round(d.best.expected, 3)} for d in self.decisions]

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {name: 0 for name, _ in THRESHOLDS}
        for d in self.decisions:
            if d.mark is not None:
                out[d.mark] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "settings": self.settings.to_dict(),
                "thresholds": {name: points for name, points in THRESHOLDS},
                "mark_z": MARK_Z, "final_score": self.final_score,
                "cpu_seconds": round(self.cpu_seconds, 2), "partial": self.partial,
                "reviewed": len(self.decisions), "total": self.total,
                "marks": self.counts(), "series": self.series(),
                "decisions": [d.to_dict() for d in self.decisions]}


def mark_of(loss: float, loss_error: float) -> Mark | None:
    """The mark of a decision that lost ``loss`` points (standard error
    ``loss_error``): the worst threshold of :data:`THRESHOLDS` reached, when the
    loss is more than :data:`MARK_Z` standard errors."""
    if loss <= MARK_Z * loss_error:
        return None
    found: Mark | None = None
    for name, points in THRESHOLDS:
        if loss >= points:
            found = name
    return found


# -- choices -------------------------------------------------------------------------------
@dataclass(slots=True)
class _Choice:
    action: Action
    shape: Shape4 | None = None
    ask_lead: bool = False
    bias: float = 0.0
    values: list[float] = field(default_factory=list)
    open_values: list[float] = field(default_factory=list)


def _revealing(view: View) -> frozenset[Card]:
    cards: set[Card] = set()
    if view.role in ("guard", "emperor"):
        cards.add(GUARD_CARD)
        if view.called is not None:
            cards.add(view.called)
    return frozenset(cards)


def _prior(shape: Shape4 | None, counts: list[int], size: int) -> tuple[int, int, int, int]:
    """Which shapes to keep when there are too many (as the search bot): pass and
    the whole hand first, then whole groups, then fewest jokers, then low ranks."""
    if shape is None:
        return (0, 0, 0, 0)
    r, n, x, y = shape
    if n + x + y == size:
        return (0, 0, 0, 1)
    breaks = 1 if n and n != counts[r] else 0
    return (1, x + 2 * y, breaks, r)


def _play_choices(view: View, legal: Sequence[Action], rules: RuleSet, made: Action,
                  anchor: Action, limit: int) -> tuple[list[_Choice], _Choice]:
    """The play-phase choices (one per shape) and the one ``made`` falls in."""
    special = _revealing(view)
    by_shape: dict[Shape4 | None, _Choice] = {}
    reveal: dict[Shape4 | None, int] = {}
    extra: list[_Choice] = []
    made_key: Shape4 | str | None = "none"
    anchor_key: Shape4 | str | None = "none"
    for action in legal:
        if action.kind is A.PLAY:
            try:
                key: Shape4 | None = bot_shape(classify(action.cards, rules))
            except InvalidPlay:
                continue
            shows = sum(1 for c in action.cards if c in special)
            if action == made:
                made_key = key
            if action == anchor:
                anchor_key = key
            if (key not in by_shape or action == made
                    or (by_shape[key].action != made and shows < reveal[key])):
                by_shape[key], reveal[key] = _Choice(action, key), shows
        elif action.kind is A.PASS:
            by_shape[None] = _Choice(action, None)
            reveal[None] = 0
            if action == made:
                made_key = None
            if action == anchor:
                anchor_key = None
        elif action.kind is A.ASK_LEAD:
            extra.append(_Choice(action, None, ask_lead=True))
    choices = list(by_shape.values())
    if len(choices) + len(extra) > limit:
        counts = rank_counts_of(view.hand)
        size = len(view.hand)
        keep = {k for k in (made_key, anchor_key) if k != "none"}
        choices.sort(key=lambda c: (c.shape not in keep, _prior(c.shape, counts, size)))
        choices = choices[:max(2, limit - len(extra))]
    choices += extra
    chosen = next((c for c in choices if c.action == made), None)
    if chosen is None:
        chosen = next(c for c in choices if c.shape == made_key and not c.ask_lead)
    return choices, chosen


def _role_choices(legal: Sequence[Action], made: Action, anchor: Action,
                  limit: int) -> tuple[list[_Choice], _Choice]:
    choices = [_Choice(a, bias=SOLO_BIAS.get(a.kind, 0.0)) for a in legal]
    if len(choices) > limit:
        choices.sort(key=lambda c: (c.action not in (made, anchor), str(c.action)))
        choices = choices[:limit]
    return choices, next(c for c in choices if c.action == made)


# -- playouts -----------------------------------------------------------------------------
def _solo_kind(solo: str | None) -> SoloKind | None:
    return None if solo is None else ("open" if solo == "open" else "hidden")


def _finish_role_game(game: Game, action: Action, sim: Simulator, seed: int,
                      me: int) -> float:
    """``action`` applied to a role-phase ``game``, the rest of the role phase by the
    托管 defaults, the play phase by the simulator: ``me``'s score (0 for a redeal,
    as the search bot counts it)."""
    if action not in game.legal_actions():
        return 0.0
    game.apply(action)
    deal_no = game.deal_no
    while game.stage not in (Stage.PLAY, Stage.OVER) and game.deal_no == deal_no:
        options = game.legal_actions()
        if not options:
            return 0.0
        game.apply(default_role_action(game, options))
    if game.stage is not Stage.PLAY or game.deal_no != deal_no:
        return 0.0
    e, g = game.emperor, game.guard
    assert e is not None and g is not None
    play = sim.opening([rank_counts_of(game.hand(s)) for s in range(5)], e, g,
                       _solo_kind(game.solo))
    public = game.view(None)
    return float(sim.finish(play, random.Random(seed), guard_open=public.guard_open,
                            rebels=public.rebels, kicks=public.kicks)[me])


def _play_value(root: PlayState, choice: _Choice, sim: Simulator, seed: int, me: int,
                stake: tuple[bool, tuple[int, ...], int]) -> float:
    st = root.copy()
    over = sim.play(st, choice.shape, ask_lead=choice.ask_lead)
    if not over:
        sim.run(st, random.Random(seed))
    return float(sim.scores(st, guard_open=stake[0], rebels=stake[1], kicks=stake[2])[me])


def _mean_se(values: Sequence[float]) -> tuple[float, float]:
    n = len(values)
    if n == 0:
        return 0.0, math.inf
    mean = sum(values) / n
    if n < 2:
        return mean, math.inf
    var = sum((x - mean) ** 2 for x in values) / (n - 1)
    return mean, math.sqrt(var / n)


_SIMS: dict[RuleSet, Simulator] = {}


def _simulator(rules: RuleSet) -> Simulator:
    sim = _SIMS.get(rules)
    if sim is None:
        if len(_SIMS) >= 16:          # (a long-lived worker meets many tables' rules)
            _SIMS.clear()
        sim = _SIMS[rules] = Simulator(rules)
    return sim


def _sampler(view: View, seed: int) -> Any:
    """The seat's belief deals (the uniform sampler where the belief cannot be made)."""
    try:
        return Belief(view, samples=BELIEF_SAMPLES, seed=seed).sampler()
    except SamplerError:
        return DealSampler(view)


def review_decision(game: Game, made: Action, settings: ReviewSettings | None = None, *,
                    index: int = 0, salt: str = "") -> Decision | None:
    """The review of the decision of ``game``'s seat to act, which chose ``made``
    (``None`` when it had no choice, or no deal matches its view).  ``game`` is the
    true game at that moment (its hidden hands give the full-information answer);
    it is not changed.  ``index`` (the action's number) and ``salt`` seed the deals."""
    settings = settings or ReviewSettings()
    me = game.to_act
    if me is None:
        raise ValueError("the game is over: there is no decision to review")
    legal = game.legal_actions()
    if made not in legal:
        raise ValueError(f"{made} is not a legal action of seat {me} here")
    if len(legal) < 2:
        return None
    view = game.view(me)
    rules = game.rules
    sim = _simulator(rules)
    anchor = HeuristicBot(settings.seed).choose(view, legal)
    stage = game.stage
    if stage is Stage.PLAY:
        choices, chosen = _play_choices(view, legal, rules, made, anchor, settings.max_choices)
    else:
        choices, chosen = _role_choices(legal, made, anchor, settings.max_choices)
    if len(choices) < 2:
        return None
    key = f"review/{settings.seed}/{salt}/{me}/{index}"
    rng = random.Random(key)
    try:
        sampler = _sampler(view, rng.getrandbits(32))
    except SamplerError:
        return None
    deals = max(settings.min_deals, settings.playouts // len(choices))
    truth = World(tuple(tuple(game.hand(s)) for s in range(5)), game.emperor, game.guard,
                  _solo_kind(game.solo))
    if stage is Stage.PLAY:
        base = root_facts(view, rules)
        stake = (view.guard_open, view.rebels, view.kicks)

        def root_of(world: World) -> PlayState | None:
            if view.emperor is None or world.guard is None:
                return None
            return sim.state([world.counts(s) for s in range(5)], view.emperor, world.guard,
                             world.solo, to_act=me, **base)

        true_root = root_of(truth)
        misses = 0
        while len(choices[0].values) < deals and misses <= 50:
            root = root_of(sampler.sample(rng))
            seed = rng.getrandbits(32)
            if root is None:
                misses += 1
                continue
            for c in choices:
                c.values.append(_play_value(root, c, sim, seed, me, stake))
        if true_root is not None:
            open_rng = random.Random(key + "/open")
            for _ in range(deals):
                seed = open_rng.getrandbits(32)
                for c in choices:
                    c.open_values.append(_play_value(true_root, c, sim, seed, me, stake))
    else:
        facts = RoleFacts.read(view)
        misses = 0
        while len(choices[0].values) < deals and misses <= 50:
            world = sampler.sample(rng)
            seed = rng.getrandbits(32)
            if facts.game(world, rules, seed) is None:
                misses += 1
                continue
            for c in choices:
                dealt = facts.game(world, rules, seed)
                assert dealt is not None
                c.values.append(_finish_role_game(dealt, c.action, sim, seed, me))
        open_rng = random.Random(key + "/open")
        for _ in range(deals):
            seed = open_rng.getrandbits(32)
            for c in choices:
                c.open_values.append(_finish_role_game(copy.deepcopy(game), c.action, sim,
                                                       seed, me))
    if not choices[0].values:
        return None
    return _decision(index, stage, choices, chosen)


def _decision(index: int, stage: Stage, choices: list[_Choice], chosen: _Choice) -> Decision:
    means = {id(c): _mean_se(c.values)[0] - c.bias for c in choices}
    best = max(choices, key=lambda c: (means[id(c)], c is chosen))   # a tie: the one made
    values: dict[int, ChoiceValue] = {}
    for c in choices:
        mean, se = _mean_se(c.values)
        diffs = [b - v for b, v in zip(best.values, c.values, strict=True)]
        loss, loss_se = _mean_se(diffs)
        loss += c.bias - best.bias
        if c is best:
            loss, loss_se = 0.0, 0.0
        open_mean = _mean_se(c.open_values)[0] - c.bias if c.open_values else None
        values[id(c)] = ChoiceValue(c.action, mean - c.bias, se, len(c.values), loss, loss_se,
                                    open_mean)
    ordered = tuple(sorted(values.values(), key=lambda v: (v is not values[id(best)],
                                                          -v.expected)))
    made = values[id(chosen)]
    opened = [v for v in ordered if v.open_expected is not None]
    open_best = max(opened, key=lambda v: v.open_expected or 0.0) if opened else None
    return Decision(index, stage, ordered, made, mark_of(made.loss, made.loss_error), open_best)


# -- a whole game ------------------------------------------------------------------------------
def decision_points(record: dict[str, Any], seat: int) -> Iterator[tuple[int, Game, Action]]:
    """``(index, game, action)`` for each decision of ``seat`` in the game of ``record``
    with more than one legal answer: the action's number in the record, the game just
    before it (one game, moved on after each step: copy it to keep it) and the action
    made.  Raises ``ValueError`` for a bad record or a game not over."""
    final = Game.from_record(record)
    if not final.is_over:
        raise ValueError("the game is not over: only a finished game is reviewed")
    replay = Game.from_record({**record, "actions": []})
    for i, raw in enumerate(record.get("actions", [])):
        action = Action.from_dict(raw)
        if (action.kind is not A.LEAVE and replay.to_act == seat
                and len(replay.legal_actions()) > 1):
            yield i, replay, action
        replay.apply(action)


def decisions_of(record: dict[str, Any], seat: int) -> int:
    """How many decisions a review of ``seat`` weighs (for a progress bar)."""
    return sum(1 for _ in decision_points(record, seat))


def start_review(record: dict[str, Any], seat: int, settings: ReviewSettings) -> Review:
    """An empty review of ``seat`` in the finished game of ``record``: its final score
    and how many decisions it will weigh."""
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < 5:
        raise ValueError(f"seat must be 0..4, not {seat!r}")
    final = Game.from_record(record)
    if not final.is_over:
        raise ValueError("the game is not over: only a finished game is reviewed")
    result = final.result
    return Review(seat, settings, total=decisions_of(record, seat),
                  final_score=None if result is None else result.scores[seat])


def review_step(game: Game, action: Action, settings: ReviewSettings, index: int, salt: str,
                clock: Callable[[], float] = time.process_time
                ) -> tuple[Decision | None, float]:
    """:func:`review_decision` and the CPU seconds it took (one step of a review, as a
    server's worker process runs it)."""
    start = clock()
    decision = review_decision(game, action, settings, index=index, salt=salt)
    return decision, clock() - start


def record_salt(record: dict[str, Any]) -> str:
    """What seeds a review's deals besides the settings' seed: the game's own seed."""
    return str(record.get("seed"))


def review_record(record: dict[str, Any], seat: int, settings: ReviewSettings | None = None,
                  progress: Callable[[int, int], None] | None = None,
                  clock: Callable[[], float] = time.process_time) -> Review:
    """The review of ``seat``'s decisions in the finished game of ``record``
    (:meth:`Game.record`).  ``progress(done, total)`` is called after each decision;
    ``clock`` measures the CPU budget.  Raises ``ValueError`` for a bad record, a
    game not over or a seat not 0..4."""
    settings = settings or ReviewSettings()
    review = start_review(record, seat, settings)
    salt = record_salt(record)
    for done, (index, game, action) in enumerate(decision_points(record, seat), 1):
        if review.cpu_seconds >= settings.cpu_seconds:
            review.partial = True
            break
        decision, spent = review_step(game, action, settings, index, salt, clock)
        review.add(decision, spent)
        if progress is not None:
            progress(done, review.total)
    return review
