"""Helpers for the engine and bot tests: find real deals by seed and drive
games with legal actions only; :func:`swapped` alone builds a state by hand (a
twin deal for the tests that a bot does not see hidden cards)."""

from __future__ import annotations

import copy
import json
import os
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest

import baohuang as bh
from baohuang import Action, ActionKind, Game, RuleSet, Stage
from baohuang.bots import Bot

A = ActionKind

#: The cautious answer of every role decision (docs/rules.md §6, §10), best first.
CAUTIOUS = (A.ACCEPT, A.DECLINE, A.GUARD_HIDDEN, A.SOLO_HIDDEN, A.CALL, A.ABDICATE)

Chooser = Callable[[Game], "ActionKind | Action | None"]


def rules(preset: str = "shandong", **options: Any) -> RuleSet:
    """A preset with some options changed."""
    return RuleSet.preset(preset).replace(**options)


def kinds(game: Game) -> list[ActionKind]:
    """The kinds of the legal actions, in order, without repeats."""
    out: list[ActionKind] = []
    for a in game.legal_actions():
        if a.kind not in out:
            out.append(a.kind)
    return out


def act(game: Game, kind: ActionKind, cards: Sequence[bh.Card] | None = None) -> Action:
    """Apply the first legal action of ``kind`` (with exactly ``cards`` if
    given); fails the test when there is none."""
    legal = game.legal_actions()
    for action in legal:
        if action.kind is kind and (cards is None or action.cards == tuple(cards)):
            game.apply(action)
            return action
    raise AssertionError(f"{kind.value} {cards or ''} is not legal for seat {game.to_act} "
                         f"in stage {game.stage.value}: {[str(a) for a in legal]}")


def cautious(game: Game) -> Action:
    """The default (托管) role answer among the legal actions."""
    legal = game.legal_actions()
    for kind in CAUTIOUS:
        for action in legal:
            if action.kind is kind:
                return action
    raise AssertionError(f"no cautious answer among {legal}")


def through_roles(game: Game, choose: Chooser | None = None, *, limit: int = 500) -> None:
    """Answer every role decision until play starts (or the game is over).
    ``choose(game)`` may return a kind or an action; ``None`` means the
    cautious answer."""
    for _ in range(limit):
        if game.stage in (Stage.PLAY, Stage.OVER):
            return
        choice = choose(game) if choose else None
        if choice is None:
            game.apply(cautious(game))
        elif isinstance(choice, Action):
            game.apply(choice)
        else:
            act(game, choice)
    raise AssertionError("the role phase did not end")


def find_game(rules: RuleSet, pred: Callable[[Game], bool], seeds: Iterable[int] = range(4000),
              ) -> Game:
    """The first freshly dealt game (by seed) for which ``pred`` holds."""
    for seed in seeds:
        game = Game.new(rules, seed)
        if pred(game):
            return game
    raise AssertionError("no seed gives the deal the test needs")


def deck_now(game: Game) -> Counter[bh.Card]:
    """The cards of the game: its deck, with the Guard's copy of the called card
    turned 特画 once that happened (``called_card_high``)."""
    deck = Counter(bh.make_deck(game.rules.deck))
    view = game.view(None)
    seen = [c for s in range(5) for c in game.hand(s)] + list(view.played)
    if bh.TEHUA_CARD in seen and view.called is not None:
        deck[view.called] -= 1
        deck[bh.TEHUA_CARD] += 1
    return deck


def hand_counter(game: Game, seat: int) -> Counter[bh.Card]:
    return Counter(game.hand(seat))


def triples(game: Game, seat: int) -> list[bh.Card]:
    """Cards (not jokers, not 2s) held exactly three times by ``seat``."""
    return [c for c, n in hand_counter(game, seat).items() if n == 3 and c.rank < bh.Rank.TWO]


def callable_cards(game: Game, seat: int) -> list[bh.Card]:
    return sorted(c for c, n in hand_counter(game, seat).items()
                  if n >= 3 and c.rank < bh.Rank.TWO)


def four_identical(game: Game, seat: int) -> bool:
    return any(n >= 4 and not c.is_joker for c, n in hand_counter(game, seat).items())


def jokers(game: Game, seat: int) -> int:
    return sum(1 for c in game.hand(seat) if c.is_joker)


def _size(action: Action) -> int:
    return len(action.cards)


def play_in_order(game: Game, order: Sequence[int], *, limit: int = 3000,
                  reveal: bool = True, until: Callable[[Game], bool] | None = None) -> None:
    """Play until the game ends (or ``until(game)`` holds) so that the seats
    of ``order`` go out in that order: the first of them not yet out plays as
    much as it can, everybody else leads its lowest single card and otherwise
    passes.  With ``reveal=False`` plays holding a revealing card are avoided
    when possible."""
    for _ in range(limit):
        if game.is_over or (until is not None and until(game)):
            return
        seat = game.to_act
        assert seat is not None
        view = game.view(seat)
        target = next((s for s in order if s not in view.out), None)
        legal = game.legal_actions()
        plays = [a for a in legal if a.kind is A.PLAY]
        if not reveal:
            safe = [a for a in plays if bh.GUARD_CARD not in a.cards
                    and (view.called is None or view.called not in a.cards
                         or seat != game.guard)]
            plays = safe or plays
        leading = view.last_play is None
        if seat == target:
            if plays:
                game.apply(max(plays, key=lambda a: (_size(a), -min(a.cards))))
            else:
                game.apply(Action(A.PASS))
        elif leading:
            singles = [a for a in plays if _size(a) == 1] or plays
            game.apply(min(singles, key=lambda a: (a.cards[0].rank, a.cards[0])))
        else:
            game.apply(Action(A.PASS))
    raise AssertionError("the game did not end")


