"""A weights file keeps the observation it was trained on, so that a rule option added
to ``RuleSet`` (which adds entries to the observation's rule block) neither breaks
loading the shipped ``learned`` weights nor changes what the hard and expert levels
play: the network sees the new entry as a row of zeros."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import baohuang as bh
from baohuang.env.observation import OBS_LAYOUT, OBS_SIZE, RULE_ENTRIES, observe
from baohuang.learn.bot import WEIGHTS
from baohuang.learn.model import QNetwork, load_weights, save_weights

SHIPPED = Path(str(resources.files("baohuang.learn") / "weights" / WEIGHTS))
START = OBS_LAYOUT["rules"].start


def stored(path: Path) -> tuple[dict[str, np.ndarray], dict[str, object]]:
    with np.load(path) as data:
        return ({k: data[k] for k in data.files if k != "obs_layout"},
                json.loads(str(data["obs_layout"])))


def test_the_rule_block_is_made_from_the_rule_options() -> None:
    options = {name for name, _ in bh.engine.rules.option_types()}
    named = {entry.partition("=")[0] for entry in RULE_ENTRIES}
    assert named == options - {"leave_penalty"}       # every option but the number
    view = bh.Game.new(bh.RuleSet.preset("wurenju"), 1).view(0)
    block = observe(view)[OBS_LAYOUT["rules"]]
    on = {entry for entry, value in zip(RULE_ENTRIES, block, strict=True) if value}
    assert {"deck=full", "guard_mode=call", "called_card_high", "forced_call",
            "scoring=wurenju", "abdication=clockwise_then_two"} <= on
    assert "deck=shandong165" not in on and "kick" not in on


def test_the_shipped_weights_are_moved_to_todays_rule_entries() -> None:
    raw, layout = stored(SHIPPED)
    rules = layout["rules"]
    assert isinstance(rules, list) and layout["version"] == 1
    today = load_weights(SHIPPED)["w0o"]
    assert today.shape[0] == OBS_SIZE
    np.testing.assert_array_equal(today[:START], raw["w0o"][:START])
    for i, entry in enumerate(RULE_ENTRIES):
        row = today[START + i]
        if entry in rules:
            np.testing.assert_array_equal(row, raw["w0o"][START + rules.index(entry)])
        else:
            assert not row.any(), entry        # never seen by the network


def test_weights_saved_today_load_unchanged_and_another_version_is_refused(
        tmp_path: Path) -> None:
    weights = load_weights(SHIPPED)
    save_weights(tmp_path / "w.npz", weights)
    _, layout = stored(tmp_path / "w.npz")
    assert layout == {"version": 1, "rules": list(RULE_ENTRIES)}
    again = load_weights(tmp_path / "w.npz")
    assert all(np.array_equal(again[k], weights[k]) for k in weights)
    arrays: dict[str, Any] = stored(tmp_path / "w.npz")[0]
    arrays["obs_layout"] = np.array(json.dumps({"version": 0, "rules": list(RULE_ENTRIES)}))
    np.savez(tmp_path / "old.npz", **arrays)
    with pytest.raises(ValueError, match="observation version 0, not 1"):
        QNetwork.load(tmp_path / "old.npz")


ADDED_OPTION = textwrap.dedent("""
    import dataclasses
    import numpy as np
    import baohuang as bh
    from baohuang.engine import rules

    # a rule option added to RuleSet, before the environments are imported
    @dataclasses.dataclass(frozen=True, slots=True)
    class RuleSet(rules.RuleSet):
        double_kicks: bool = False
    rules._FIELD_TYPES["double_kicks"] = bool
    rules.RuleSet = bh.RuleSet = RuleSet

    from baohuang.bots import make_bot
    from baohuang.env.observation import OBS_SIZE, RULE_ENTRIES
    from baohuang.learn.bot import default_network

    assert RULE_ENTRIES[-1] == "double_kicks", RULE_ENTRIES
    assert default_network().w0o.shape[0] == OBS_SIZE
    game = bh.Game.new(RuleSet(double_kicks=True), seed=5)
    assert game.view(0).rules["double_kicks"] is True
    bots = [make_bot(name, seed=s) for s, name in
            enumerate(["hard", "expert-20", "hard", "expert-20", "hard"])]
    moves = 0
    while not game.is_over:
        seat = game.to_act
        game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
        moves += 1
    print(OBS_SIZE, moves, game.result.scores)
""")


def test_a_new_rule_option_keeps_the_shipped_weights_and_the_levels_playing() -> None:
    done = subprocess.run([sys.executable, "-c", ADDED_OPTION], capture_output=True,
                          text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    size, moves, *_ = done.stdout.split(maxsplit=2)
    assert int(size) == OBS_SIZE + 1 and int(moves) > 20

