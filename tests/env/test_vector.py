"""The batch API: ``VectorEnv``'s stacked observations, masks, rewards and resets are
those of single PettingZoo environments stepped with the same actions and seeds, and
each observation is the one made from the seat's view from scratch."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import baohuang as bh
from baohuang.env import VectorEnv, baohuang_v0
from baohuang.env.actions import N_ACTIONS, IllegalActionIndex
from baohuang.env.observation import OBS_SIZE, observe

# every preset, and the options that change plays and reveals (烤牌, 憋6, 特画)
RULES = [*bh.PRESETS.values(),
         bh.PRESETS["wurenju"].replace(kaopai=True, hold_sixes=True),
         bh.PRESETS["lianzhong_classic"].replace(called_card_high=True, kaopai=True)]


def lockstep(rules: bh.RuleSet, n: int, seed: int, steps: int, pick: int) -> int:
    """Step a batch of ``n`` and ``n`` single environments side by side with the same
    random legal actions, comparing every row; the games that ended."""
    envs = VectorEnv(n, rules)
    obs, info = envs.reset(seed=seed)
    singles = [baohuang_v0.raw_env(rules) for _ in range(n)]
    for i, single in enumerate(singles):
        single.reset(seed=seed + i)
    rng = random.Random(pick)
    ended = 0
    for _ in range(steps):
        actions = []
        for i, single in enumerate(singles):
            agent = single.agent_selection
            assert agent == f"player_{info['to_act'][i]}"
            seen = single.observe(agent)
            assert np.array_equal(seen["observation"], obs["observation"][i])
            # (both made from view values: also the same as from the view, from scratch)
            fresh = observe(single.game.view(int(info["to_act"][i])))
            assert np.array_equal(fresh, obs["observation"][i])
            assert np.array_equal(seen["action_mask"], obs["action_mask"][i])
            legal = single.legal_indexes()
            assert envs.legal_indexes()[i] == legal
            actions.append(legal[rng.randrange(len(legal))])
        obs, rewards, terminations, truncations, info = envs.step(np.array(actions))
        assert not truncations.any()
        for i, single in enumerate(singles):
            single.step(actions[i])
            if terminations[i]:
                ended += 1
                assert single.terminations[single.agent_selection]
                assert rewards[i].tolist() == [single.rewards[a] for a in single.possible_agents]
                single.reset()                   # the next deal, as the batch deals it
            else:
                assert not rewards[i].any()
    return ended


@pytest.mark.parametrize("rules", RULES, ids=lambda r: str(RULES.index(r)))
def test_the_batch_is_single_environments_side_by_side(rules: bh.RuleSet) -> None:
    assert lockstep(rules, 3, seed=7, steps=700, pick=1) >= 3   # past a reset or more


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, len(RULES) - 1), seed=st.integers(0, 2**20),
       pick=st.integers(0, 2**20))
def test_the_batch_agrees_on_random_games(which: int, seed: int, pick: int) -> None:
    lockstep(RULES[which], 2, seed, steps=300, pick=pick)


def test_shapes_and_an_illegal_index() -> None:
    envs = VectorEnv(4, "shandong", kaopai=True)
    obs, _ = envs.reset(seed=0)
    assert obs["observation"].shape == (4, OBS_SIZE)
    assert obs["observation"].dtype == np.float32
    assert obs["action_mask"].shape == (4, N_ACTIONS) and obs["action_mask"].dtype == np.int8
    assert obs["action_mask"].sum(axis=1).tolist() == [len(x) for x in envs.legal_indexes()]
    assert envs.observation_space.contains(obs) and envs.num_envs == 4
    assert envs.action_space.contains(np.array([x[0] for x in envs.legal_indexes()]))
    first = [legal[0] for legal in envs.legal_indexes()]
    with pytest.raises(ValueError, match="4 actions wanted"):
        envs.step(first[:3])
    wrong = list(first)
    wrong[2] = 10                                 # a pass where nobody may pass
    with pytest.raises(IllegalActionIndex, match=r"action index 10 \(pass\) is not legal"):
        envs.step(wrong)
    with pytest.raises(ValueError, match="at least one game"):
        VectorEnv(0)


def test_same_seed_same_games() -> None:
    def run(seed: int) -> list[list[float]]:
        envs = VectorEnv(2, "wurenju")
        obs, _ = envs.reset(seed=seed)
        rng = random.Random(0)
        seen = []
        for _ in range(50):
            obs, *_ = envs.step([x[rng.randrange(len(x))] for x in envs.legal_indexes()])
            seen.append(obs["observation"].sum(axis=1).tolist())
        return seen
    assert run(3) == run(3) != run(4)


def test_the_doc_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    doc = Path(__file__).parents[2] / "docs" / "rl.md"
    blocks = re.findall(r"```python\n(.*?)```", doc.read_text(), re.DOTALL)
    [code] = [b for b in blocks if "VectorEnv(" in b]
    assert len(code.strip().splitlines()) <= 12
    exec(compile(code, str(doc), "exec"), {})
    assert f"(16, {OBS_SIZE}) (16, 29379)" in capsys.readouterr().out
