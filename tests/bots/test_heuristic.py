"""The ``heuristic`` bot: legal, fair (view only), sensible, and better than 托管."""

from __future__ import annotations

import random
import statistics
from collections.abc import Iterator
from typing import Any

import pytest
from helpers import swapped

import baohuang as bh
from baohuang import Action, ActionKind, Game, Stage
from baohuang.bots import HeuristicBot, make_bot
from baohuang.bots.hand_eval import Table, hand_strength, shape_of
from baohuang.bots.heuristic import Params, partner_probabilities

A = ActionKind
PRESETS = list(bh.PRESETS)
VARIANTS: list[tuple[str, dict[str, Any]]] = [
    *((p, {}) for p in PRESETS),
    ("shandong", {"hold_sixes": True}),
    ("shandong", {"kaopai": True, "lead_after_out": "next"}),
    ("lianzhong_classic", {"kaopai": True, "hold_sixes": True, "jokers_with_twos": True}),
    ("lianzhong_simple", {"forced_call": True, "lead_after_out": "apply"}),
    ("seed001_216", {"abdication": "to_prev_with_two"}),
    ("shandong", {"abdication": "none"}),
]


def mixed_game(rules: bh.RuleSet, seed: int) -> Iterator[tuple[Game, list[str]]]:
    """Every state of a game in which heuristic, hosted and random bots
    (chosen by ``seed``) take turns; yields before each decision."""
    rng = random.Random(seed)
    names = [rng.choice(("heuristic", "heuristic", "hosted", "random")) for _ in range(5)]
    bots = [make_bot(n, seed=s) for s, n in enumerate(names)]
    game = Game.new(rules, seed=seed)
    while not game.is_over:
        yield game, names
        seat = game.to_act
        assert seat is not None
        game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))


def revealing(view: bh.View) -> set[bh.Card]:
    return {bh.GUARD_CARD} | ({view.called} if view.called is not None else set())


@pytest.mark.parametrize(("preset", "options"), VARIANTS)
def test_only_legal_actions_in_every_preset(preset: str, options: dict[str, Any]) -> None:
    rules = bh.RuleSet.preset(preset).replace(**options)
    bot = HeuristicBot(seed=1)
    decided = 0
    stages: set[Stage] = set()
    for seed in range(8):
        for game, _ in mixed_game(rules, seed):
            seat = game.to_act
            assert seat is not None
            view, legal = game.view(seat), game.legal_actions()
            action = bot.choose(view, legal)
            assert action in legal, (str(action), [str(a) for a in legal])
            stages.add(game.stage)
            decided += 1
    assert decided > 500
    assert Stage.PLAY in stages and len(stages) >= 3


def test_refuses_an_empty_choice() -> None:
    game = Game.new(seed=1)
    with pytest.raises(ValueError, match="no legal action"):
        HeuristicBot().choose(game.view(0), [])


def test_the_choice_does_not_depend_on_hidden_cards() -> None:
    rng = random.Random(7)
    compared = 0
    for preset in PRESETS:
        for seed in range(10):
            stop = rng.randrange(0, 160)
            for i, (game, _) in enumerate(mixed_game(bh.RuleSet.preset(preset), seed)):
                if i < stop:
                    continue
                seat = game.to_act
                assert seat is not None
                twin = swapped(game, seat, rng)
                if twin is None:
                    break
                legal = game.legal_actions()
                assert twin.legal_actions() == legal
                one = HeuristicBot(seed=1).choose(game.view(seat), legal)
                two = HeuristicBot(seed=2).choose(twin.view(seat), twin.legal_actions())
                assert one == two
                compared += 1
                break
    assert compared >= 20


def test_equal_views_give_equal_actions() -> None:
    for game, _ in mixed_game(bh.RuleSet(), 5):
        seat = game.to_act
        assert seat is not None
        bot = HeuristicBot(seed=3)
        view = game.view(seat)
        legal = game.legal_actions()
        first = bot.choose(view, legal)
        assert bot.choose(view, legal) == first
        assert HeuristicBot(seed=99).choose(game.view(seat), list(legal)) == first


def heuristic_states(preset: str, seeds: range, **options: Any
                     ) -> Iterator[tuple[Game, bh.View, list[Action], Action]]:
    """Play-phase decisions of all-heuristic games: (game, view, legal, choice)."""
    rules = bh.RuleSet.preset(preset).replace(**options)
    bots = [HeuristicBot(seed=s) for s in range(5)]
    for seed in seeds:
        game = Game.new(rules, seed=seed)
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            view, legal = game.view(seat), game.legal_actions()
            action = bots[seat].choose(view, legal)
            if game.stage is Stage.PLAY:
                yield game, view, legal, action
            game.apply(action)


def test_goes_out_whenever_it_can() -> None:
    seen = 0
    for _, view, legal, action in heuristic_states("shandong", range(12)):
        if any(a.kind is A.PLAY and len(a.cards) == len(view.hand) for a in legal):
            assert len(action.cards) == len(view.hand)
            seen += 1
    assert seen >= 12


def test_the_guard_seldom_beats_the_emperor() -> None:
    """The Guard beats the Emperor's play only to go out or to take over a
    play the rebels after him would beat anyway (cheaply) — seldom."""
    chances = beaten = 0
    for _, view, _, action in heuristic_states("shandong", range(20)):
        if view.role != "guard" or view.solo or view.last_play is None:
            continue
        if view.last_play[0] == view.emperor:
            chances += 1
            if action.kind is A.PLAY and len(action.cards) < len(view.hand):
                beaten += 1
    assert chances > 50
    assert beaten <= 0.2 * chances


