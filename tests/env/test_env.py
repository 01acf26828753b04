"""The learning environments: PettingZoo and Gymnasium conformance, the action
encoding (every legal action one index and back), observations that show nothing
hidden, and rewards equal to the engine's scores."""

from __future__ import annotations

import itertools
import random
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from helpers import examples, quick_first
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

import baohuang as bh
from baohuang.env import BaohuangGymEnv, baohuang_v0
from baohuang.env.actions import (
    N_ACTIONS,
    PLAY_KEYS,
    ActionEncoder,
    IllegalActionIndex,
    decode,
    describe,
    encode,
    legal_mask,
)
from baohuang.env.observation import OBS_HIGH, OBS_LAYOUT, OBS_SIZE, ObservationEncoder, observe

OPTIONS: tuple[dict[str, bool], ...] = ({}, {"kaopai": True}, {"hold_sixes": True},
                                        {"kaopai": True, "hold_sixes": True},
                                        {"jokers_with_twos": True})


def rule_sets() -> list[bh.RuleSet]:
    """Every preset, and each with 烤牌 / 憋6 / jokers on 2s (and 特画 where it can be on)."""
    out = []
    for rules in bh.PRESETS.values():
        for options in OPTIONS:
            out.append(rules.replace(**options))
        if rules.guard_mode == "call" and not rules.called_card_high:
            out.append(rules.replace(called_card_high=True, kaopai=True))
    return out


RULE_SETS = rule_sets()


# -- PettingZoo ---------------------------------------------------------------------
@pytest.mark.parametrize("kwargs", [{}, {"preset": "wurenju", "kaopai": True},
                                    {"preset": "seed001_216", "matches": True, "games": 2}])
