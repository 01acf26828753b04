"""The ``search`` bot and its rollout simulator."""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from typing import Any

import pytest
from helpers import play_out, random_state, swapped

import baohuang as bh
from baohuang import Action, ActionKind, Game, Stage, View
from baohuang.bots import Bot, SearchBot, hosted_action, make_bot
from baohuang.bots.hand_eval import rank_counts_of
from baohuang.bots.search.rollout import RolloutPolicy, Simulator
from baohuang.bots.search.sampler import DealSampler
from baohuang.bots.search.search import PLAY_ROLES, SEARCHED_ROLES, play_role
from baohuang.bots.search.worlds import RoleFacts
from baohuang.engine.events import Lead
from baohuang.engine.moves import materialize
from baohuang.engine.plays import Shape, classify
from baohuang.engine.scoring import SoloKind

A = ActionKind
PRESETS = list(bh.PRESETS)
VARIANTS: list[dict[str, Any]] = [
    {}, {"hold_sixes": True}, {"kaopai": True}, {"jokers_with_twos": True},
    {"lead_after_out": "next"}, {"lead_after_out": "apply"}]


def revealing(view: bh.View) -> set[bh.Card]:
    cards = {bh.GUARD_CARD}
    if view.called is not None:
        cards.add(view.called)
    return cards


def shown(action: Action, view: bh.View) -> int:
    return sum(1 for c in action.cards if c in revealing(view))


@pytest.mark.parametrize("preset", PRESETS)
def test_search_returns_only_legal_actions(preset: str) -> None:
    bot = SearchBot(seed=3, iterations=12)
    decided = 0
    for i, options in enumerate(VARIANTS):
        rules = bh.RuleSet.preset(preset).replace(**options)
        for seed in range(4):
            for steps in (0, 2, 5, 9, 30, 90, 200, 320):
                game = random_state(rules, 100 * i + seed, steps)
                if game.is_over:
                    continue
                seat = game.to_act
                assert seat is not None
                view = game.view(seat)
                legal = game.legal_actions()
                action = bot.choose(view, legal)
                assert action in legal
                if action.kind is A.PLAY:
                    # a hidden seat never shows a revealing card it could have kept back
                    shape = classify(action.cards, rules)
                    same = [a for a in legal if a.kind is A.PLAY
                            and classify(a.cards, rules) == shape]
                    assert shown(action, view) == min(shown(a, view) for a in same)
                decided += 1
    assert decided > 100


def test_search_plays_whole_games_of_every_preset() -> None:
    for preset in PRESETS:
        game = Game.new(bh.RuleSet.preset(preset), seed=21)
        play_out(game, [SearchBot(seed=s, iterations=6) for s in range(5)])
        assert game.result is not None


def test_search_is_deterministic_for_a_seed_and_a_view() -> None:
    game = random_state(bh.RuleSet(), 8, 40)
    seat = game.to_act
    assert seat is not None
    view, legal = game.view(seat), game.legal_actions()
    first = SearchBot(seed=5, iterations=60)
    choices = {first.choose(view, legal), first.choose(view, legal),
               SearchBot(seed=5, iterations=60).choose(view, legal)}
    assert len(choices) == 1


def test_the_choice_does_not_depend_on_hidden_cards() -> None:
    rng = random.Random(4)
    compared = 0
    for preset in PRESETS:
        for seed in range(6):
            game = random_state(bh.RuleSet.preset(preset), seed, rng.randrange(5, 250))
            if game.is_over:
                continue
            seat = game.to_act
            assert seat is not None
            twin = swapped(game, seat, rng)
            if twin is None:
                continue
            legal = game.legal_actions()
            assert twin.legal_actions() == legal
            one = SearchBot(seed=1, iterations=40).choose(game.view(seat), legal)
            two = SearchBot(seed=1, iterations=40).choose(twin.view(seat), legal)
            assert one == two
            compared += 1
    assert compared >= 10