def test_a_hidden_guard_keeps_back_revealing_cards() -> None:
    checked = 0
    for preset in ("shandong", "lianzhong_classic"):
        for _, view, legal, action in heuristic_states(preset, range(10)):
            if view.role != "guard" or action.kind is not A.PLAY:
                continue
            if len(action.cards) == len(view.hand):
                continue
            special = revealing(view)
            shown = sum(1 for c in action.cards if c in special)
            same = [a for a in legal if a.kind is A.PLAY
                    and shape_of(a.cards) == shape_of(action.cards)]
            assert shown == min(sum(1 for c in a.cards if c in special) for a in same)
            checked += 1
    assert checked > 50


def test_sixes_are_kept_for_the_last_play() -> None:
    for _, view, _, action in heuristic_states("shandong", range(4), hold_sixes=True):
        if action.kind is A.PLAY and any(c >> 4 == 6 for c in action.cards):
            assert len(action.cards) == len(view.hand)


def test_partners_are_judged_from_the_view() -> None:
    for game, view, _, _ in heuristic_states("shandong", range(3)):
        probs = partner_probabilities(view)
        assert view.seat is not None
        assert probs[view.seat] == 1.0
        assert view.emperor is not None
        if view.role == "guard" and not game.solo:
            assert probs[view.emperor] == 1.0
        if view.role == "rebel":
            assert probs[view.emperor] == 0.0


def test_hand_strength_orders_hands() -> None:
    rules = bh.RuleSet()
    strong = bh.parse_cards("BJ BJ BJ SJ SJ 2 2 2 2 A A A A A K K K K K Q Q Q Q Q J J J J J")
    weak = bh.parse_cards("6 6 7 7 7 8 8 9 9 9 10 10 J J Q Q K 7 8 9 10 J Q 6 7 8 9 10 J")
    assert hand_strength(strong, rules) > Params().open_solo > Params().emperor
    assert hand_strength(weak, rules) < hand_strength(strong, rules) - 5


def test_role_decisions_follow_the_strength_of_the_hand() -> None:
    """Each role decision is a threshold on the strength of the hand: the
    stronger hands say yes (accept a solo, 明保, 造反, 踢, 抢独)."""
    answers: dict[tuple[Stage, frozenset[ActionKind]], list[tuple[float, bool]]] = {}
    yes = {A.ACCEPT, A.SOLO_OPEN, A.STEAL, A.GUARD_OPEN, A.REBEL, A.KICK}
    for seed in range(150):
        game = Game.new(bh.RuleSet(), seed=seed)
        bot = HeuristicBot()
        while game.stage is not Stage.PLAY and not game.is_over:
            seat = game.to_act
            assert seat is not None
            view, legal = game.view(seat), game.legal_actions()
            action = bot.choose(view, legal)
            if len(legal) > 1:
                strength = hand_strength(view.hand, game.rules)
                key = (game.stage, frozenset(a.kind for a in legal))
                answers.setdefault(key, []).append((strength, action.kind in yes))
            game.apply(action)
    stages = {stage for stage, _ in answers}
    assert {Stage.EMPEROR_SOLO, Stage.STEAL, Stage.GUARD, Stage.REBELLION} <= stages
    for (stage, _), pairs in answers.items():
        said_yes = [s for s, y in pairs if y]
        said_no = [s for s, y in pairs if not y]
        # 造反 also counts earlier votes, and 踢 depends on the side.
        if stage not in (Stage.REBELLION, Stage.KICK) and said_yes and said_no:
            assert min(said_yes) > max(said_no) - 0.5, stage


def test_calls_a_card_held_three_times() -> None:
    calls = 0
    for seed in range(30):
        game = Game.new(bh.RuleSet.preset("lianzhong_classic"), seed=seed)
        bot = HeuristicBot()
        while game.stage is not Stage.PLAY and not game.is_over:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            action = bot.choose(view, game.legal_actions())
            if action.kind is A.CALL:
                held = view.hand.count(action.cards[0])
                threes = [a for a in game.legal_actions()
                          if a.kind is A.CALL and view.hand.count(a.cards[0]) == 3]
                assert held == 3 or not threes or hand_strength(view.hand, game.rules) > -12
                calls += 1
            game.apply(action)
    assert calls >= 25


def test_a_table_prices_groups_by_the_unseen_cards() -> None:
    rules = bh.RuleSet()
    hand = bh.parse_cards("6 6 6 2 2 2 2")
    table = Table.for_hand(hand, rules)
    low, high = table.group_cost(6, 3), table.group_cost(15, 4)
    assert 0.0 <= high < low <= 1.0
    assert table.beaten(bh.Shape(0, 0, 0, 1)) == 0.0       # a big joker is never beaten


def test_beats_hosted_over_seeded_games() -> None:
    """One heuristic seat (rotating) against four 托管 bots: clearly ahead."""
    scores = []
    for i in range(100):
        seed, hero = 500 + i // 5, i % 5
        game = Game.new(bh.RuleSet(), seed=seed)
        bots = [HeuristicBot(seed=s) if s == hero else make_bot("hosted", s) for s in range(5)]
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
        assert game.result is not None
        scores.append(game.result.scores[hero])
    assert statistics.mean(scores) > 1.0
