"""What a client makes of the server's messages: merging each update's changed
fields and events into the view it has, as ``baohuang.client`` does, and building a ``View`` from
it with the fields it kept from its last decision, gives exactly the engine's view of
its seat — at every decision of whole games, in every preset."""

from __future__ import annotations

import json
import random
from dataclasses import fields
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import baohuang as bh
from baohuang.client import Kept, view_from_dict
from baohuang.server.wire import render

PRESETS = sorted(bh.PRESETS)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), preset=st.sampled_from(PRESETS))
def test_a_clients_merged_view_is_the_engines_view(seed: int, preset: str) -> None:
    game = bh.Game.new(bh.RuleSet.preset(preset), seed=seed)
    rng = random.Random(seed)
    seats: list[int | None] = [0, 1, 2, 3, 4]
    sent: list[render.Parts | None] = [game.view_update(s, 0)[:2] for s in range(5)]
    # each client's view as received: the snapshot, then every event's changes
    views = [json.loads(json.dumps(render.snapshot(game, s, base=0, index=0).view))
             for s in range(5)]
    kept: list[Kept] = [{} for _ in range(5)]
    decisions = 0
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        made = view_from_dict(views[seat], kept[seat])
        assert made == game.view(seat)
        decisions += 1
        before = game.version
        game.apply(rng.choice(game.legal_actions()))
        texts = render.broadcast(game, seats, sent, base=0, index=0, since=before)
        assert len(texts) == len(seats)          # one update a seat
        for s, text in enumerate(texts):
            message: dict[str, Any] = json.loads(text)
            assert (message["since"], message["version"]) == (before, game.version)
            views[s].update(message["view"])
            views[s]["events"].extend(message["events"])
    assert decisions > 0
    for s in range(5):
        assert view_from_dict(views[s], kept[s]) == game.view(s)


def test_a_receiver_with_no_view_yet_is_sent_every_field_of_view_but_the_events() -> None:
    # (the server's field lists come from the View class: a new field is sent too)
    game = bh.Game.new(seed=5)
    parts = game.view_update(game.to_act, 0)[:2]
    sent = json.loads(render.view_changes(parts, None))
    assert sorted(sent) == sorted(f.name for f in fields(bh.View) if f.name != "events")
    assert sent == {k: v for k, v in game.view(game.to_act).to_dict().items()
                    if k != "events"}
