"""Readers of events (bots, the terminal, the learned bot) read them typed: a view's
``seen()`` gives each event as that seat saw it — its kind, the seat where shown, the
payload classes of ``PAYLOADS`` and the seat's own private part — read back from the
JSON form the server sends, and nothing the JSON form does not hold."""

from __future__ import annotations

import random

import msgspec
import pytest
from helpers import examples
from hypothesis import given, settings
from hypothesis import strategies as st

import baohuang as bh
from baohuang.engine.events import PAYLOADS, Seen, seen_event
from baohuang.engine.views import VIEW_CODEC
from baohuang.engine.wire import event_from_json


@settings(max_examples=examples(12), deadline=None)
@given(seed=st.integers(0, 10_000), preset=st.sampled_from(list(bh.PRESETS)))
def test_every_seat_reads_the_events_it_was_shown_typed(seed: int, preset: str) -> None:
    game = bh.Game.new(bh.RuleSet.preset(preset), seed)
    rng = random.Random(seed)
    kept: dict[int | None, list[Seen]] = {}

    def check(seat: int | None) -> None:
        view = game.view(seat)
        seen = view.seen()
        assert seen[:len(kept.get(seat, []))] == kept.get(seat, [])   # read once, kept
        kept[seat] = seen
        assert len(seen) == len(view.events)
        for ev, data in zip(seen, view.events, strict=True):
            public, private = PAYLOADS[ev.kind]
            assert ev.kind.value == data["type"] and ev.seat == data.get("seat")
            assert type(ev.data) is (public or type(None))
            if ev.mine is not None:
                assert seat is not None and type(ev.mine) is private
                assert ev.mine == event_from_json(data, seat).private[seat]  # type: ignore[index]
        # a decoded view (what the Python client reads) gives the same
        assert VIEW_CODEC.decode(view.to_dict()).seen() == seen

    step = 0
    while not game.is_over:
        # (every seat's events are compared at every 7th move and at the end: comparing
        # the whole list at each move made the test quadratic, three minutes of the suite)
        if step % 7 == 0:
            for seat in (*range(5), None):
                check(seat)
        step += 1
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
    for seat in (*range(5), None):
        check(seat)
    # the private parts reach their seats only
    tribute_or_call = [ev for ev in game.view(None).seen() if ev.mine is not None]
    assert not tribute_or_call


def test_a_bad_event_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown event type"):
        seen_event({"type": "teleport", "seat": 1})
    with pytest.raises(msgspec.ValidationError):
        seen_event({"type": "play", "seat": 1, "cards": "9 9"})
    with pytest.raises(ValueError, match="bad seat"):
        seen_event({"type": "pass", "seat": "1"})
