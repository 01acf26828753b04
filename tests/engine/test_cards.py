"""Cards, the notation, the three decks and the deal (docs/rules.md §2)."""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import rules

import baohuang as bh
from baohuang import Card, CardParseError, Rank, Suit, parse_card, parse_cards


def test_every_rank_symbol_reads_and_writes_back() -> None:
    text = "3 4 5 6 7 8 9 10 J Q K A 2 SJ BJ TH"
    cards = parse_cards(text)
    assert [c.rank for c in cards] == list(Rank)
    assert bh.format_cards(cards) == text


def test_suits_marks_and_case() -> None:
    assert parse_card("10h") == Card.make(Rank.TEN, Suit.HEARTS)
    assert parse_card("10H") == parse_card("10h")
    assert parse_card("qs").suit is Suit.SPADES and parse_card("qs").rank is Rank.QUEEN
    assert parse_card("Kd").suit is Suit.DIAMONDS
    assert parse_card("2c") == Card.make(Rank.TWO, Suit.CLUBS)
    assert parse_card("bj*") == bh.EMPEROR_CARD and bh.EMPEROR_CARD.marked
    assert parse_card("SJ*") == bh.GUARD_CARD and bh.GUARD_CARD.rank is Rank.SMALL_JOKER
    assert parse_card("j") == Card.make(Rank.JACK)
    assert parse_card("9").suit is None
    assert str(parse_card("as")) == "As"
    assert parse_cards("BJ, SJ,9") == parse_cards("BJ SJ 9")


def test_list_and_iterable_input() -> None:
    assert parse_cards(["BJ", "9h"]) == [Card.make(Rank.BIG_JOKER),
                                         Card.make(Rank.NINE, Suit.HEARTS)]
    assert parse_cards("") == []


@pytest.mark.parametrize("token", ["11", "x", "1", "10x", "BJs", "SJh", "9*", "Q**", "*",
                                   "AA", "s", "joker", "0", "-3"])
def test_a_bad_token_is_named(token: str) -> None:
    with pytest.raises(CardParseError) as info:
        parse_cards(f"9 9 {token} BJ")
    assert info.value.token == token
    assert repr(token) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_rank_order_high_to_low() -> None:
    high_to_low = parse_cards("BJ SJ 2 A K Q J 10 9 8 7 6 5 4 3")
    assert sorted(high_to_low, reverse=True) == high_to_low
    assert [c.rank for c in high_to_low] == sorted((c.rank for c in high_to_low), reverse=True)
    # marked jokers rank as ordinary ones (四张大王一样大)
    assert bh.EMPEROR_CARD.rank == parse_card("BJ").rank
    assert bh.GUARD_CARD.rank == parse_card("SJ").rank
    assert bh.beats("BJ*", "SJ*") and not bh.beats("BJ*", "BJ") and not bh.beats("BJ", "BJ*")


def test_card_make_rejects_impossible_cards() -> None:
    with pytest.raises(ValueError):
        Card.make(Rank.BIG_JOKER, Suit.HEARTS)
    with pytest.raises(ValueError):
        Card.make(Rank.NINE, marked=True)


def _deck_counter(deck: str) -> Counter[Card]:
    return Counter(bh.make_deck(deck))


def test_full_deck() -> None:
    deck = _deck_counter("full")
    assert sum(deck.values()) == 216
    for rank in Rank:
        if rank.is_joker:
            continue
        for suit in Suit:
            assert deck[Card.make(rank, suit)] == 4
    assert deck[bh.EMPEROR_CARD] == 1 and deck[Card.make(Rank.BIG_JOKER)] == 3
    assert deck[bh.GUARD_CARD] == 1 and deck[Card.make(Rank.SMALL_JOKER)] == 3


def test_no345_deck() -> None:
    deck = _deck_counter("no345")
    assert sum(deck.values()) == 168
    assert not [c for c in deck if c.rank in (Rank.THREE, Rank.FOUR, Rank.FIVE)]
    assert sum(n for c, n in deck.items() if c.rank is Rank.SIX) == 16


def test_shandong165_deck_drops_one_six_of_three_suits() -> None:
    deck = _deck_counter("shandong165")
    assert sum(deck.values()) == 165
    sixes = {c.suit: n for c, n in deck.items() if c.rank is Rank.SIX}
    assert sum(sixes.values()) == 13
    assert sorted(sixes.values()) == [3, 3, 3, 4]
    assert not [c for c in deck if c.rank < Rank.SIX]
    assert sum(n for c, n in deck.items() if c.is_joker) == 8


def _dealt(game: bh.Game) -> Counter[Card]:
    total: Counter[Card] = Counter()
    for seat in range(5):
        total.update(game.hand(seat))
    return total


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_shandong_deals_33_each(seed: int) -> None:
    game = bh.Game.new(rules("shandong"), seed)
    assert [len(game.hand(s)) for s in range(5)] == [33] * 5
    assert _dealt(game) == _deck_counter("shandong165")


@pytest.mark.parametrize("dealer", [0, 2, 4])
def test_no345_deals_34_34_34_33_33_from_the_dealer(dealer: int) -> None:
    game = bh.Game.new(rules("lianzhong_simple"), 5, dealer=dealer)
    sizes = [len(game.hand((dealer + i) % 5)) for i in range(5)]
    assert sizes == [34, 34, 34, 33, 33]
    assert _dealt(game) == _deck_counter("no345")


@pytest.mark.parametrize("preset", ["lianzhong_classic", "seed001_216"])
def test_full_deck_holds_the_emperor_card_back_for_a_random_candidate(preset: str) -> None:
    candidates = set()
    for seed in range(40):
        game = bh.Game.new(rules(preset), seed)
        sizes = [len(game.hand(s)) for s in range(5)]
        holder = next(s for s in range(5) if bh.EMPEROR_CARD in game.hand(s))
        assert sizes == [44 if s == holder else 43 for s in range(5)]
        assert _dealt(game) == _deck_counter("full")
        view = game.view(holder)
        assert view.candidate == holder and game.to_act == holder
        candidates.add(holder)
        # the candidate is a function of the seed, not of the dealer's seat
        again = bh.Game.new(rules(preset), seed)
        assert again.hand(holder) == game.hand(holder)
    assert candidates == {0, 1, 2, 3, 4}


def test_deal_is_reproducible_by_seed() -> None:
    a, b, c = (bh.Game.new(seed=s) for s in (11, 11, 12))
    assert [a.hand(s) for s in range(5)] == [b.hand(s) for s in range(5)]
    assert [a.hand(s) for s in range(5)] != [c.hand(s) for s in range(5)]


def test_dealt_cards_carry_suits_and_the_two_marks_once() -> None:
    game = bh.Game.new(seed=3)
    cards = _dealt(game)
    assert cards[bh.EMPEROR_CARD] == 1 and cards[bh.GUARD_CARD] == 1
    assert all(c.suit is not None for c in cards if not c.is_joker)
