"""The belief search: legal answers, reproducible given a playout budget or a
clock, and a think-time budget it keeps by its own clock."""

from __future__ import annotations

from helpers import play_out

import baohuang as bh
from baohuang.bots import make_bot
from baohuang.bots.search.belief_search import BeliefSearchBot


class FakeClock:
    """A clock that moves ``step`` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step
        self.reads = 0

    def __call__(self) -> float:
        self.now += self.step
        self.reads += 1
        return self.now


def mid_play(seed: int, decisions: int) -> bh.Game:
    game = bh.Game.new(seed=seed)
    bots = [make_bot("heuristic", seed=s) for s in range(5)]
    while not game.is_over and (game.stage is not bh.Stage.PLAY or decisions > 0):
        seat = game.to_act
        assert seat is not None
        if game.stage is bh.Stage.PLAY:
            decisions -= 1
        game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
    return game


def searched_position() -> tuple[bh.Game, BeliefSearchBot]:
    """A play decision with several moves where the search really searches."""
    for seed in range(30):
        game = mid_play(seed, 12)
        if game.is_over:
            continue
        bot = BeliefSearchBot(seed, iterations=120)
        seat = game.to_act
        assert seat is not None
        bot.choose(game.view(seat), game.legal_actions())
        if bot.last_playouts > 0:
            return game, bot
    raise AssertionError("no searched decision in 30 games")


def test_a_playout_budget_gives_the_same_answer_every_time() -> None:
    game, bot = searched_position()
    seat = game.to_act
    assert seat is not None
    view, legal = game.view(seat), game.legal_actions()
    first = bot.choose(view, legal)
    arms = bot.last_arms
    again = BeliefSearchBot(bot.seed, iterations=120)
    assert again.choose(view, legal) == first and again.last_arms == arms
    assert first in legal
    assert 0 < bot.last_playouts <= 120


def test_a_think_time_is_kept_by_the_bots_own_clock() -> None:
    """With a clock moving 1 ms a read and 0.2 s to think, the search stops
    near 0.2 s of that clock and not after it (it begins no deal it cannot
    finish in time), and does the same again from the same start."""
    game, _ = searched_position()
    seat = game.to_act
    assert seat is not None
    view, legal = game.view(seat), game.legal_actions()
    answers = []
    for _ in range(2):
        clock = FakeClock(0.001)
        bot = BeliefSearchBot(1, time_limit=0.2, clock=clock)
        answers.append((bot.choose(view, legal), bot.last_playouts, bot.last_arms))
        assert 0.18 <= clock.now <= 0.2 + 0.001 * 5
    assert answers[0] == answers[1]
    # more time, more playouts
    slow = BeliefSearchBot(1, time_limit=0.8, clock=FakeClock(0.001))
    slow.choose(view, legal)
    assert slow.last_playouts > answers[0][1]


def test_belief_search_plays_whole_games() -> None:
    game = bh.Game.new(seed=9)
    bots = [make_bot("belief-40", seed=s) if s % 2 else make_bot("heuristic", seed=s)
            for s in range(5)]
    play_out(game, bots)
    assert game.result is not None
