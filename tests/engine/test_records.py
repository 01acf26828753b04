"""Records and replay (issue 2 §5), and illegal actions that change nothing."""

from __future__ import annotations

import copy
import json
import pickle
import random
from typing import Any

import pytest
from helpers import A, act, actor, find_game, rules, snapshot, stage, through_roles

import baohuang as bh
from baohuang import Action, ActionKind, Game, IllegalAction, Stage


def random_game(preset: str, seed: int, stop: int | None = None) -> Game:
    game = Game.new(rules(preset), seed)
    rng = random.Random(seed)
    n = 0
    while not game.is_over and (stop is None or n < stop):
        game.apply(rng.choice(game.legal_actions()))
        n += 1
    return game


@pytest.mark.parametrize("preset", list(bh.PRESETS))
def test_record_is_json_and_rebuilds_the_same_game(preset: str) -> None:
    game = random_game(preset, 21)
    record = game.record()
    text = json.dumps(record)
    again = Game.from_record(json.loads(text))
    assert snapshot(again) == snapshot(game)
    assert again.result == game.result and again.is_over
    assert again.replay_events() == game.replay_events()


@pytest.mark.parametrize("preset", list(bh.PRESETS))
def test_record_in_the_middle_of_a_game(preset: str) -> None:
    game = random_game(preset, 4, stop=40)
    again = Game.from_record(json.loads(json.dumps(game.record())))
    assert snapshot(again) == snapshot(game)
    # both go on identically
    rng = random.Random(1)
    while not game.is_over:
        action = rng.choice(game.legal_actions())
        game.apply(action)
        again.apply(action)
    assert again.result == game.result
    assert game.copy().record() == game.record()


@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copied_game_plays_on_alone(how: str) -> None:
    # OpenSpiel clones states with copy.deepcopy; RL tools pickle environments
    game = random_game("shandong", 8, stop=30)
    twin = copy.deepcopy(game) if how == "deepcopy" else pickle.loads(pickle.dumps(game))
    assert snapshot(twin) == snapshot(game) and twin.record() == game.record()
    rng = random.Random(3)
    while not twin.is_over:
        twin.apply(rng.choice(twin.legal_actions()))
    assert len(game.record()["actions"]) == 30 and not game.is_over
    rng = random.Random(3)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    assert game.result == twin.result and game.replay_events() == twin.replay_events()


def test_same_seed_and_actions_give_the_same_game() -> None:
    a, b = random_game("shandong", 77), random_game("shandong", 77)
    assert snapshot(a) == snapshot(b)
    assert a.record() == b.record()


def test_a_match_with_tribute_replays_game_by_game() -> None:
    match = bh.Match(rules("seed001_216"), seed=2, games=3)
    rng = random.Random(2)
    while not match.is_over:
        match.game.apply(rng.choice(match.game.legal_actions()))
        match.advance()
    record = json.loads(json.dumps(match.record()))
    assert len(record["records"]) == 3
    with_tribute = [r for r in record["records"] if r["tribute"] is not None]
    assert with_tribute, "later games carry last game's tribute basis"
    for rec, result in zip(record["records"], match.results, strict=True):
        game = Game.from_record(rec)
        assert game.result == result
        assert game.record() == rec


def _record() -> dict[str, Any]:
    game = random_game("shandong", 3, stop=12)
    record: dict[str, Any] = json.loads(json.dumps(game.record()))
    return record


@pytest.mark.parametrize(("change", "words"), [
    (lambda r: [1, 2], "must be an object"),
    (lambda r: {**r, "version": 99}, "version"),
    (lambda r: {k: v for k, v in r.items() if k != "seed"}, "'seed'"),
    (lambda r: {**r, "seed": "x"}, "'seed'"),
    (lambda r: {**r, "dealer": 9}, "'dealer'"),
    (lambda r: {**r, "rules": "shandong"}, "'rules'"),
    (lambda r: {**r, "rules": {"kaopia": True}}, "kaopia"),
    (lambda r: {**r, "rules": {"deck": "tiny"}}, "deck"),
    (lambda r: {**r, "tribute": {"emperor": 0}}, "'tribute'"),
    (lambda r: {**r, "actions": "accept"}, "'actions'"),
    (lambda r: {**r, "actions": [{"kind": "dance"}]}, "action 0"),
    (lambda r: {**r, "actions": [*r["actions"][:2], {"kind": "play", "cards": ["Z"]}]},
     "action 2"),
    (lambda r: {**r, "actions": [*r["actions"], {"kind": "accept"}]}, "action 12"),
    (lambda r: {**r, "actions": [*r["actions"], "pass"]}, "action 12"),
])
def test_bad_records_are_named(change: Any, words: str) -> None:
    bad = change(_record())
    with pytest.raises(ValueError, match=words):
        Game.from_record(bad)


# -- illegal actions change nothing ---------------------------------------------------

