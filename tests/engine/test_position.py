"""Game.setup: a game at a position given by hand (tests, puzzles, determinizations)."""

from __future__ import annotations

import pytest

import baohuang as bh
from baohuang import ActionKind, Game, IllegalAction, Stage

A = ActionKind
HANDS = ["BJ 9 9", "8 8", "SJ* 5", "7 7", "6 6 6"]


def test_a_trick_to_beat() -> None:
    game = Game.setup(bh.RuleSet(), HANDS, emperor=0, guard=2, to_act=3, last=(0, "9 9"))
    assert game.stage is Stage.PLAY and game.to_act == 3
    assert [str(a) for a in game.legal_actions()] == ["pass"]
    view = game.view(3)
    assert view.last_play is not None and view.last_play[0] == 0
    assert view.hand_counts == (3, 2, 2, 2, 3)


def test_a_set_up_game_plays_to_its_end() -> None:
    game = Game.setup(bh.RuleSet(), ["9", "8", "SJ* 7", "2", "A"], emperor=0, guard=2,
                      to_act=0)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    assert game.result is not None and game.result.places[0] == 1
    with pytest.raises(IllegalAction, match="no record"):
        game.record()


def test_a_role_phase_position() -> None:
    game = Game.setup(bh.RuleSet(), HANDS, stage=Stage.REBELLION, emperor=0, guard=2,
                      to_act=1, asking=[3, 4])
    assert [a.kind for a in game.legal_actions()] == [A.REBEL, A.DECLINE]
    game.apply(game.legal_actions()[0])
    assert game.to_act == 3


@pytest.mark.parametrize(("changes", "message"), [
    ({"to_act": 5}, "to_act must be a seat"),
    ({"emperor": None}, "needs the emperor"),
    ({"guard": None}, "needs the guard"),
    ({"solo": "open"}, "solo game has guard == emperor"),
    ({"last": (1, "9 8")}, "last: a play may hold only one rank"),
    ({"out": [1, 1]}, "names a seat twice"),
    ({"stage": Stage.OVER}, "not stage 'over'"),
])
def test_what_does_not_fit_is_named(changes: dict[str, object], message: str) -> None:
    position: dict[str, object] = {"emperor": 0, "guard": 2, "to_act": 1, **changes}
    with pytest.raises(IllegalAction, match=message):
        Game.setup(bh.RuleSet(), HANDS, **position)  # type: ignore[arg-type]
    with pytest.raises(IllegalAction, match="5 hands"):
        Game.setup(bh.RuleSet(), HANDS[:4], emperor=0, guard=2, to_act=1)
