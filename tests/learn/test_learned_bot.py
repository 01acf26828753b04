"""The `learned` bot: registered by name, plays legal games of every preset with the
shipped weights and NumPy alone, and is deterministic."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from helpers import play_out

import baohuang as bh
from baohuang.bots import bot_names, is_bot, make_bot
from baohuang.engine.rules import PRESETS
from baohuang.learn.bot import LearnedBot, default_network


def play(rules: bh.RuleSet, seed: int, names: list[str]) -> bh.Game:
    game = bh.Game.new(rules, seed=seed, dealer=seed % 5)
    # (a game of bots that never ends fails)
    return play_out(game, [make_bot(name, seed=seed * 5 + s) for s, name in enumerate(names)])


def test_learned_is_a_registered_bot() -> None:
    assert "learned" in bot_names()
    assert is_bot("learned")
    assert isinstance(make_bot("learned", seed=1), LearnedBot)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_learned_plays_whole_legal_games_of_every_preset(preset: str) -> None:
    rules = bh.RuleSet.preset(preset)
    for seed in range(2):
        game = play(rules, seed, ["learned"] * 5)
        assert game.result is not None
        assert bh.Game.from_record(game.record()).result == game.result


def test_learned_plays_against_the_heuristic_bot_with_rule_options() -> None:
    rules = bh.RuleSet().with_options({"kaopai": "on", "guard_mode": "call",
                                       "called_card_high": "on"})
    game = play(rules, 7, ["learned", "heuristic", "learned", "heuristic", "heuristic"])
    assert game.result is not None


def test_learned_is_deterministic_and_ranks_every_legal_action() -> None:
    game = bh.Game.new(seed=11)
    bots = [make_bot("learned", seed=s) for s in range(5)]
    while game.stage is not bh.Stage.PLAY or len(game.legal_actions()) < 3:
        seat = game.to_act
        assert seat is not None
        game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
    seat = game.to_act
    assert seat is not None
    view, legal = game.view(seat), game.legal_actions()
    values = LearnedBot(0).values(view, legal)
    assert len(values) == len(legal)
    assert len(set(values)) > 1                    # the network tells the plays apart
    # the best value, or (a guided network) the heuristic's choice unless the best
    # is worth more than the network's margin more
    hint = LearnedBot(3).hint(view, legal)
    best = legal[values.index(max(values))]
    if hint is None or max(values) > values[hint] + default_network().margin:
        assert LearnedBot(3).choose(view, legal) == best
    else:
        assert LearnedBot(3).choose(view, legal) == legal[hint]
    assert LearnedBot(4).choose(view, legal) == LearnedBot(5).choose(view, legal)


def test_the_shipped_weights_are_small() -> None:
    network = default_network()
    params = network.w0o.size + network.w0a.size + sum(w.size + b.size
                                                       for w, b in network._layers)
    assert params * 4 < 5_000_000


def test_learned_plays_with_numpy_alone_and_the_environments_say_what_they_need() -> None:
    """Without the learning frameworks (the ``rl`` extra) the bot still plays a game; the
    environments then name what is missing."""
    script = textwrap.dedent("""
        import sys
        from importlib.abc import MetaPathFinder

        class NoFrameworks(MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("gymnasium", "pettingzoo", "pyspiel", "rlcard"):
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
                return None

        sys.meta_path.insert(0, NoFrameworks())
        import baohuang as bh
        from baohuang.bots import make_bot
        game = bh.Game.new(seed=4)
        bots = [make_bot("learned", seed=s) for s in range(5)]
        while not game.is_over:
            game.apply(bots[game.to_act].choose(game.view(game.to_act), game.legal_actions()))
        print("scores", list(game.result.scores))
        try:
            from baohuang.env import baohuang_v0
        except ImportError as exc:
            print("refused:", exc)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300, check=True)
    assert "scores" in done.stdout
    assert "refused: baohuang.env.baohuang_v0 needs numpy, gymnasium" in done.stdout
    assert "pip install 'baohuang[rl]'" in done.stdout
