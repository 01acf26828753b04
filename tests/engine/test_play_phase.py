"""The play phase (docs/rules.md §7): leading, soft passes, rounds, reveals,
接风 of every kind and leaving (the end of a game: test_game_end.py)."""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import (
    A,
    act,
    actor,
    find_game,
    in_play,
    kinds,
    play_in_order,
    rebels_of,
    rules,
    stage,
    through_roles,
)

import baohuang as bh
from baohuang import Action, Game, IllegalAction, Rank, Stage

SJ_STAR = bh.GUARD_CARD


def lead_events(game: Game) -> list[dict[str, object]]:
    return [e for e in game.events_for(None) if e["type"] == "lead"]


# -- leading and following --------------------------------------------------------

def test_the_emperor_leads_and_may_not_pass() -> None:
    game = in_play(rules())
    assert game.to_act == game.emperor
    assert A.PASS not in kinds(game) and kinds(game) == [A.PLAY]
    before = game.record()
    with pytest.raises(IllegalAction, match="leader must play"):
        game.apply(Action(A.PASS))
    assert game.record() == before


def test_a_follow_beats_the_last_play_with_as_many_cards() -> None:
    game = in_play(rules())
    lead = min((a for a in game.legal_actions() if len(a.cards) == 2),
               key=lambda a: a.cards[0].rank)
    game.apply(lead)
    legal = game.legal_actions()
    assert Action(A.PASS) in legal and A.ASK_LEAD not in kinds(game)
    for action in legal:
        if action.kind is A.PLAY:
            assert len(action.cards) == 2
            assert bh.beats(action.cards, lead.cards)


def test_soft_pass_and_the_end_of_a_round() -> None:
    game = find_game(rules(), lambda g: SJ_STAR not in g.hand(actor(g)))
    through_roles(game)
    e = actor(game)
    low = min((a for a in game.legal_actions() if len(a.cards) == 1),
              key=lambda a: a.cards[0])
    game.apply(low)
    act(game, A.PASS)                       # e+1 passes ...
    seat2 = actor(game)
    beat = next(a for a in game.legal_actions() if a.kind is A.PLAY)
    game.apply(beat)                        # ... e+2 beats
    act(game, A.PASS)                       # e+3
    act(game, A.PASS)                       # e+4
    act(game, A.PASS)                       # the Emperor
    assert game.to_act == (e + 1) % 5       # e+1 is asked again after having passed
    assert game.view(None).last_play == (seat2, beat.cards)
    assert Action(A.PASS) in game.legal_actions()
    act(game, A.PASS)                       # now everybody else has passed
    assert game.to_act == seat2 and game.view(None).last_play is None
    assert lead_events(game)[-1] == {"type": "lead", "seat": seat2, "reason": "round"}
    assert A.PASS not in kinds(game)


def test_playing_cards_not_held_or_not_beating_changes_nothing() -> None:
    game = in_play(rules())
    e = actor(game)
    held = set(game.hand(e))
    missing = next(c for c in bh.make_deck("shandong165") if c not in held)
    before = game.record()
    with pytest.raises(IllegalAction, match="does not hold"):
        game.apply(Action(A.PLAY, (missing,)))
    ranks = sorted({c.rank: c for c in held if not c.is_joker}.values())
    with pytest.raises(IllegalAction, match="one rank"):
        game.apply(Action(A.PLAY, (ranks[0], ranks[-1])))
    with pytest.raises(IllegalAction, match="not allowed while playing"):
        game.apply(Action(A.ACCEPT))
    assert game.record() == before
    game.apply(Action(A.PLAY, (ranks[-1],)))          # the highest plain single
    nxt = actor(game)
    low = min(game.hand(nxt))
    assert low.rank <= ranks[-1].rank
    before = game.record()
    with pytest.raises(IllegalAction, match="does not beat"):
        game.apply(Action(A.PLAY, (low,)))
    assert game.record() == before


# -- reveals ------------------------------------------------------------------------

