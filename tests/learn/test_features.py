"""The action features say what the action is: for every legal action met in random
games of every preset, its kind, its cards per slot and its size come out of the
feature table at its index, and the hand after it is the hand less its cards."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import baohuang as bh
from baohuang.env.actions import legal_indexes
from baohuang.env.observation import SLOTS, observe
from baohuang.learn.features import ACTION_SIZE, ACTION_STATIC, action_table, inputs

PRESETS = sorted(bh.PRESETS)
KINDS = 14
CARDS = KINDS + 48


def slots_of(cards: tuple[bh.Card, ...]) -> list[int]:
    counts = [0] * SLOTS
    for card in cards:
        counts[int(card.rank) - 3] += 1
    return counts


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(PRESETS), st.integers(0, 2**31 - 1))
def test_features_describe_every_legal_action(preset: str, seed: int) -> None:
    rng = random.Random(seed)
    game = bh.Game.new(bh.RuleSet.preset(preset), seed=seed, dealer=seed % 5)
    table = action_table()
    for _ in range(400):
        if game.is_over:
            break
        seat = game.to_act
        assert seat is not None
        view, legal = game.view(seat), game.legal_actions()
        indexes = legal_indexes(view, legal)
        _, acts = inputs(observe(view), np.asarray(indexes))
        assert acts.shape == (len(legal), ACTION_SIZE)
        for action, index, row in zip(legal, indexes, acts, strict=True):
            static = table[index]
            assert static.sum() > 0 and static[:KINDS].sum() == 1
            if action.kind is bh.ActionKind.PLAY:
                assert static[KINDS - 1] == 1
                assert static[CARDS:CARDS + SLOTS].tolist() == slots_of(action.cards)
                assert static[ACTION_STATIC - 1] == len(action.cards)
                hand = slots_of(view.hand)
                after = [h - c for h, c in zip(hand, slots_of(action.cards), strict=True)]
                assert (row[ACTION_STATIC:] * 8).round().tolist() == after
            elif action.kind is bh.ActionKind.CALL:
                assert static[KINDS - 2] == 1 and static[KINDS:CARDS].sum() == 1
            else:
                assert static[CARDS:].sum() == 0
        game.apply(rng.choice(legal))