@pytest.mark.parametrize("preset", PRESETS)
def test_role_states_rebuilt_from_a_view_offer_the_same_choices(preset: str) -> None:
    """The role phase continued inside playouts starts from a state in which
    the seat to act has exactly its real legal actions."""
    rng = random.Random(2)
    rebuilt = 0
    for seed in range(120):
        if rebuilt >= 15:
            break
        game = random_state(bh.RuleSet.preset(preset), seed, rng.randrange(0, 12))
        if game.is_over or game.stage is Stage.PLAY:
            continue
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        world = DealSampler(view).sample(rng)
        rebuilt_game = RoleFacts.read(view).game(world, game.rules, seed)
        assert rebuilt_game is not None, (preset, seed, game.stage)
        assert rebuilt_game.legal_actions() == game.legal_actions()
        rebuilt += 1
    assert rebuilt >= 15


# -- the rollout simulator -------------------------------------------------------

def counts_of(game: Game, seat: int) -> list[int]:
    return rank_counts_of(game.hand(seat))


def solo_kind(game: Game) -> SoloKind | None:
    return "open" if game.solo == "open" else "hidden" if game.solo else None


def through_roles(game: Game, rng: random.Random) -> None:
    while game.stage is not Stage.PLAY and not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])


@pytest.mark.parametrize("options", VARIANTS)
def test_rollout_moves_are_legal_and_follow_the_engine(options: dict[str, Any]) -> None:
    """Driving a real game with the simulator's policy: every move is legal
    and the simulator's state and final scores match the engine's."""
    games = 0
    for preset in PRESETS:
        # the simulator counts the 特画 as a big joker: exact only without it
        rules = bh.RuleSet.preset(preset).replace(**options, called_card_high=False)
        sim = Simulator(rules)
        for seed in range(6):
            game = Game.new(rules, seed=seed)
            rng = random.Random(seed)
            through_roles(game, rng)
            if game.is_over:
                continue
            assert game.emperor is not None and game.guard is not None
            solo = solo_kind(game)
            ps = sim.opening([counts_of(game, s) for s in range(5)], game.emperor,
                             game.guard, solo)
            while not game.is_over:
                assert ps.to_act == game.to_act
                shape, ask = sim.choose(ps, rng)
                legal = game.legal_actions()
                if shape is None:
                    action = Action(A.ASK_LEAD if ask else A.PASS)
                else:
                    action = materialize(game._st, ps.to_act, [Shape(*shape)])[0]
                assert action in legal
                over = sim.play(ps, shape, ask_lead=ask)
                game.apply(action)
                assert over == game.is_over
                assert ps.out == list(game.view(None).out)
            result = game.result
            assert result is not None
            view = game.view(None)
            assert sim.scores(ps, guard_open=view.guard_open, rebels=view.rebels,
                              kicks=view.kicks) == result.scores
            games += 1
    assert games >= 15


def test_run_makes_the_same_moves_as_choose() -> None:
    rules = bh.RuleSet()
    sim = Simulator(rules, RolloutPolicy(save=0.5, wander=0.3))
    for seed in range(20):
        game = Game.new(rules, seed=seed)
        through_roles(game, random.Random(seed))
        assert game.emperor is not None and game.guard is not None
        solo = solo_kind(game)
        start = sim.opening([counts_of(game, s) for s in range(5)], game.emperor, game.guard,
                            solo)
        fast = start.copy()
        sim.run(fast, random.Random(seed))
        slow = start.copy()
        rng = random.Random(seed)
        while not sim.is_over(slow):
            shape, ask = sim.choose(slow, rng)
            sim.play(slow, shape, ask_lead=ask)
        assert fast.out == slow.out and fast.counts == slow.counts


