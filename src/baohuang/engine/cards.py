"""Cards, ranks, suits and the card notation (docs/rules.md §2).

A :class:`Card` is a small ``int`` subclass so that hands can be counted,
hashed and sorted cheaply.  Its value orders cards by rank first, so
``sorted(cards)`` is low-to-high rank order.

>>> from baohuang import parse_cards, format_cards
>>> cards = parse_cards("BJ SJ 9 9 9 10h BJ*")
>>> format_cards(sorted(cards, reverse=True))
'BJ* BJ SJ 10h 9 9 9'
>>> cards[0].rank
<Rank.BIG_JOKER: 17>
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum, StrEnum
from typing import Final

__all__ = [
    "CARD_BY_TEXT",
    "EMPEROR_CARD",
    "GUARD_CARD",
    "RANKS",
    "RANK_OF",
    "RANK_SLOTS",
    "TEHUA_CARD",
    "Card",
    "CardParseError",
    "Deck",
    "Rank",
    "Suit",
    "format_cards",
    "make_deck",
    "parse_card",
    "parse_cards",
]


class CardParseError(ValueError):
    """A card token could not be read; ``token`` names it."""

    def __init__(self, token: str, message: str | None = None) -> None:
        self.token = token
        super().__init__(message or f"not a card: {token!r} (e.g. 9, 10h, Q, 2, SJ, BJ, BJ*)")


class Rank(IntEnum):
    """Card ranks, low to high.  ``SMALL_JOKER`` is 小王, ``BIG_JOKER`` 大王."""

    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14
    TWO = 15
    SMALL_JOKER = 16
    BIG_JOKER = 17
    TEHUA = 18   # 特画 / 小保: the Guard's copy of the called card (``called_card_high``)

    @property
    def symbol(self) -> str:
        return _RANK_SYMBOLS[self]

    @property
    def is_joker(self) -> bool:
        return self >= Rank.SMALL_JOKER


#: All ranks, low to high.
RANKS: Final = tuple(Rank)
#: Length of a list of counts indexed by rank value (3..18; 16 SJ, 17 BJ, 18 特画).
RANK_SLOTS: Final = int(Rank.TEHUA) + 1

_RANK_SYMBOLS: Final = {
    Rank.THREE: "3", Rank.FOUR: "4", Rank.FIVE: "5", Rank.SIX: "6", Rank.SEVEN: "7",
    Rank.EIGHT: "8", Rank.NINE: "9", Rank.TEN: "10", Rank.JACK: "J", Rank.QUEEN: "Q",
    Rank.KING: "K", Rank.ACE: "A", Rank.TWO: "2", Rank.SMALL_JOKER: "SJ",
    Rank.BIG_JOKER: "BJ", Rank.TEHUA: "TH",
}
_SYMBOL_RANKS: Final = {v: k for k, v in _RANK_SYMBOLS.items()}


class Suit(IntEnum):
    """Suits.  They matter only for calling a guard (叫侍卫, docs/rules.md §6.2)."""

    SPADES = 1
    HEARTS = 2
    DIAMONDS = 3
    CLUBS = 4

    @property
    def letter(self) -> str:
        return "shdc"[self - 1]


_LETTER_SUITS: Final = {s.letter: s for s in Suit}


class Card(int):
    """One card: a rank, an optional suit, and for jokers an optional mark.

    ``BJ*`` is the Emperor card (皇牌) and ``SJ*`` the Guard card (侍卫牌); in
    play they rank as ordinary jokers.  Cards parsed without a suit (``"9"``)
    have ``suit is None``; dealt cards always carry one.

    >>> Card.make(Rank.TEN, Suit.HEARTS)
    Card('10h')
    >>> str(Card.make(Rank.BIG_JOKER, marked=True))
    'BJ*'
    """

    __slots__ = ()

    @staticmethod
    def make(rank: Rank, suit: Suit | None = None, *, marked: bool = False) -> Card:
        if rank.is_joker:
            if suit is not None:
                raise ValueError("jokers have no suit")
            if marked and rank is Rank.TEHUA:
                raise ValueError("特画 has no mark")
        elif marked:
            raise ValueError("only jokers can be marked")
        return _CARDS[rank * 16 + (suit or 0) * 2 + int(marked)]

    @property
    def rank(self) -> Rank:
        return Rank(self >> 4)

    @property
    def suit(self) -> Suit | None:
        s = (self & 15) >> 1
        return Suit(s) if s else None

    @property
    def marked(self) -> bool:
        return bool(self & 1)

    @property
    def is_joker(self) -> bool:
        return self >= 256

    def __str__(self) -> str:
        return CARD_TEXT[self]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


_CARDS: Final[dict[int, Card]] = {}
for _rank in Rank:
    if _rank is Rank.TEHUA:
        _CARDS[_rank * 16] = int.__new__(Card, _rank * 16)
    elif _rank.is_joker:
        for _marked in (0, 1):
            _value = _rank * 16 + _marked
            _CARDS[_value] = int.__new__(Card, _value)
    else:
        for _suit in (0, *Suit):
            _value = _rank * 16 + _suit * 2
            _CARDS[_value] = int.__new__(Card, _value)

#: The text of every card, indexed by its value (``CARD_TEXT[c] == str(c)``).
def _text(value: int) -> str:
    text = _RANK_SYMBOLS[Rank(value >> 4)]
    suit = (value & 15) >> 1
    if suit:
        text += "shdc"[suit - 1]
    return text + "*" if value & 1 else text


CARD_TEXT: Final[tuple[str, ...]] = tuple(
    _text(v) if v in _CARDS else "" for v in range(max(_CARDS) + 1))

#: Every card by its text (``CARD_BY_TEXT[str(c)] is c``): reading a card as ``str``
#: wrote it — the texts of messages, views and actions — is one lookup.
CARD_BY_TEXT: Final[dict[str, Card]] = {CARD_TEXT[v]: c for v, c in _CARDS.items()}

#: The rank value (3..18) of every card, indexed by the card: ``RANK_OF[card]`` is
#: ``int(card.rank)``, as fast as the card's own bits (the one place that reads them).
RANK_OF: Final[tuple[int, ...]] = tuple(v >> 4 for v in range(max(_CARDS) + 1))

#: Every card of each rank value 0..18, low to high (what a hand may hold of it).
CARDS_OF_RANK: Final[tuple[tuple[Card, ...], ...]] = tuple(
    tuple(c for v, c in sorted(_CARDS.items()) if v >> 4 == r) for r in range(RANK_SLOTS))

#: The Emperor card 皇牌 (the marked big joker).
EMPEROR_CARD: Final = Card.make(Rank.BIG_JOKER, marked=True)
#: The Guard card 侍卫牌 (the marked small joker).
GUARD_CARD: Final = Card.make(Rank.SMALL_JOKER, marked=True)
#: 特画 (also 小保): with ``called_card_high`` the Guard's copy of the called card
#: becomes this card, a joker above 大王 (docs/rules.md §3).
TEHUA_CARD: Final = Card.make(Rank.TEHUA)
_BJ: Final = Card.make(Rank.BIG_JOKER)
_SJ: Final = Card.make(Rank.SMALL_JOKER)


def parse_card(token: str) -> Card:
    """Read one card token, case-insensitively.

    >>> parse_card("10H"), parse_card("bj*"), parse_card("q")
    (Card('10h'), Card('BJ*'), Card('Q'))
    >>> parse_card("11")
    Traceback (most recent call last):
    ...
    baohuang.engine.cards.CardParseError: not a card: '11' (e.g. 9, 10h, Q, 2, SJ, BJ, BJ*)
    """
    card = CARD_BY_TEXT.get(token)
    if card is not None:
        return card
    text = token.strip().upper()
    marked = text.endswith("*")
    if marked:
        text = text[:-1]
    if text in ("BJ", "SJ") or (text == "TH" and not marked):
        return Card.make(_SYMBOL_RANKS[text], marked=marked)
    if marked or not text:
        raise CardParseError(token)
    suit: Suit | None = None
    if text[-1] in "SHDC" and text not in _SYMBOL_RANKS:
        suit = _LETTER_SUITS[text[-1].lower()]
        text = text[:-1]
    rank = _SYMBOL_RANKS.get(text)
    if rank is None or rank.is_joker:
        raise CardParseError(token)
    return Card.make(rank, suit)


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Read cards separated by spaces (or commas).

    >>> parse_cards("BJ SJ 9 9 9")
    [Card('BJ'), Card('SJ'), Card('9'), Card('9'), Card('9')]
    >>> parse_cards("9 9 x")
    Traceback (most recent call last):
    ...
    baohuang.engine.cards.CardParseError: not a card: 'x' (e.g. 9, 10h, Q, 2, SJ, BJ, BJ*)
    """
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    try:
        return list(map(CARD_BY_TEXT.__getitem__, tokens))
    except KeyError:
        return [parse_card(t) for t in tokens]