def test_pettingzoo_api(kwargs: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # (a Dict observation is expected here)
        api_test(baohuang_v0.env(**kwargs), num_cycles=400)


def test_pettingzoo_seed() -> None:
    seed_test(baohuang_v0.env, num_cycles=300)
    seed_test(lambda: baohuang_v0.env(preset="lianzhong_classic", called_card_high=True),
              num_cycles=300)


def play_out(env: object, seed: int) -> dict[str, float]:
    """Random masked actions to the end; the rewards each agent collected."""
    env.reset(seed=seed)  # type: ignore[attr-defined]
    total: dict[str, float] = {}
    for agent in env.agent_iter():  # type: ignore[attr-defined]
        obs, reward, termination, truncation, _ = env.last()  # type: ignore[attr-defined]
        total[agent] = total.get(agent, 0.0) + reward
        action = None if termination or truncation else \
            env.action_space(agent).sample(obs["action_mask"])  # type: ignore[attr-defined]
        env.step(action)  # type: ignore[attr-defined]
    return total


@pytest.mark.parametrize("preset", list(bh.PRESETS))
def test_rewards_are_the_scores(preset: str) -> None:
    env = baohuang_v0.env(preset=preset)
    for seed in range(3):
        total = play_out(env, seed)
        game = env.unwrapped.game
        assert game.is_over and game.result is not None
        assert [total[f"player_{s}"] for s in range(5)] == list(game.result.scores)


def test_match_rewards_are_the_totals() -> None:
    env = baohuang_v0.env(preset="seed001_216", matches=True, games=3)
    total = play_out(env, 5)
    match = env.unwrapped.match
    assert match is not None and match.is_over and len(match.results) == 3
    assert [total[f"player_{s}"] for s in range(5)] == match.totals


def test_same_seed_same_game() -> None:
    a, b = baohuang_v0.raw_env(), baohuang_v0.raw_env()
    a.reset(seed=11)
    b.reset(seed=11)
    assert a.game.record() == b.game.record()
    a.reset(seed=12)
    assert a.game.record() != b.game.record()


def test_observations_follow_a_game_changed_from_outside() -> None:
    """Every observation is the seat's view's, also after moves made on ``env.game``
    directly instead of through ``step`` (for every seat, not only the one to act),
    and each observation is the caller's own array."""
    env = baohuang_v0.raw_env()
    env.reset(seed=5)
    rng = random.Random(5)
    for turn in range(120):
        game = env.game
        if game.is_over:
            break
        if turn % 7 == 3:                # a move the environment is not told of
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
            env.agent_selection = f"player_{game.to_act}"
            continue
        first = env.observe("player_0")["observation"]
        kept = first.copy()
        for seat in range(5):
            seen = env.observe(f"player_{seat}")["observation"]
            assert np.array_equal(seen, observe(game.view(seat)))
        assert np.array_equal(first, kept)
        legal_indexes = env.legal_indexes()
        env.step(legal_indexes[rng.randrange(len(legal_indexes))])


def test_render_and_illegal_index() -> None:
    env = baohuang_v0.raw_env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert isinstance(text, str) and "emperor" in text and "stake" in text
    mask = env.observe(env.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionIndex, match=rf"action index {bad}\b"):
        env.step(bad)
    with pytest.raises(IllegalActionIndex, match="out of range"):
        env.step(N_ACTIONS + 3)


# -- Gymnasium ------------------------------------------------------------------------
def test_gymnasium_check_env() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # (no spec: render modes not tried)
        check_env(BaohuangGymEnv(opponents=("random",) * 4))
        check_env(BaohuangGymEnv("wurenju", seat=2, opponents=("heuristic", "hosted",
                                                                 "random", "heuristic")))


def test_gymnasium_make_by_the_registered_id(capsys: pytest.CaptureFixture[str]) -> None:
    import gymnasium

    env = gymnasium.make("baohuang/Baohuang-v0", preset="wurenju", seat=3,
                         opponents=("random",) * 4)
    assert env.spec is not None and env.spec.id == "baohuang/Baohuang-v0"
    game = env.unwrapped
    assert isinstance(game, BaohuangGymEnv) and game.rules.preset_name() == "wurenju"
    obs, info = env.reset(seed=1)
    assert info["seat"] == 3 and env.observation_space.contains(obs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # (with a spec: every render mode tried)
        check_env(game)
    assert "stake" in capsys.readouterr().out   # (the "human" mode printed its line)
    # "module:id" imports the module first, as a fresh process needs
    again = gymnasium.make("baohuang.env:baohuang/Baohuang-v0", kaopai=True).unwrapped
    assert isinstance(again, BaohuangGymEnv) and again.rules.kaopai


def test_gymnasium_episode() -> None:
    env = BaohuangGymEnv("shandong", seat=None, opponents=("heuristic",) * 4)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        done, reward = False, 0.0
        while not done:
            mask = env.action_masks()
            assert np.array_equal(mask, info["action_mask"]) and mask.sum() >= 1
            action = int(env.action_space.sample(mask))
            obs, reward, done, _, info = env.step(action)
            assert not info["illegal_action"] and env.observation_space.contains(obs)
        assert reward == env.game.result.scores[env.seat]  # type: ignore[union-attr]


def test_gymnasium_illegal_action() -> None:
    env = BaohuangGymEnv(seat=0, opponents=("random",) * 4)
    env.reset(seed=1)
    bad = int(np.flatnonzero(env.action_masks() == 0)[0])
    *_, info = env.step(bad)
    assert info["illegal_action"]
    strict = BaohuangGymEnv(seat=0, opponents=("random",) * 4, on_illegal="raise")
    strict.reset(seed=1)
    with pytest.raises(IllegalActionIndex):
        strict.step(bad)
    with pytest.raises(ValueError, match="four opponents"):
        BaohuangGymEnv(opponents=("random",))


# -- the action encoding ----------------------------------------------------------------
def check_decision(game: bh.Game, encoder: ActionEncoder) -> None:
    seat = game.to_act
    assert seat is not None
    view = game.view(seat)
    legal = game.legal_actions()
    indexes = [encode(a, view) for a in legal]
    assert len(set(indexes)) == len(indexes), [str(a) for a in legal]
    assert all(0 <= i < N_ACTIONS for i in indexes)
    assert encoder.indexes(view, legal) == indexes
    for i, action in zip(indexes, legal, strict=True):
        assert decode(i, view, legal) == action
        assert encoder.decode(i, view, legal) == action
    mask = legal_mask(view, legal)
    assert set(np.flatnonzero(mask)) == set(indexes)
    assert np.array_equal(encoder.mask(view), mask)


@settings(max_examples=examples(30), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, len(RULE_SETS) - 1), seed=st.integers(0, 2**31 - 1))
def test_every_legal_action_has_one_index(which: int, seed: int) -> None:
    rules = RULE_SETS[which]
    game = bh.Game.new(rules, seed)
    rng = random.Random(seed)
    encoder = ActionEncoder()
    while not game.is_over:
        check_decision(game, encoder)
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("rules", quick_first(RULE_SETS, lambda r: str(RULE_SETS.index(r))))
def test_every_rule_set_in_a_few_games(rules: bh.RuleSet) -> None:
    encoder = ActionEncoder()
    for seed in range(2):
        game = bh.Game.new(rules, seed)
        rng = random.Random(seed)
        while not game.is_over:
            check_decision(game, encoder)
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])


