"""The hint: a seat's legal plays in the order a player cycles through them.

One function for every client (the web client gets the order with its legal actions,
docs/protocol.md **Views**; the terminal's hint key; anything else):

1. whole natural sets first: a play without jokers that uses every card of its rank
   in the hand (it breaks no bigger set), lowest rank first;
2. then natural plays that break a bigger set (a pair out of a triple), lowest rank
   first, the fewest cards left behind first;
3. then plays with jokers (小王, 大王, 特画): the fewest jokers first, 小王 before
   大王, then the lowest rank;
4. a hidden Guard's plays that would show him (the Guard card, 特画 or the called
   card) come after all others.

So the smallest play that does the job comes first: ``6 6`` before ``大王 6``, a
single 8 before a 5 broken out of a pair.  Passes and role-phase actions are never
hints; the same play is listed once.

>>> from baohuang import Action, ActionKind, parse_cards
>>> hand = parse_cards("5s 5h 6s 6h 6d 8c BJ")
>>> def play(text): return Action(ActionKind.PLAY, tuple(parse_cards(text)))
>>> legal = [Action(ActionKind.PASS), play("BJ 8c"), play("BJ 6s"), play("6s 6h"),
...          play("BJ 5s"), play("5s 5h")]
>>> [str(a) for a in hint_order_of(hand, legal)]
['play 5s 5h', 'play 6s 6h', 'play BJ 5s', 'play BJ 6s', 'play BJ 8c']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from .actions import Action, ActionKind
from .cards import GUARD_CARD, RANK_OF, TEHUA_CARD, Card, Rank
from .views import View

__all__ = ["hint_indexes", "hint_order", "hint_order_of", "revealing_cards"]

_SMALL = int(Rank.SMALL_JOKER)
_PLAY = ActionKind.PLAY


def revealing_cards(role: str | None, guard_open: bool, called: Card | None
                    ) -> frozenset[Card]:
    """The cards whose play would show a hidden Guard (none for anyone else): the Guard
    card (侍卫牌), or in ``call`` mode (a card was called) the called card and the
    特画 — there the marked small joker is a small joker like any other.

    >>> from baohuang.engine.cards import parse_card
    >>> sorted(map(str, revealing_cards("guard", False, parse_card("9h"))))
    ['9h', 'TH']
    """
    if role != "guard" or guard_open:
        return frozenset()
    if called is None:
        return frozenset((GUARD_CARD,))
    return frozenset((called, TEHUA_CARD))


def hint_order_of(hand: Iterable[Card], legal: Sequence[Action],
                  reveal: frozenset[Card] = frozenset()) -> list[Action]:
    """The plays among ``legal`` in hint order, for a seat holding ``hand`` (``reveal``:
    the cards whose play would show it as the hidden Guard)."""
    return [legal[i] for i in hint_indexes(hand, legal, reveal)]


def hint_indexes(hand: Iterable[Card], legal: Sequence[Action],
                 reveal: frozenset[Card] = frozenset()) -> list[int]:
    """:func:`hint_order_of` as indexes into ``legal``."""
    plays = [i for i, action in enumerate(legal) if action.kind is _PLAY]
    if len(plays) < 2:
        return plays
    held = Counter(RANK_OF[c] for c in hand)
    keyed: list[tuple[tuple[int, ...], int]] = []
    seen: set[Action] = set()
    for index in plays:
        action = legal[index]
        if action in seen:
            continue
        seen.add(action)
        keyed.append((_key(action.cards, held, reveal), index))
    keyed.sort()
    return [index for _, index in keyed]


def hint_order(view: View, legal: Sequence[Action] | None = None) -> list[Action]:
    """The plays among ``legal`` (default: the view's legal actions) in the order a
    player cycles through them (see the module's text)."""
    actions = view.legal_actions if legal is None else legal
    return hint_order_of(view.hand, actions,
                         revealing_cards(view.role, view.guard_open, view.called))


def _key(cards: Sequence[Card], held: Counter[int], reveal: frozenset[Card]
         ) -> tuple[int, ...]:
    parts = _PARTS.get(cards)
    if parts is None:
        if len(_PARTS) >= _PARTS_MAX:
            _PARTS.clear()
        parts = _PARTS[cards] = _parts(cards)
    rank, natural, jokers = parts
    reveals = sum(1 for c in cards if c in reveal) if reveal else 0
    if not jokers:
        left = held[rank] - natural
        return (reveals, 0, 1 if left > 0 else 0, rank, left, len(cards))
    # fewest jokers, the biggest joker used as small as can be, then the rank
    return (reveals, 1, len(jokers), jokers[0], sum(jokers), rank,
            held[rank] - natural if natural else 0, len(cards))


def _parts(cards: Sequence[Card]) -> tuple[int, int, tuple[int, ...]]:
    """(the play's rank — its lowest joker's when it has no other card —, how many
    cards of that rank, its jokers' ranks high to low)."""
    ranks = [RANK_OF[c] for c in cards]
    natural = [r for r in ranks if r < _SMALL]
    jokers = tuple(sorted((r for r in ranks if r >= _SMALL), reverse=True))
    rank = natural[0] if natural else jokers[-1]
    return rank, len(natural), jokers


#: the parts of the plays seen lately, by their cards (the same few thousand plays
#: make up most legal-action lists)
_PARTS: dict[Sequence[Card], tuple[int, int, tuple[int, ...]]] = {}
_PARTS_MAX = 50_000