def play_out(game: Game, bots: Sequence[Bot], *, limit: int = 3000) -> Game:
    """Play ``game`` to its end, each seat by its bot, checking that every choice is
    one of the legal actions; a game that has not ended after ``limit`` decisions
    fails the test."""
    for _ in range(limit):
        if game.is_over:
            return game
        seat = game.to_act
        assert seat is not None
        legal = game.legal_actions()
        action = bots[seat].choose(game.view(seat), legal)
        assert action in legal, (seat, action)
        game.apply(action)
    raise AssertionError(f"no end after {limit} decisions: {game.stage}, "
                         f"{game.view(None).events[-3:]}")


def snapshot(game: Game) -> str:
    """Everything observable about a game, as one JSON text: every seat's
    view, the spectator view, the legal actions and the record."""
    views = [game.view(s).to_dict() for s in (None, 0, 1, 2, 3, 4)]
    return json.dumps({"views": views, "legal": [a.to_dict() for a in game.legal_actions()],
                       "record": game.record(), "hands": [list(map(str, game.hand(s)))
                                                           for s in range(5)]},
                      sort_keys=True, ensure_ascii=False)




def actor(game: Game) -> int:
    """The seat to act (the game must not be over)."""
    seat = game.to_act
    assert seat is not None, "nobody is to act"
    return seat


def stage(game: Game) -> Stage:
    """The stage, read through a call so that type checkers do not keep a
    narrowed value across actions."""
    return game.stage


def random_state(rules: RuleSet, seed: int, steps: int) -> Game:
    """A game reached by ``steps`` random legal actions; the second game of a
    match once the first ends (so that tribute is covered)."""
    rng = random.Random(seed)
    match = bh.Match(rules, seed=seed, games=2)
    for _ in range(steps):
        if match.game.is_over:
            match.advance()
            if match.is_over:
                break
        legal = match.game.legal_actions()
        match.game.apply(legal[rng.randrange(len(legal))])
    if match.game.is_over and not match.is_over:
        match.advance()
    return match.game


def swapped(game: Game, viewer: int, rng: random.Random) -> Game | None:
    """A second deal that differs from ``game`` only in cards ``viewer``
    cannot see: two other seats swap one ordinary card each.  ``None`` when
    that is impossible or would show in the view."""
    st = copy.deepcopy(game._st)
    others = [s for s in range(5) if s != viewer and st.hands[s]]
    if len(others) < 2:
        return None
    a, b = rng.sample(others, 2)
    special = {bh.EMPEROR_CARD, bh.GUARD_CARD, st.called}
    ca = [c for c in st.hands[a] if c not in special and c >> 4 < 16]
    cb = [c for c in st.hands[b] if c not in special and c >> 4 < 16
          and ca and c >> 4 != ca[0] >> 4]
    if not ca or not cb:
        return None
    st.take(a, (ca[0],))
    st.take(b, (cb[0],))
    st.give(a, (cb[0],))
    st.give(b, (ca[0],))
    twin = Game(st)
    if twin.view(viewer).to_dict() != game.view(viewer).to_dict():
        return None
    assert twin.hand(a) != game.hand(a)
    return twin


def in_play(r: RuleSet, *, solo: str | None = None, guard_open: bool = False,
            seeds: range = range(4000)) -> Game:
    """A game in the play phase: 2 against 3 (Guard hidden unless
    ``guard_open``) or a solo of the given kind (``card`` guard mode)."""
    def pred(g: Game) -> bool:
        return (bh.GUARD_CARD in g.hand(actor(g))) == (solo is not None)
    game = find_game(r, pred, seeds)

    def choose(g: Game) -> ActionKind | None:
        if g.stage is Stage.GUARD:
            if solo is not None:
                return A.SOLO_OPEN if solo == "open" else A.SOLO_HIDDEN
            return A.GUARD_OPEN if guard_open else A.GUARD_HIDDEN
        return None
    through_roles(game, choose)
    assert game.solo == solo and stage(game) is Stage.PLAY
    return game


def rebels_of(game: Game) -> list[int]:
    return [s for s in range(5) if s not in (game.emperor, game.guard)]


def holder(game: Game, card: bh.Card) -> int:
    return next(s for s in range(5) if card in game.hand(s))


def event_types(game: Game) -> list[str]:
    return [e["type"] for e in game.events_for(None)]


def decline_until(game: Game, until: Stage) -> list[int]:
    """Answer ``decline`` (or the only legal answer) until ``until``; the seats asked."""
    asked = []
    while stage(game) is not until:
        asked.append(game.to_act)
        k = kinds(game)
        act(game, A.DECLINE if A.DECLINE in k else k[0])
    return [s for s in asked if s is not None]


def quick_first(values: Iterable[Any], ids: Callable[[Any], str] = str) -> list[Any]:
    """Parameters of a slow test: the first runs in every tier, the others are marked
    ``slow`` and run in ``make test`` only (``make check`` leaves them out)."""
    return [pytest.param(value, id=ids(value), marks=() if index == 0 else pytest.mark.slow)
            for index, value in enumerate(values)]


#: ``make check``'s quick tier (it sets BAOHUANG_QUICK=1): property tests try fewer
#: examples there; ``make test`` and a plain ``pytest`` try every one
QUICK = os.environ.get("BAOHUANG_QUICK") == "1"


def examples(n: int) -> int:
    """A property test's number of examples: ``n``, or a quarter of it (at least 3) in
    the quick tier."""
    return max(3, n // 4) if QUICK else n
