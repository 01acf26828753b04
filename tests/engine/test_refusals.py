"""Why a selection may not be played, and a deck's counts: said by the engine once
(``engine/refusals.py``), in both languages, and true to the engine's own rules."""

from __future__ import annotations

import random
import re

import pytest
from helpers import QUICK

import baohuang as bh
from baohuang.bots import make_bot
from baohuang.engine.refusals import REFUSAL_TEXTS, Refusal, deck_counts, refusal

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("why", list(Refusal))
def test_every_refusal_has_a_text_in_both_languages(why: Refusal) -> None:
    zh, en = REFUSAL_TEXTS[why]
    assert CJK.search(zh) and not CJK.search(en) and en.isascii()
    # a parameter is in both texts or in neither
    assert re.findall(r"\{(\w+)\}", zh) == re.findall(r"\{(\w+)\}", en)


@pytest.mark.parametrize("deck", list(bh.engine.cards.Deck))
def test_deck_counts_are_the_decks_cards_by_rank(deck: bh.engine.cards.Deck) -> None:
    counts = deck_counts(deck)
    cards = bh.make_deck(deck)
    assert sum(counts.values()) == len(cards)
    assert counts == {int(r): sum(c.rank == r for c in cards) for r in {c.rank for c in cards}}
    assert list(counts) == sorted(counts, reverse=True)


def test_a_refusal_is_given_exactly_when_the_engine_refuses_the_play() -> None:
    """Over real games and options: a selection is refused (with a reason) if and only if
    the engine refuses to apply it, and the reasons say what is wrong."""
    rng = random.Random(3)
    said: set[Refusal] = set()
    variants = [("shandong", {}), ("lianzhong_classic", {}), ("wurenju", {}),
                ("shandong", {"kaopai": True, "hold_sixes": True}),
                ("shandong", {"jokers_with_twos": True})]
    for n, (preset, options) in enumerate(variants * (1 if QUICK else 2)):   # (make check: once)
        game = bh.Game.new(bh.RuleSet.preset(preset).replace(**options), seed=200 + n)
        bots = [make_bot("random", seed=n * 5 + s) for s in range(5)]
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            view = game.view(seat)
            if game.stage is bh.Stage.PLAY:
                hand = [str(c) for c in view.hand]
                for _ in range(3):
                    selection = rng.sample(hand, rng.randint(1, min(len(hand), 6)))
                    trial = game.copy()
                    try:
                        trial.apply(bh.Action(bh.ActionKind.PLAY,
                                              tuple(bh.parse_cards(selection))))
                        accepted = True
                    except bh.IllegalAction:
                        accepted = False
                    why = refusal(view, selection)
                    assert (why is None) == accepted, (selection, why, view.last_play)
                    if why is not None:
                        said.add(why[0])
                        assert why[0] is not Refusal.NOT_TURN
                        if why[0] is Refusal.COUNT:
                            assert view.last_play is not None
                            assert why[1] == {"n": len(view.last_play.cards)}
                other = game.view((seat + 1) % 5)
                assert refusal(other, hand[:1]) == (Refusal.NOT_TURN, {})
                assert refusal(view, []) == (Refusal.EMPTY, {})
            game.apply(bots[seat].choose(view, game.legal_actions()))
    assert {Refusal.MIXED, Refusal.COUNT, Refusal.NOT_BEAT, Refusal.SIX} <= said
