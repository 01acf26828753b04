"""复盘: the review's expected scores, marks, determinism and budget."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from typing import Any

import pytest

import baohuang as bh
from baohuang import ActionKind as A
from baohuang import Game, Stage
from baohuang.bots import make_bot
from baohuang.bots.belief import Belief
from baohuang.bots.hand_eval import rank_counts_of
from baohuang.bots.review import (
    THRESHOLDS,
    ReviewSettings,
    decisions_of,
    mark_of,
    review_decision,
    review_record,
)
from baohuang.bots.search.rollout import Simulator
from baohuang.bots.search.worlds import determinized_game, root_facts
from baohuang.engine.scoring import SoloKind


def heuristic_game(seed: int, swap: dict[int, A] | None = None) -> Game:
    """A game of five ``heuristic`` bots; at the action numbers of ``swap`` the seat
    to act makes the first legal action of that kind instead."""
    game = bh.Game.new(seed=seed)
    bots = [make_bot("heuristic", seed=s) for s in range(5)]
    i = 0
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        legal = game.legal_actions()
        action = bots[seat].choose(game.view(seat), legal)
        if swap and i in swap:
            action = next(a for a in legal if a.kind is swap[i])
        game.apply(action)
        i += 1
    return game


def set_positions() -> Iterator[tuple[Game, bh.Action]]:
    """Play-phase positions set up by hand (:meth:`Game.setup`) from the hands of
    dealt games, the Emperor to lead, with one natural play as the choice made."""
    for seed in (1, 3, 8):
        game = bh.Game.new(seed=seed)
        while game.stage is not Stage.PLAY:
            game.apply(next(a for a in game.legal_actions()
                            if a.kind in (A.ACCEPT, A.DECLINE, A.GUARD_HIDDEN, A.SOLO_HIDDEN,
                                          A.CALL, A.ABDICATE)))
        assert game.emperor is not None and game.guard is not None
        solo = None if game.solo is None else ("open" if game.solo == "open" else "hidden")
        view = game.view(None)
        position = bh.Game.setup(game.rules, [game.hand(s) for s in range(5)],
                                 to_act=game.emperor, emperor=game.emperor, guard=game.guard,
                                 solo=solo, called=view.called, dealer=game.view(None).dealer)
        legal = position.legal_actions()
        yield position, make_bot("heuristic", seed=seed).choose(
            position.view(game.emperor), legal)


def direct_estimate(game: Game, action: bh.Action, deals: int, seed: int
                    ) -> tuple[float, float]:
    """The seat's expected score after ``action``: deals drawn from its belief, each
    made a game by the engine, the action applied by the engine, the rest played out;
    mean and standard error."""
    me = game.to_act
    assert me is not None
    view = game.view(me)
    sampler = Belief(view, samples=12, seed=seed).sampler()
    sim = Simulator(game.rules)
    rng = random.Random(seed)
    scores: list[float] = []
    while len(scores) < deals:
        world = sampler.sample(rng)
        dealt = determinized_game(view, world, game.rules)
        assert dealt is not None
        dealt.apply(action)
        if dealt.is_over:
            assert dealt.result is not None
            scores.append(dealt.result.scores[me])
            continue
        after = dealt.view(dealt.to_act)
        assert dealt.emperor is not None and dealt.guard is not None
        solo: SoloKind | None = None if dealt.solo is None else (
            "open" if dealt.solo == "open" else "hidden")
        assert dealt.to_act is not None
        state = sim.state([rank_counts_of(dealt.hand(s)) for s in range(5)], dealt.emperor,
                          dealt.guard, solo, to_act=dealt.to_act,
                          **root_facts(after, game.rules))
        scores.append(sim.finish(state, rng, guard_open=after.guard_open,
                                 rebels=after.rebels, kicks=after.kicks)[me])
    mean = sum(scores) / len(scores)
    var = sum((x - mean) ** 2 for x in scores) / (len(scores) - 1)
    return mean, math.sqrt(var / len(scores))


def test_expected_scores_agree_with_a_direct_playout_estimate() -> None:
    settings = ReviewSettings(playouts=1200, max_choices=4)
    checked = 0
    for position, made in set_positions():
        decision = review_decision(position, made, settings)
        assert decision is not None
        for choice in decision.choices[:2]:
            mean, se = direct_estimate(position, choice.action, 300, seed=99)
            # within 3.5 standard errors of the difference of two independent estimates
            assert abs(choice.expected - mean) <= 3.5 * math.hypot(choice.error, se), (
                str(choice.action), choice.expected, choice.error, mean, se)
            checked += 1
    assert checked == 6


def test_a_deliberately_bad_play_is_marked_a_blunder() -> None:
    # seed 2: at action 75 seat 1 ends the game with BJ Ks; passing instead throws it away
    good = heuristic_game(2)
    bad = heuristic_game(2, swap={75: A.PASS})
    assert bad.record()["actions"][75] == {"kind": "pass"}
    review = review_record(bad.record(), 1, ReviewSettings(playouts=240))
    blunder = next(d for d in review.decisions if d.index == 75)
    assert blunder.mark == "blunder"
    assert blunder.made.action.kind is A.PASS
    assert blunder.best.action.kind is A.PLAY
    assert blunder.made.loss >= dict(THRESHOLDS)["blunder"]
    # the same seat's good game has no blunder at that decision
    clean = review_record(good.record(), 1, ReviewSettings(playouts=240))
    assert next(d for d in clean.decisions if d.index == 75).mark is None


def test_a_review_is_deterministic_and_covers_every_real_decision() -> None:
    record = heuristic_game(5).record()
    settings = ReviewSettings(playouts=48)
    seen: list[tuple[int, int]] = []
    first = review_record(record, 2, settings, progress=lambda d, t: seen.append((d, t)))
    again = review_record(record, 2, settings)
    assert first.to_dict() | {"cpu_seconds": 0} == again.to_dict() | {"cpu_seconds": 0}
    total = decisions_of(record, 2)
    assert first.total == total and len(first.decisions) == total
    assert seen == [(i, total) for i in range(1, total + 1)]
    assert len(first.series()) == total
    for d in first.decisions:
        assert d.best.expected >= d.made.expected
        assert d.open_best is not None
    other = review_record(record, 2, ReviewSettings(playouts=48, seed=1))
    assert other.to_dict()["decisions"] != first.to_dict()["decisions"]


def test_the_cpu_budget_stops_a_review_and_says_so() -> None:
    record = heuristic_game(5).record()
    ticks = iter(range(1000))

    def clock() -> float:
        return float(next(ticks))     # one second a reading

    review = review_record(record, 0, ReviewSettings(playouts=24, cpu_seconds=2.5), clock=clock)
    assert review.partial
    assert 0 < len(review.decisions) < review.total


def test_an_unfinished_game_is_not_reviewed() -> None:
    game = heuristic_game(5)
    record: dict[str, Any] = game.record()
    record["actions"] = record["actions"][:30]
    with pytest.raises(ValueError, match="not over"):
        review_record(record, 0)
    with pytest.raises(ValueError, match="seat"):
        review_record(game.record(), 5)


def test_marks_follow_the_thresholds() -> None:
    assert mark_of(0.9, 0.1) is None
    assert mark_of(1.0, 0.1) == "inaccuracy"
    assert mark_of(2.5, 0.1) == "mistake"
    assert mark_of(5.0, 0.1) == "blunder"
    assert mark_of(6.0, 3.5) is None          # within noise
