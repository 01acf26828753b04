"""Guard inference: exact when the view knows, consistent with the truth, and
better than the base rate on bot games."""

from __future__ import annotations

import random
import statistics
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import baohuang as bh
from baohuang import ActionKind, Game, Stage
from baohuang.bots import make_bot
from baohuang.bots.inference import (
    base_probabilities,
    brier,
    guard_probabilities,
    log_loss,
    rounds_played,
)

A = ActionKind
PRESETS = list(bh.PRESETS)


def bot_game(preset: str, seed: int, names: tuple[str, ...] = ("heuristic",) * 5,
             **options: object) -> Iterator[Game]:
    """Every state of a bot game, before each decision."""
    game = Game.new(bh.RuleSet.preset(preset).replace(**options), seed=seed)
    bots = [make_bot(names[s], seed=s) for s in range(5)]
    while not game.is_over:
        yield game
        seat = game.to_act
        assert seat is not None
        game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
    yield game


def public_guard(game: Game) -> bool:
    """Whether everybody may know the Guard now."""
    return game.view(None).guard is not None


@settings(max_examples=30, deadline=None)
@given(preset=st.sampled_from(PRESETS), seed=st.integers(0, 10_000),
       steps=st.integers(0, 400))
def test_a_distribution_that_never_rules_out_the_truth(preset: str, seed: int,
                                                       steps: int) -> None:
    rng = random.Random(seed)
    game = Game.new(bh.RuleSet.preset(preset), seed=seed)
    for _ in range(steps):
        if game.is_over:
            break
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    for seat in range(5):
        probs = guard_probabilities(game.view(seat))
        assert len(probs) == 5 and min(probs) >= 0.0
        assert sum(probs) == pytest.approx(1.0)
        if game.guard is not None and game.stage not in (Stage.EMPEROR, Stage.EMPEROR_SOLO,
                                                         Stage.STEAL, Stage.CALL):
            assert probs[game.guard] > 0.0


def test_the_truth_keeps_a_chance_in_bot_games() -> None:
    for preset in PRESETS:
        for seed in range(4):
            for game in bot_game(preset, seed, ("heuristic", "random", "hosted",
                                                "heuristic", "heuristic")):
                if game.stage is not Stage.PLAY:
                    continue
                seat = game.to_act
                assert seat is not None and game.guard is not None
                assert guard_probabilities(game.view(seat))[game.guard] > 0.0


def test_the_known_guard_gets_everything() -> None:
    checked = 0
    for preset in ("shandong", "lianzhong_simple", "lianzhong_classic"):
        for seed in range(10):
            for game in bot_game(preset, seed):
                if game.stage is not Stage.PLAY or game.guard is None:
                    continue
                guard = game.guard
                for seat in range(5):
                    view = game.view(seat)
                    probs = guard_probabilities(view)
                    if seat == guard or public_guard(game) or view.solo is not None:
                        assert probs == tuple(1.0 if s == guard else 0.0 for s in range(5))
                        checked += 1
                break
    assert checked > 20


def test_what_a_seat_knows_of_itself() -> None:
    for game in bot_game("shandong", 3):
        if game.stage is not Stage.PLAY:
            continue
        assert game.emperor is not None
        for seat in range(5):
            view = game.view(seat)
            probs = guard_probabilities(view)
            if view.role == "rebel":
                assert probs[seat] == 0.0
            if seat == game.emperor and not game.solo:
                assert probs[seat] == 0.0


def test_a_player_out_without_a_reveal_is_not_the_guard() -> None:
    seen = 0
    for seed in range(6):
        for game in bot_game("shandong", seed):
            view = game.view(None)
            if game.is_over or not view.out or view.guard is not None:
                continue
            for seat in range(5):
                probs = guard_probabilities(game.view(seat))
                assert all(probs[s] == 0.0 for s in view.out)
                seen += 1
    assert seen > 0


def test_jiefeng_after_the_emperor_goes_out_shows_the_guard() -> None:
    """Under lead_after_out=teammate the lead after the Emperor's last play
    goes to the Guard: from then on everybody knows him."""
    found = 0
    for seed in range(60):
        for game in bot_game("shandong", seed):
            view = game.view(None)
            if game.is_over or view.guard is not None or game.solo:
                continue
            leads = [e for e in view.events if e["type"] == "lead"]
            if leads and leads[-1]["reason"] == "lead_after_out" and game.emperor in view.out:
                assert game.guard is not None
                for seat in range(5):
                    probs = guard_probabilities(game.view(seat))
                    assert probs[game.guard] == 1.0
                found += 1
                break
        if found >= 2:
            break
    assert found >= 1


def test_an_abdication_for_two_shows_the_guard() -> None:
    """Under skip_two_if_solo only a candidate holding the Guard card may
    abdicate, and he keeps it: he is the Guard of the seat two down."""
    for seed in range(40):
        game = Game.new(seed=seed)
        if A.ABDICATE not in {a.kind for a in game.legal_actions()}:
            continue
        candidate = game.to_act
        assert candidate is not None
        game.apply(bh.Action(A.ABDICATE))
        while game.stage is not Stage.PLAY:
            legal = {a.kind: a for a in game.legal_actions()}
            game.apply(legal.get(A.DECLINE) or legal.get(A.GUARD_HIDDEN) or legal[A.ACCEPT])
        assert game.guard == candidate
        for seat in range(5):
            assert guard_probabilities(game.view(seat))[candidate] == 1.0
        return
    pytest.fail("no deal with an abdication in 40 seeds")


def test_nobody_is_guard_before_the_emperor() -> None:
    game = Game.new(seed=5)
    assert guard_probabilities(game.view(2)) == (0.2,) * 5
    assert base_probabilities(game.view(2)) == (0.2,) * 5


def test_beats_the_base_rate_on_bot_games() -> None:
    ours: list[float] = []
    base: list[float] = []
    ours_b: list[float] = []
    base_b: list[float] = []
    for preset in PRESETS:
        for seed in range(5):
            views = []
            for game in bot_game(preset, 100 + seed):
                if game.stage is Stage.PLAY:
                    seat = game.to_act
                    assert seat is not None
                    view = game.view(seat)
                    if view.guard is None and view.solo is None and view.role != "guard":
                        views.append(view)
            assert game.result is not None and game.result.guard is not None
            truth = game.result.guard
            for view in views[::4]:
                p, q = guard_probabilities(view), base_probabilities(view)
                ours.append(log_loss(p, truth))
                base.append(log_loss(q, truth))
                ours_b.append(brier(p, truth))
                base_b.append(brier(q, truth))
    assert len(ours) > 200
    assert statistics.mean(ours) < 0.95 * statistics.mean(base)
    assert statistics.mean(ours_b) < 0.95 * statistics.mean(base_b)


def test_scores_of_a_prediction() -> None:
    sure = (0.0, 1.0, 0.0, 0.0, 0.0)
    assert log_loss(sure, 1) == pytest.approx(0.0)
    assert brier(sure, 1) == 0.0
    assert brier(sure, 2) == 2.0
    assert log_loss(sure, 2) == pytest.approx(13.8155, abs=1e-3)   # clipped at 1e-6


def test_rounds_are_counted_by_leads() -> None:
    rounds = []
    for game in bot_game("shandong", 2):
        if game.stage is Stage.PLAY:
            rounds.append(rounds_played(game.view(game.to_act)))
    assert rounds[0] == 0
    assert rounds == sorted(rounds) and rounds[-1] > 5