ALL_SIMPLE = [Action(k) for k in ActionKind if k not in (A.PLAY, A.CALL, A.LEAVE)]


def _assert_illegal_everywhere_but(game: Game, legal: list[Action]) -> None:
    before = snapshot(game)
    tried = 0
    for action in ALL_SIMPLE:
        if action in legal:
            continue
        with pytest.raises(IllegalAction) as info:
            game.apply(action)
        assert info.value.reason
        tried += 1
        assert snapshot(game) == before
    assert tried


def test_out_of_turn_kinds_in_every_role_stage() -> None:
    seen = set()
    for preset in bh.PRESETS:
        for seed in range(6):
            game = Game.new(rules(preset), seed)
            rng = random.Random(seed)
            while game.stage is not Stage.PLAY and not game.is_over:
                legal = game.legal_actions()
                _assert_illegal_everywhere_but(game, legal)
                seen.add(game.stage)
                game.apply(rng.choice(legal))
    assert {Stage.EMPEROR, Stage.EMPEROR_SOLO, Stage.STEAL, Stage.CALL, Stage.GUARD} <= seen


def test_illegal_plays_change_nothing() -> None:
    game = find_game(rules(), lambda g: bh.GUARD_CARD not in g.hand(actor(g)))
    through_roles(game)
    e = actor(game)
    before = snapshot(game)
    others = {c for s in range(5) if s != e for c in game.hand(s)} - set(game.hand(e))
    plain = sorted(c for c in game.hand(e) if not c.is_joker)
    bad: list[Any] = [
        Action(A.PASS),                                      # passing when leading
        Action(A.ASK_LEAD),
        Action(A.PLAY, (sorted(others)[0],)),                # a card not held
        Action(A.PLAY, (plain[0], plain[-1])),               # two ranks
        Action(A.PLAY, ()),                                  # nothing
        Action(A.CALL, (plain[0],)),                         # a role action
        Action(A.KICK), Action(A.REBEL), Action(A.STEAL),
        Action(A.PLAY, tuple([plain[0]] * (game.hand(e).count(plain[0]) + 1))),
    ]
    for action in bad:
        with pytest.raises(IllegalAction):
            game.apply(action)
        assert snapshot(game) == before
    # not actions at all: a type error, as a compiled build's typed call says too
    not_actions: list[Any] = ["play 9", None, ("play", ())]
    for thing in not_actions:
        with pytest.raises(TypeError):
            game.apply(thing)
        assert snapshot(game) == before
    with pytest.raises(IllegalAction):
        game.apply(Action(A.LEAVE, seat=None))
    assert snapshot(game) == before


def test_role_phase_rejects_plays_and_calls_out_of_turn() -> None:
    game = Game.new(seed=0)
    before = snapshot(game)
    card = game.hand(actor(game))[0]
    for action in (Action(A.PLAY, (card,)), Action(A.CALL, (card,)), Action(A.PASS),
                   Action(A.ACCEPT, (), 3)):
        with pytest.raises(IllegalAction, match="not allowed now"):
            game.apply(action)
        assert snapshot(game) == before


def test_a_finished_game_takes_no_more_actions() -> None:
    game = random_game("shandong", 5)
    before = snapshot(game)
    for action in (Action(A.PASS), Action(A.LEAVE, seat=1), Action(A.ACCEPT)):
        with pytest.raises(IllegalAction, match="over"):
            game.apply(action)
    assert snapshot(game) == before and game.legal_actions() == []


def test_actions_read_and_write_as_text_and_dicts() -> None:
    for text in ("play BJ 9 9", "pass", "call 9h", "leave 3", "ask_lead", "accept"):
        action = Action.parse(text)
        assert str(action) == text
        assert Action.from_dict(json.loads(json.dumps(action.to_dict()))) == action
    for bad in ("", "dance", "play", "pass 9", "leave", "leave x", "play 9 Z"):
        with pytest.raises(bh.ActionParseError):
            Action.parse(bad)
    for raw in ({"kind": "play", "cards": "9"}, {"kind": "leave", "seat": True}, "pass"):
        with pytest.raises(bh.ActionParseError):
            Action.from_dict(raw)


def test_replay_events_show_everything_but_only_after_the_game() -> None:
    game = Game.new(rules("lianzhong_simple"), 8)
    first = actor(game)
    act(game, A.ABDICATE)
    act(game, A.ABDICATE)
    with pytest.raises(IllegalAction, match="in progress"):
        game.replay_events()
    rng = random.Random(8)
    while stage(game) is not Stage.OVER:
        game.apply(rng.choice(game.legal_actions()))
    events = game.replay_events()
    assert len(events) == len(game.events_for(None))
    passes = [e for e in events if e["type"] == "abdicate"][:2]
    assert [e["seat"] for e in passes] == [first, (first - 1) % 5]
    for ev in passes:
        assert set(ev["private"]) == {str(ev["seat"]), str(ev["to"])}