def test_a_hidden_guard_plays_with_or_without_the_guard_card() -> None:
    game = bh.Game.setup(bh.RuleSet(), ["BJ* 3 3", "8", "SJ* SJ 9 9", "2", "A"],
                         emperor=0, guard=2, to_act=2)
    view = game.view(2)
    legal = game.legal_actions()
    plays = {str(a): encode(a, view) for a in legal}
    assert plays["play SJ 9"] != plays["play SJ* 9"]
    assert describe(plays["play SJ* 9"]) == "play SJ 9 (k=1)"
    check_decision(game, ActionEncoder())


def test_a_hidden_solo_emperor_plays_any_number_of_called_copies() -> None:
    rules = bh.RuleSet.preset("lianzhong_classic")
    game = bh.Game.setup(rules, ["9h 9h 9h 9h 9s 9s BJ*", "8", "SJ 7", "2", "A"],
                         emperor=0, guard=0, solo="hidden", called="9h", to_act=0)
    view = game.view(0)
    legal = game.legal_actions()
    twos = [a for a in legal if len(a.cards) == 2 and all(c.rank == 9 for c in a.cards)]
    assert len(twos) == 3                       # no, one or two copies of 9h
    assert len({encode(a, view) for a in twos}) == 3
    check_decision(game, ActionEncoder())


def test_the_action_space() -> None:
    assert len(PLAY_KEYS) + 60 == N_ACTIONS and len(set(PLAY_KEYS)) == len(PLAY_KEYS)
    assert describe(10) == "pass" and describe(12) == "call 3s" and describe(59) == "call Ac"
    assert describe(N_ACTIONS) == "out of range"
    game = bh.Game.new(seed=0)
    view = game.view(game.to_act)
    with pytest.raises(IllegalActionIndex, match=r"action index 11 \(ask_lead\) is not legal") \
            as caught:
        decode(11, view)
    assert caught.value.index == 11
    with pytest.raises(ValueError, match="no action index"):
        encode(bh.Action.make(bh.ActionKind.LEAVE, seat=1), view)


# -- observations -------------------------------------------------------------------------
def test_observation_layout() -> None:
    blocks = sorted(OBS_LAYOUT.values(), key=lambda s: s.start)
    assert blocks[0].start == 0 and blocks[-1].stop == OBS_SIZE == len(OBS_HIGH)
    assert all(a.stop == b.start for a, b in itertools.pairwise(blocks))


def test_incremental_observations_equal_fresh_ones() -> None:
    for rules in (bh.PRESETS["shandong"], bh.PRESETS["wurenju"].replace(kaopai=True),
                  bh.PRESETS["seed001_216"]):
        game = bh.Game.new(rules, 4)
        rng = random.Random(4)
        encoder = ObservationEncoder()
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            for s in {seat, rng.randrange(5)}:
                view = game.view(s)
                obs = encoder.encode(view)
                assert np.array_equal(obs, observe(view))
                assert np.all(obs >= 0) and np.all(obs <= OBS_HIGH)
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])