def test_rollout_scores_are_zero_sum_in_the_shandong_table() -> None:
    rules = bh.RuleSet()
    sim = Simulator(rules)
    rng = random.Random(1)
    for seed in range(30):
        game = Game.new(rules, seed=seed)
        through_roles(game, rng)
        assert game.emperor is not None and game.guard is not None
        solo = solo_kind(game)
        state = sim.opening([counts_of(game, s) for s in range(5)], game.emperor,
                            game.guard, solo)
        assert sum(sim.finish(state, rng)) == 0
        assert state.out and all(state.sizes[s] == 0 for s in state.out)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="iterations"):
        SearchBot(iterations=0)
    with pytest.raises(ValueError, match="time_limit"):
        SearchBot(time_limit=0)
    with pytest.raises(ValueError, match="itself"):
        SearchBot(anchor="search")
    with pytest.raises(ValueError, match="unknown bot 'heuristics'"):
        SearchBot(anchor="heuristics")


def test_a_time_budget_is_honoured() -> None:
    game = random_state(bh.RuleSet(), 3, 60)
    seat = game.to_act
    assert seat is not None
    bot = SearchBot(seed=1, time_limit=0.05)
    legal = game.legal_actions()
    assert bot.choose(game.view(seat), legal) in legal


# -- a quick strength check -------------------------------------------------------------

def play(rules: bh.RuleSet, seed: int, bots: Sequence[Bot]) -> tuple[int, ...]:
    game = Game.new(rules, seed=seed)
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        game.apply(bots[seat].choose(game.view(seat), game.legal_actions()))
    assert game.result is not None
    return game.result.scores


def test_search_beats_hosted_on_the_same_deals() -> None:
    """Duplicate comparison: the search bot in a seat against four 托管
    players, minus what 托管 scored in that seat of the same deal."""
    rules = bh.RuleSet()
    diffs = []
    for deal in range(12):
        base = play(rules, deal, [make_bot("hosted", s) for s in range(5)])
        for seat in (deal % 5, (deal + 2) % 5):
            bots: list[Bot] = [make_bot("hosted", s) for s in range(5)]
            bots[seat] = SearchBot(seed=seat, iterations=30, anchor=None)
            diffs.append(play(rules, deal, bots)[seat] - base[seat])
    assert statistics.mean(diffs) > 0, diffs


def test_the_anchor_answer_stands_unless_beaten_clearly() -> None:
    """With an unreachable confidence bar the search returns exactly what
    its anchor bot would."""
    rng = random.Random(6)
    for preset in PRESETS:
        for seed in range(5):
            game = random_state(bh.RuleSet.preset(preset), seed, rng.randrange(0, 200))
            if game.is_over:
                continue
            seat = game.to_act
            assert seat is not None
            view, legal = game.view(seat), game.legal_actions()
            bot = SearchBot(seed=2, iterations=40, anchor="hosted", z=1e9)
            assert bot.choose(view, legal) == hosted_action(view, legal)



def role_states(count: int) -> list[tuple[bh.View, list[Action]]]:
    """Role-phase decisions with a choice, from games of every preset."""
    out: list[tuple[bh.View, list[Action]]] = []
    for preset in PRESETS:
        for seed in range(40):
            game = Game.new(bh.RuleSet.preset(preset), seed=seed)
            while game.stage is not Stage.PLAY and not game.is_over:
                seat = game.to_act
                assert seat is not None
                view, legal = game.view(seat), game.legal_actions()
                if len(legal) > 1:
                    out.append((view, legal))
                game.apply(make_bot("heuristic", seat).choose(view, legal))
            if len(out) >= count:
                return out
    return out


def test_role_decisions_are_the_anchors_unless_role_search_is_asked() -> None:
    states = role_states(12)
    assert len({v.stage for v, _ in states}) >= 2
    searched = 0
    for view, legal in states:
        anchor = make_bot("heuristic", 4).choose(view, legal)
        bot = SearchBot(seed=4, iterations=60)
        assert bot.choose(view, legal) == anchor
        assert bot.last_playouts == 0
        deep = SearchBot(seed=4, iterations=60, role_search=True)
        assert deep.choose(view, legal) in legal
        searched += deep.last_playouts > 0
        unanchored = SearchBot(seed=4, iterations=60, anchor=None)
        assert unanchored.choose(view, legal) == hosted_action(view, legal)
    assert searched == len(states)


