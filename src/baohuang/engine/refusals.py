"""Why a selection of cards may not be played now, and how many cards of each rank a
deck holds: what the clients show and count, said once here and served to the
browser by ``/api/rules`` (``refusals``, ``decks``).

A client that lets a player pick cards explains a selection that is not one of the
legal plays by a :class:`Refusal` (its text in Chinese and English:
:data:`REFUSAL_TEXTS`, ``{n}`` filled from the parameters :func:`refusal` gives).

>>> import baohuang as bh
>>> game = bh.Game.new(seed=0)
>>> refusal(game.view(0), [])[0] is Refusal.NOT_TURN
True
>>> deck_counts("shandong165")[6], deck_counts("full")[3], deck_counts("no345")[17]
(13, 16, 4)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Final

from .cards import Deck, Rank, make_deck, parse_card
from .state import Stage

if TYPE_CHECKING:
    from .views import View

__all__ = ["REFUSAL_TEXTS", "Refusal", "deck_counts", "refusal"]


class Refusal(StrEnum):
    """Why a selection is not a legal play now (its value: the key a client shows it by)."""

    NOT_TURN = "why_not_turn"        # not this seat's turn to play cards
    EMPTY = "why_empty"              # nothing selected
    MIXED = "why_mixed"              # more than one rank besides jokers
    JOKER_TWO = "why_joker_two"      # jokers with 2s (不可以用2配牌, jokers_with_twos off)
    SIX = "why_six"                  # 憋6 (hold_sixes): a 6 only in the last play
    COUNT = "why_count"              # not as many cards as the play to beat: {n}
    NOT_BEAT = "why_not_beat"        # as many cards, but it does not beat it
    ILLEGAL = "why_illegal"          # any other reason


#: Each refusal's text: (Chinese, English); ``{n}``: a parameter of :func:`refusal`.
REFUSAL_TEXTS: Final[dict[Refusal, tuple[str, str]]] = {
    Refusal.NOT_TURN: ("还没轮到你出牌。", "It is not your turn to play."),
    Refusal.EMPTY: ("先选择要出的牌。", "Select the cards to play first."),
    Refusal.MIXED: ("一手牌只能是同一点数（可以挂王）。",
                    "A play is cards of one rank (jokers may be added)."),
    Refusal.JOKER_TWO: ("王不能挂2。", "Jokers may not be added to 2s."),
    Refusal.SIX: ("憋6：带6的牌必须是最后一手全部出完。",
                  "Hold sixes: a play with a 6 must be your whole hand."),
    Refusal.COUNT: ("要跟 {n} 张牌。", "You must play {n} cards."),
    Refusal.NOT_BEAT: ("管不上：每张牌都要比上家的大。",
                       "That does not beat it: every card must beat a card."),
    Refusal.ILLEGAL: ("这手牌现在不能出。", "That cannot be played now."),
}
assert set(REFUSAL_TEXTS) == set(Refusal), "every refusal has its texts"

_JOKERS: Final = frozenset({Rank.SMALL_JOKER, Rank.BIG_JOKER, Rank.TEHUA})


def deck_counts(deck: Deck | str) -> dict[int, int]:
    """How many cards of each rank (its number: ``Rank``'s value) ``deck`` holds,
    high ranks first."""
    counts = Counter(int(card.rank) for card in make_deck(deck))
    return dict(sorted(counts.items(), reverse=True))


def refusal(view: View, selection: Sequence[str]) -> tuple[Refusal, dict[str, int]] | None:
    """Why the cards ``selection`` (their texts) may not be played from ``view`` now,
    with the text's parameters; ``None`` when they are a legal play (of the same ranks
    as one of ``view.legal_actions``: which copy of a rank is played is the client's
    choice)."""
    if view.stage is not Stage.PLAY or view.seat is None or view.to_act != view.seat:
        return Refusal.NOT_TURN, {}
    if not selection:
        return Refusal.EMPTY, {}
    cards = [parse_card(text) for text in selection]
    ranks = {card.rank for card in cards if card.rank not in _JOKERS}
    if len(ranks) > 1:
        return Refusal.MIXED, {}
    shape = sorted(card.rank for card in cards)
    if any(sorted(card.rank for card in action.cards) == shape
           for action in view.legal_actions if action.cards):
        return None
    rules = view.rules
    rank = next(iter(ranks), None)
    if (rank is Rank.TWO and any(card.rank in _JOKERS for card in cards)
            and not rules.get("jokers_with_twos")):
        return Refusal.JOKER_TWO, {}
    if rules.get("hold_sixes") and rank is Rank.SIX and len(cards) < len(view.hand):
        return Refusal.SIX, {}
    last = view.last_play
    if last is not None:
        need = len(last.cards)
        if len(cards) != need if not rules.get("kaopai") else len(cards) < need:
            return Refusal.COUNT, {"n": need}
        return Refusal.NOT_BEAT, {}
    return Refusal.ILLEGAL, {}