def test_observation_of_hand_and_played_cards() -> None:
    game = bh.Game.setup(bh.RuleSet(), ["BJ* 3 3", "8 8 K", "SJ* SJ 9 9", "2", "A A"],
                         emperor=0, guard=2, to_act=1)
    game.apply(bh.Action.parse("play 8 8"))
    obs = observe(game.view(2))
    hand = obs[OBS_LAYOUT["hand"]]
    assert hand[9 - 3] == 2 and hand[13] == 2 and hand.sum() == 4      # 9 9, SJ SJ
    played = obs[OBS_LAYOUT["played"]].reshape(5, 16)
    assert played[4, 8 - 3] == 2 and played.sum() == 2        # seat 1 is seat 2's 上家
    assert list(obs[OBS_LAYOUT["hand_sizes"]]) == [4, 1, 2, 3, 1]
    assert obs[OBS_LAYOUT["last_seat"]][4] == 1
    assert obs[OBS_LAYOUT["role"]][1] == 1                     # the Guard knows it
    assert obs[OBS_LAYOUT["guard"]][0] == 1
    other = observe(game.view(3))
    assert other[OBS_LAYOUT["guard"]].sum() == 0               # a rebel does not


def test_hidden_information_changes_no_observation() -> None:
    rules = bh.RuleSet()
    hands = ["BJ* 3 3 K", "8 8 K 7", "SJ* SJ 9 9", "2 Q J 6", "A A 10 7"]
    base = bh.Game.setup(rules, hands, emperor=0, guard=2, to_act=1)
    # other rebels' hands swapped; the hidden Guard elsewhere (with the Guard card)
    swapped = bh.Game.setup(rules, [hands[0], hands[1], hands[2], hands[4], hands[3]],
                            emperor=0, guard=2, to_act=1)
    moved = bh.Game.setup(rules, [hands[0], hands[1], hands[3], hands[2], hands[4]],
                          emperor=0, guard=3, to_act=1)
    for game in (swapped, moved):
        assert np.array_equal(observe(game.view(1)), observe(base.view(1)))
        assert not np.array_equal(observe(game.view(3)), observe(base.view(3)))
    # and after the same moves
    for game in (base, swapped, moved):
        game.apply(bh.Action.parse("play 8 8"))
        game.apply(bh.Action.parse("pass"))
    assert not np.array_equal(observe(swapped.view(3)), observe(base.view(3)))
    assert np.array_equal(observe(swapped.view(1)), observe(base.view(1)))
    assert np.array_equal(observe(moved.view(1)), observe(base.view(1)))


def test_an_environment_asked_for_without_the_extra_names_it() -> None:
    # the encodings import with NumPy alone (the learned bot's); the environments say
    # what is missing
    code = ("import sys; sys.modules['pettingzoo'] = None\n"
            "from baohuang.env import ObservationEncoder\n"
            "try:\n    from baohuang.env import baohuang_v0\n"
            "except ImportError as exc:\n    print(exc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "pettingzoo is missing" in out and "pip install 'baohuang[rl]'" in out


# -- docs/rl.md ------------------------------------------------------------------------------
DOC = Path(__file__).resolve().parents[2] / "docs" / "rl.md"


def test_the_doc_lists_every_observation_block() -> None:
    rows = re.findall(r"^\| (\d+)–(\d*) \| `(\w+)` \|", DOC.read_text(), re.MULTILINE)
    # the rule block, last, is as long as RuleSet has entries: open-ended in the doc
    assert [(name, int(a), int(b) + 1 if b else OBS_SIZE) for a, b, name in rows] == \
        [(name, s.start, s.stop) for name, s in OBS_LAYOUT.items()]
    assert "float32[OBS_SIZE]" in DOC.read_text()
    assert f"({N_ACTIONS:,} indexes" in DOC.read_text()


@pytest.mark.parametrize("needle", ["baohuang_v0.env(", "BaohuangGymEnv(", "rlcard.make(",
                                    "pyspiel.load_game("])
def test_the_doc_examples_run(needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
    # (the training examples take minutes: test_trainers.py runs them scaled down)
    [code] = [b for b in blocks if needle in b and not any(
        trainer in b for trainer in ("MaskablePPO(", "DMCTrainer("))]
    assert len(code.strip().splitlines()) <= 12
    exec(compile(code, str(DOC), "exec"), {})
    assert capsys.readouterr().out.strip()