def _guard_plays(game: Game, card: bh.Card) -> Action:
    """Pass/lead low until the Guard may play a play holding ``card``; play it."""
    for _ in range(2000):
        seat = actor(game)
        legal = game.legal_actions()
        if seat == game.guard:
            with_card = [a for a in legal if card in a.cards]
            if with_card:
                game.apply(with_card[0])
                return with_card[0]
        plays = [a for a in legal if a.kind is A.PLAY and card not in a.cards]
        if game.view(seat).last_play is None:
            game.apply(min(plays, key=lambda a: (len(a.cards), a.cards[0])))
        else:
            game.apply(Action(A.PASS))
    raise AssertionError("the Guard never played the card")


def test_hidden_guard_chooses_whether_a_joker_play_shows_the_guard_card() -> None:
    game = in_play(rules(), seeds=range(40, 4000))
    g = game.guard
    assert g is not None
    play_in_order(game, [g], until=lambda gm: gm.to_act == g
                  and gm.view(g).last_play is None)
    assert game.to_act == g and SJ_STAR in game.hand(g)
    singles = {a.cards for a in game.legal_actions() if len(a.cards) == 1}
    assert (SJ_STAR,) in singles
    if bh.parse_card("SJ") in game.hand(g):
        assert (bh.parse_card("SJ"),) in singles
    # nobody else ever gets a choice of marked cards
    assert all(str(c) != "SJ*" for s in range(5) if s != g for c in game.hand(s))


def test_playing_the_guard_card_reveals_the_guard() -> None:
    game = in_play(rules())
    g = game.guard
    rebels = rebels_of(game)
    assert all(game.view(r).guard is None for r in [*rebels, game.emperor])
    _guard_plays(game, SJ_STAR)
    for viewer in (None, 0, 1, 2, 3, 4):
        assert game.view(viewer).guard == g
    assert any(e["type"] == "reveal" and e["seat"] == g for e in game.events_for(None))


def test_playing_the_guard_card_reveals_a_hidden_solo() -> None:
    game = in_play(rules(), solo="hidden")
    e = game.emperor
    assert all(game.view(s).solo is None for s in range(5) if s != e)
    _guard_plays(game, SJ_STAR)
    assert all(game.view(s).solo == "hidden" and game.view(s).guard == e for s in range(5))


def _call_game(copies: int) -> Game:
    r = rules("lianzhong_classic", steal_solo=False, rebellion=False)

    def pred(g: Game) -> bool:
        c = actor(g)
        counts: dict[bh.Card, int] = {}
        for card in g.hand(c):
            counts[card] = counts.get(card, 0) + 1
        return any(n == copies and card.rank < Rank.TWO for card, n in counts.items())
    game = find_game(r, pred)
    e = actor(game)
    act(game, A.ACCEPT)
    call = next(a for a in game.legal_actions()
                if a.kind is A.CALL and game.hand(e).count(a.cards[0]) == copies)
    game.apply(call)
    act(game, A.SOLO_HIDDEN if copies == 4 else A.GUARD_HIDDEN)
    assert stage(game) is Stage.PLAY
    return game


def test_playing_the_called_card_reveals_the_guard_but_not_when_the_emperor_plays_it() -> None:
    game = _call_game(3)
    called = game.view(None).called
    assert called is not None
    e, g = game.emperor, game.guard
    # the Emperor shows a called copy first: nothing is revealed
    e_play = next(a for a in game.legal_actions() if called in a.cards)
    game.apply(e_play)
    assert game.view(None).guard is None
    while not game.is_over and actor(game) != e:
        act(game, A.PASS)
    _guard_plays(game, called)
    assert all(game.view(s).guard == g for s in range(5))


def _emperor_plays_every_copy(game: Game, card: bh.Card) -> None:
    """The Emperor leads plays holding ``card`` until he has none left;
    the others pass.  Checks that the solo stays hidden until the last copy."""
    e = game.emperor
    while card in game.hand(e if e is not None else 0):
        assert game.view(None).guard is None and game.view(None).solo is None
        seat = actor(game)
        if seat == e and game.view(seat).last_play is None:
            game.apply(max((a for a in game.legal_actions() if a.kind is A.PLAY),
                           key=lambda a: (a.cards.count(card), -len(a.cards))))
        else:
            act(game, A.PASS)
    assert any(ev["type"] == "reveal" for ev in game.events_for(None))
    for viewer in (None, 0, 1, 2, 3, 4):
        assert game.view(viewer).solo == "hidden" and game.view(viewer).guard == e