def format_cards(cards: Iterable[Card]) -> str:
    """Cards in the notation, separated by spaces (in the given order)."""
    return " ".join(str(c) for c in cards)


class Deck(StrEnum):
    """Which cards are used (docs/rules.md §2)."""

    FULL = "full"                 # 216 cards
    NO345 = "no345"               # without 3 4 5: 168 cards (联众 简单玩法)
    SHANDONG165 = "shandong165"   # without 3 4 5 and three 6s: 165 cards (山东保皇)


def make_deck(deck: Deck | str) -> list[Card]:
    """All cards of a deck, sorted low to high, with the two marked jokers.

    >>> len(make_deck("full")), len(make_deck("no345")), len(make_deck("shandong165"))
    (216, 168, 165)
    """
    deck = Deck(deck)
    cards = _DECKS.get(deck)
    if cards is None:
        cards = _DECKS[deck] = tuple(_build_deck(deck))
    return list(cards)


_DECKS: dict[Deck, tuple[Card, ...]] = {}


def _build_deck(deck: Deck) -> list[Card]:
    low = Rank.SIX if deck is not Deck.FULL else Rank.THREE
    cards: list[Card] = []
    for rank in RANKS:
        if rank.is_joker or rank < low:
            continue
        for suit in Suit:
            copies = 4
            # shandong165: one six of each of spades, hearts, diamonds is removed (reading).
            if deck is Deck.SHANDONG165 and rank == Rank.SIX and suit != Suit.CLUBS:
                copies = 3
            cards.extend([Card.make(rank, suit)] * copies)
    cards.extend([_SJ] * 3 + [GUARD_CARD] + [_BJ] * 3 + [EMPEROR_CARD])
    return cards