def test_early_stop_keeps_the_anchors_answer_and_saves_playouts() -> None:
    rng = random.Random(8)
    saved = 0
    for seed in range(6):
        game = random_state(bh.RuleSet(), seed, rng.randrange(60, 160))
        if game.is_over or game.stage is not Stage.PLAY:
            continue
        seat = game.to_act
        assert seat is not None
        view, legal = game.view(seat), game.legal_actions()
        if len(legal) < 3:
            continue
        full = SearchBot(seed=1, iterations=200)
        full.choose(view, legal)
        # a bar no arm can pass: the search ends after its first round
        quick = SearchBot(seed=1, iterations=200, stop=-1e9)
        assert quick.choose(view, legal) == make_bot("heuristic", 1).choose(view, legal)
        assert quick.last_playouts <= full.last_playouts
        saved += quick.last_playouts < full.last_playouts
    assert saved > 0


def play_views_by_role(each: int) -> dict[str, list[tuple[View, list[Action]]]]:
    """Up to ``each`` play-phase decisions with a choice of three or more, for every
    role of :data:`PLAY_ROLES`, from games of heuristic bots."""
    found: dict[str, list[tuple[View, list[Action]]]] = {role: [] for role in PLAY_ROLES}
    for seed in range(80):
        game = Game.new(bh.RuleSet(), seed=seed)
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            view, legal = game.view(seat), game.legal_actions()
            role = play_role(view)
            if (game.stage is Stage.PLAY and len(legal) > 2 and role is not None
                    and len(found[role]) < each):
                found[role].append((view, legal))
            game.apply(make_bot("heuristic", seat).choose(view, legal))
        if all(len(views) >= each for views in found.values()):
            break
    return found


def test_only_the_play_of_the_searched_roles_is_searched() -> None:
    """By default every role's play but a solo Emperor's (独保) is searched; a
    rebel-only search (the expert level's choice) plays the anchor's move as
    Emperor and Guard, without a playout."""
    found = play_views_by_role(3)
    assert all(found.values()), {role: len(views) for role, views in found.items()}
    for searched in (SEARCHED_ROLES, SEARCHED_ROLES | {"solo"}, frozenset({"rebel"})):
        for role, views in found.items():
            for view, legal in views:
                bot = SearchBot(seed=3, iterations=40, play_roles=searched)
                choice = bot.choose(view, legal)
                if role in searched:
                    assert bot.last_playouts > 0 and choice in legal
                else:
                    assert choice == make_bot("heuristic", 3).choose(view, legal)
                    assert bot.last_playouts == 0
    with pytest.raises(ValueError, match="unknown role bishop in play_roles"):
        SearchBot(play_roles={"rebel", "bishop"})


def test_rollout_leads_after_out_as_the_engine_when_nobody_asks() -> None:
    """Under ``lead_after_out=apply`` with nobody asking (申请接风), the lead after a
    player went out goes where the engine sends it (his teammate): the simulator
    takes the round's flow from the engine's own functions."""
    rules = bh.RuleSet.preset("seed001_216").replace(called_card_high=False)
    sim = Simulator(rules)
    handed_on = 0
    for seed in range(12):
        game = Game.new(rules, seed=seed)
        rng = random.Random(seed)
        through_roles(game, rng)
        if game.is_over:
            continue
        assert game.emperor is not None and game.guard is not None
        ps = sim.opening([counts_of(game, s) for s in range(5)], game.emperor, game.guard,
                         solo_kind(game))
        while not game.is_over:
            assert ps.to_act == game.to_act
            shape, _ = sim.choose(ps, rng)
            if shape is None:
                action = Action(A.PASS)
            else:
                action = materialize(game._st, ps.to_act, [Shape(*shape)])[0]
            before = len(game.view(None).events)
            sim.play(ps, shape)
            game.apply(action)
            handed_on += any(ev.data == Lead("lead_after_out")
                             for ev in game.view(None).seen()[before:])
    assert handed_on >= 3