def test_hidden_solo_in_call_mode_shows_when_the_fourth_copy_is_played() -> None:
    game = _call_game(4)
    assert game.solo == "hidden"
    assert all(game.view(s).solo is None and game.view(s).guard is None
               for s in range(5) if s != game.emperor)
    called = game.view(None).called
    assert called is not None
    _emperor_plays_every_copy(game, called)


def test_call_mode_short_six_of_shandong165_is_a_solo_shown_by_its_third_copy() -> None:
    # (reading) a 6 of which the 165-card deck has three copies has no fourth
    # copy: the Emperor holding all three who calls it plays solo.
    r = rules("lianzhong_classic", deck="shandong165", steal_solo=False, rebellion=False)
    short = [c for c, n in Counter(bh.make_deck("shandong165")).items()
             if n == 3 and c.rank is Rank.SIX]
    assert len(short) == 3
    game = find_game(r, lambda g: any(g.hand(actor(g)).count(c) == 3 for c in short)
                     and A.ACCEPT in kinds(g))
    e = actor(game)
    act(game, A.ACCEPT)
    six = next(c for c in short if game.hand(e).count(c) == 3)
    act(game, A.CALL, [six])
    assert game.guard == e and kinds(game) == [A.SOLO_HIDDEN]
    act(game, A.SOLO_HIDDEN)
    _emperor_plays_every_copy(game, six)


# -- 接风 -----------------------------------------------------------------------------

def _first_out(game: Game, seat: int) -> dict[str, object]:
    """Play until ``seat`` is out and the lead has passed on; that lead event."""
    play_in_order(game, [seat], until=lambda g: any(
        e["type"] == "lead" and e["reason"] != "round" for e in g.events_for(None)))
    ev = lead_events(game)[-1]
    assert ev["reason"] in ("lead_after_out", "ask_lead")
    assert game.view(None).out == (seat,)
    return ev


def test_lead_after_out_teammate_skips_the_other_side() -> None:
    for seed_from in (0, 50, 100):
        game = in_play(rules(), seeds=range(seed_from, 4000))
        e, g = game.emperor, game.guard
        assert e is not None and g is not None
        rebel = next(s for s in rebels_of(game) if (s + 1) % 5 in (e, g))
        ev = _first_out(game, rebel)
        expected = next((rebel + k) % 5 for k in range(1, 5)
                        if (rebel + k) % 5 not in (e, g))
        assert ev["seat"] == expected != (rebel + 1) % 5
        assert game.to_act == expected


def test_lead_after_out_teammate_guard_hands_to_the_emperor() -> None:
    game = in_play(rules())
    e, g = game.emperor, game.guard
    assert g is not None
    assert _first_out(game, g)["seat"] == e


def test_lead_after_out_teammate_falls_back_to_the_next_player() -> None:
    r = rules(scoring="placement", rebellion=False, kick=False, steal_solo=False)
    game = in_play(r)
    e, g = game.emperor, game.guard
    assert e is not None and g is not None
    play_in_order(game, [e, g], until=lambda gm: len(gm.view(None).out) == 2
                  and lead_events(gm)[-1]["reason"] == "lead_after_out"
                  and lead_events(gm)[-1]["seat"] != e)
    assert game.view(None).out == (e, g)
    expected = next((g + k) % 5 for k in range(1, 5) if (g + k) % 5 != e)
    assert lead_events(game)[-1]["seat"] == expected


def test_lead_after_out_next() -> None:
    game = in_play(rules(lead_after_out="next"))
    e, g = game.emperor, game.guard
    rebel = next(s for s in rebels_of(game) if (s + 1) % 5 in (e, g))
    assert _first_out(game, rebel)["seat"] == (rebel + 1) % 5


APPLY = rules(lead_after_out="apply", steal_solo=False, rebellion=False, kick=False)


def _at_out_play(game: Game, seat: int) -> None:
    play_in_order(game, [seat], until=lambda g: len(g.view(None).out) == 1)
    assert game.view(None).out == (seat,) and game.view(None).last_play is not None


