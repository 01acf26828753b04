"""Bots never see more than their own view.

Every registered bot plays whole games while the real game is watched: any use of
the ``Game`` during a bot's ``choose`` — reading its state, its hands, another
seat's view — fails the test.  And a bot given the same view of a deal whose hidden
cards differ (two other seats swapped a card) chooses the same action.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from helpers import quick_first, random_state, swapped

import baohuang as bh
from baohuang import Game
from baohuang.bots import bot_names, make_bot

#: the bots under test, the searching ones with a small playout budget: the
#: difficulty level 大师 expert is the ``belief`` search with a think time, which a
#: test must not depend on, so ``belief-60`` stands for it
SMALL = {"search": "search-60", "belief": "belief-60", "expert": "belief-60"}
BOTS = list(dict.fromkeys(SMALL.get(name, name) for name in bot_names()))


class Peeked(AssertionError):
    """A bot used the real game while choosing."""


@contextmanager
def watched(game: Game) -> Iterator[list[str]]:
    """While inside, any attribute of ``game`` read raises :class:`Peeked` (other
    games, such as a search bot's own determinizations, are not watched)."""
    reads: list[str] = []
    original = Game.__getattribute__

    def guard(self: Game, name: str) -> Any:
        if self is game:
            reads.append(name)
            raise Peeked(f"a bot read Game.{name} of the real game")
        return original(self, name)

    setattr(Game, "__getattribute__", guard)  # noqa: B010 (a method of the class)
    try:
        yield reads
    finally:
        setattr(Game, "__getattribute__", original)  # noqa: B010


def test_the_watch_catches_a_read() -> None:
    game, other = Game.new(seed=1), Game.new(seed=2)
    with watched(game) as reads, pytest.raises(Peeked):
        other.view(0)                 # another game may be used
        game.view(0)
    assert reads == ["view"]


@pytest.mark.parametrize("name", BOTS)
@pytest.mark.parametrize("preset", quick_first(["shandong", "lianzhong_classic", "wurenju"]))
def test_bots_play_from_their_views_alone(name: str, preset: str) -> None:
    game = Game.new(bh.RuleSet.preset(preset), seed=11)
    bots = [make_bot(name, seed=s) for s in range(5)]
    decisions = 0
    while not game.is_over and decisions < 120:
        seat = game.to_act
        assert seat is not None
        view, legal = game.view(seat), game.legal_actions()
        with watched(game) as reads:
            action = bots[seat].choose(view, legal)
        assert reads == []
        assert action in legal
        game.apply(action)
        decisions += 1
    assert decisions > 20


@pytest.mark.parametrize("name", BOTS)
def test_hidden_cards_do_not_change_a_choice(name: str) -> None:
    rng = random.Random(3)
    compared = 0
    for seed in range(40):
        game = random_state(bh.RuleSet.preset(rng.choice(list(bh.PRESETS))), seed,
                            rng.randrange(0, 200))
        if game.is_over:
            continue
        seat = game.to_act
        assert seat is not None
        twin = swapped(game, seat, rng)
        if twin is None:
            continue
        one = make_bot(name, seed=5).choose(game.view(seat), game.legal_actions())
        two = make_bot(name, seed=5).choose(twin.view(seat), twin.legal_actions())
        assert one == two, (name, seed)
        compared += 1
    assert compared >= 10
