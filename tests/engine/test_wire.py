"""The JSON form of views and events (baohuang/engine/wire.py): every field of a
``View`` and every event survives the trip to JSON text and back, in every preset;
the lists of fields come from the ``View`` class, so a field added to it is sent,
read and compared with no other list to edit."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import baohuang as bh
from baohuang.engine.events import PAYLOADS, EventKind
from baohuang.engine.views import (
    OWN_FIELDS,
    PUBLIC_FIELDS,
    VIEW_CODEC,
    Public,
    View,
    field_parts,
)
from baohuang.engine.wire import RecordCodec, event_from_json

PRESETS = sorted(bh.PRESETS)
SEATS: list[int | None] = [None, 0, 1, 2, 3, 4]


def _games(seed: int, preset: str) -> list[bh.Game]:
    """A random game of ``preset`` at each of its states."""
    game = bh.Game.new(bh.RuleSet.preset(preset), seed=seed)
    rng = random.Random(seed)
    states = [game]
    while not game.is_over:
        game = bh.Game.from_record(game.record())
        game.apply(rng.choice(game.legal_actions()))
        states.append(game)
    return states


@settings(max_examples=examples(10), deadline=None)
@given(seed=st.integers(0, 10_000), preset=st.sampled_from(PRESETS))
def test_every_view_field_comes_back_from_json_text(seed: int, preset: str) -> None:
    game = bh.Game.new(bh.RuleSet.preset(preset), seed=seed)
    rng = random.Random(seed)
    while True:
        for seat in SEATS:
            view = game.view(seat)
            back = VIEW_CODEC.decode(json.loads(json.dumps(view.to_dict())))
            for f in fields(View):                    # (a new field is checked too)
                assert getattr(back, f.name) == getattr(view, f.name), f.name
            assert back == view
        if game.is_over:
            break
        game.apply(rng.choice(game.legal_actions()))


def test_every_field_is_public_or_own() -> None:
    names = [f.name for f in fields(View)]
    assert sorted([*PUBLIC_FIELDS, *OWN_FIELDS, "events"]) == sorted(names)
    assert list(VIEW_CODEC.encoders) == names


@dataclass(frozen=True, slots=True)
class WiderView(View):
    """A view with two more fields, as a change to ``View`` would add them."""

    tricks_won: Public[tuple[int, ...]] = ()
    note: str | None = None


def test_a_new_field_needs_only_its_declaration_to_travel() -> None:
    public, own = field_parts(WiderView)
    assert public == (*PUBLIC_FIELDS, "tricks_won") and own == (*OWN_FIELDS, "note")
    codec = RecordCodec(WiderView, WiderView)
    view = bh.Game.new(seed=2).view(0)
    wider = WiderView(**{f.name: getattr(view, f.name) for f in fields(View)},
                      tricks_won=(1, 0, 2, 0, 0), note="托管")
    data = json.loads(json.dumps(codec.encode(wider), ensure_ascii=False))
    assert data["tricks_won"] == [1, 0, 2, 0, 0] and data["note"] == "托管"
    assert data["hand"] == [str(c) for c in view.hand]
    assert codec.decode(data) == wider


def test_a_field_of_a_type_without_a_json_form_is_refused_when_the_codec_is_made() -> None:
    @dataclass(frozen=True)
    class Odd:
        when: complex

    with pytest.raises(TypeError, match="no JSON form"):
        RecordCodec(Odd, Odd)


class _Trick(NamedTuple):
    seat: int
    cards: tuple[bh.Card, ...]


@dataclass(frozen=True)
class _EveryShape:
    """A record with a field of each type shape the codec knows."""

    card: bh.Card | None
    stage: bh.Stage
    stages: tuple[bh.Stage, ...]
    action: bh.Action
    actions: tuple[bh.Action, ...]
    counts: tuple[int, ...]
    options: dict[str, int]
    hands: dict[int, tuple[bh.Card, ...]]
    trick: _Trick | None
    tricks: tuple[_Trick, ...]


@given(seed=st.integers(0, 10_000))
def test_every_type_shape_comes_back_from_json_text(seed: int) -> None:
    rng = random.Random(seed)
    deck = bh.Game.new(seed=seed).view(0).hand
    cards = tuple(rng.sample(deck, 3))
    stages = tuple(rng.sample(list(bh.Stage), 3))
    legal = tuple(bh.Game.new(seed=seed).legal_actions())
    record = _EveryShape(
        card=rng.choice([None, cards[0]]), stage=stages[0], stages=stages,
        action=rng.choice(legal), actions=legal, counts=(seed % 7, 2), options={"a": seed},
        hands={rng.randrange(5): cards}, trick=rng.choice([None, _Trick(1, cards)]),
        tricks=(_Trick(2, cards[:1]), _Trick(4, ())))
    codec = RecordCodec(_EveryShape, _EveryShape)
    data = json.loads(json.dumps(codec.encode(record), ensure_ascii=False))
    assert codec.decode(data) == record


def test_a_kept_field_is_made_again_only_when_it_changed() -> None:
    game = bh.Game.new(seed=7)
    data: dict[str, Any] = game.view(game.to_act).to_dict()
    kept: dict[str, tuple[Any, Any]] = {}
    first = VIEW_CODEC.decode(data, kept)
    again = VIEW_CODEC.decode(data, kept)
    assert again.hand is first.hand and again.rules is first.rules
    data["hand"] = data["hand"][1:]                    # (a message changed the hand)
    assert VIEW_CODEC.decode(data, kept).hand == first.hand[1:]


@settings(max_examples=examples(10), deadline=None)
@given(seed=st.integers(0, 10_000), preset=st.sampled_from(PRESETS))
def test_every_event_comes_back_typed_from_its_json_form(seed: int, preset: str) -> None:
    game = _games(seed, preset)[-1]
    shown = game.replay_events()                # (every event, nothing hidden)
    for number, data in enumerate(shown):
        event = event_from_json(json.loads(json.dumps(data, ensure_ascii=False)))
        public, private = PAYLOADS[event.kind]
        assert event.data is None if public is None else type(event.data) is public
        assert not event.private or all(type(p) is private for p in event.private.values())
        assert event.for_seat(None, reveal_all=True) == data
        for seat in SEATS:
            seen = game.events_for(seat, number)[0]
            assert event.for_seat(seat) == seen
            assert event_from_json(seen, seat).for_seat(seat) == seen


def test_event_kinds_keep_their_wire_names() -> None:
    assert {kind.value for kind in EventKind} >= {
        "deal", "candidate", "play", "pass", "lead", "out", "over", "guard", "call"}
    assert all(json.dumps(kind) == json.dumps(kind.value) for kind in EventKind)