def test_apply_next_player_asks_and_leads_when_all_pass() -> None:
    game = in_play(APPLY)
    e = game.emperor
    assert e is not None
    _at_out_play(game, e)
    asker = actor(game)
    assert asker == (e + 1) % 5
    assert A.ASK_LEAD in kinds(game)
    act(game, A.ASK_LEAD)
    for _ in range(3):
        assert A.ASK_LEAD not in kinds(game)
        act(game, A.PASS)
    assert lead_events(game)[-1] == {"type": "lead", "seat": asker, "reason": "ask_lead"}
    assert game.to_act == asker and game.view(None).last_play is None


def test_apply_only_the_next_player_may_ask() -> None:
    game = in_play(APPLY)
    e = game.emperor
    assert e is not None
    _at_out_play(game, e)
    act(game, A.PASS)
    assert A.ASK_LEAD not in kinds(game)
    before = game.record()
    with pytest.raises(IllegalAction, match="接风"):
        game.apply(Action(A.ASK_LEAD))
    assert game.record() == before
    for _ in range(3):
        act(game, A.PASS)
    # nobody asked: 接风 goes to the Emperor's teammate, as with lead_after_out=teammate
    g = game.guard
    expected = g if g is not None and g != e else (e + 1) % 5
    assert lead_events(game)[-1] == {"type": "lead", "seat": expected,
                                     "reason": "lead_after_out"}


def test_apply_fails_when_somebody_beats() -> None:
    for seed_from in range(0, 400, 20):
        game = in_play(APPLY, seeds=range(seed_from, 4000))
        e = game.emperor
        assert e is not None
        _at_out_play(game, e)
        act(game, A.ASK_LEAD)
        if A.PLAY in kinds(game):
            break
    else:
        raise AssertionError("no deal where the request can be beaten")
    beater = actor(game)
    act(game, A.PLAY)
    for _ in range(3):
        act(game, A.PASS)
    assert lead_events(game)[-1] == {"type": "lead", "seat": beater, "reason": "round"}


def test_no_ask_lead_without_the_apply_option() -> None:
    game = in_play(rules())
    e = game.emperor
    assert e is not None
    _at_out_play(game, e)
    assert A.ASK_LEAD not in kinds(game)
    with pytest.raises(IllegalAction):
        game.apply(Action(A.ASK_LEAD))


# -- leaving (逃跑) --------------------------------------------------------------------

def test_leaving_ends_the_game_with_the_penalty() -> None:
    game = in_play(rules())
    game.apply(Action(A.LEAVE, seat=3))
    result = game.result
    assert game.is_over and result is not None and result.left == 3
    assert result.scores == (0, 0, 0, -40, 0)
    with pytest.raises(IllegalAction, match="over"):
        game.apply(Action(A.LEAVE, seat=2))


def test_leaving_during_the_role_phase() -> None:
    game = Game.new(rules(leave_penalty=30), 4)
    game.apply(Action(A.LEAVE, seat=0))
    assert game.is_over and game.result is not None and game.result.scores[0] == -30


def test_leaving_without_ending_the_game_costs_the_penalty_at_the_end() -> None:
    game = in_play(rules(leave_ends_game=False, kick=False))
    e, g = game.emperor, game.guard
    assert e is not None and g is not None
    game.apply(Action(A.LEAVE, seat=e))
    with pytest.raises(IllegalAction, match="already left"):
        game.apply(Action(A.LEAVE, seat=e))
    with pytest.raises(IllegalAction, match="seat"):
        game.apply(Action(A.LEAVE, seat=7))
    play_in_order(game, [e, g])
    result = game.result
    assert result is not None
    assert result.scores[e] == 6 - 40 and result.scores[g] == 3
    assert result.royal_won is True          # the penalty does not decide who won
    assert sum(result.scores) == -40


# -- typing cards --------------------------------------------------------------------

def test_play_cards_resolves_typed_cards_to_held_ones() -> None:
    game = in_play(rules())
    e = actor(game)
    hand = game.hand(e)
    rank = hand[0].rank
    n = sum(1 for c in hand if c.rank == rank)
    action = game.play_cards(" ".join([rank.symbol] * n))
    assert len(action.cards) == n and all(c in hand for c in action.cards)
    game.apply(action)
    with pytest.raises(IllegalAction, match="does not hold"):
        game.play_cards("BJ BJ BJ BJ BJ")
