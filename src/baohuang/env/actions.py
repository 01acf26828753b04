"""One fixed discrete action space for every decision of every preset and option.

Index layout (``N_ACTIONS`` = 29,379 indexes, the same for all rules):

====================  =====================================================
``0 .. 9``            the role-phase kinds, in :data:`ROLE_KINDS` order:
                      accept, abdicate, steal, decline, solo_open,
                      solo_hidden, guard_open, guard_hidden, rebel, kick
``10``                pass
``11``                ask_lead (申请接风)
``12 .. 59``          ``call <card>``: ``12 + 4·(rank − 3) + (suit − 1)`` for
                      ranks 3 … A and suits s h d c (2s and jokers are never
                      called)
``60 ..``             plays: one index per :data:`PlayKey`
                      ``(rank, n, sj, bj, th, k)`` in :data:`PLAY_KEYS` order
====================  =====================================================

A play is ``n`` cards of ``rank`` (3 … 15 = 2; ``rank = n = 0`` for jokers
alone) with ``sj`` small and ``bj`` big jokers (0 … 4 each: four decks), ``th``
the 特画 (0 or 1, only with ``called_card_high``), and ``k`` how many of its
cards would show the playing seat as the hidden Guard: the Guard card ``SJ*``
(card mode) or copies of the called card (call mode; a hidden solo Emperor
holds up to four).  ``k`` is 0 for every seat that is not a hidden Guard (or a
hidden solo Emperor), and always 0 with the 特画 (which is its own column).
The engine lists a play both with and without such a card whenever the
choice exists; ``k`` tells those actions apart.  ``n`` runs to 16 (four decks
hold 16 cards of a rank).

>>> import baohuang as bh
>>> from baohuang.env.actions import IllegalActionIndex, decode, encode
>>> game = bh.Game.new(seed=1)
>>> view = game.view(game.to_act)
>>> legal = game.legal_actions()
>>> [encode(a, view) for a in legal]
[0]
>>> decode(0, view, legal) == legal[0]
True
>>> try:
...     decode(10, view, legal)
... except IllegalActionIndex as exc:
...     print(exc)
action index 10 (pass) is not legal now (stage emperor, legal: 0 accept)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, NamedTuple

import numpy as np
import numpy.typing as npt

import baohuang as bh

__all__ = [
    "ASK_LEAD_INDEX",
    "CALL_BASE",
    "N_ACTIONS",
    "PASS_INDEX",
    "PLAY_BASE",
    "PLAY_KEYS",
    "ROLE_KINDS",
    "ActionEncoder",
    "IllegalActionIndex",
    "PlayKey",
    "decode",
    "describe",
    "encode",
    "legal_indexes",
    "legal_mask",
    "mask_of",
    "reveal_card",
    "reveal_card_of",
]

K = bh.ActionKind

#: The role-phase kinds, at indexes 0..9.
ROLE_KINDS: Final = (K.ACCEPT, K.ABDICATE, K.STEAL, K.DECLINE, K.SOLO_OPEN, K.SOLO_HIDDEN,
                     K.GUARD_OPEN, K.GUARD_HIDDEN, K.REBEL, K.KICK)
PASS_INDEX: Final = 10
ASK_LEAD_INDEX: Final = 11
CALL_BASE: Final = 12
#: ranks that can be called (3 … A) times the four suits
CALL_RANKS: Final = tuple(range(3, 15))
PLAY_BASE: Final = CALL_BASE + 4 * len(CALL_RANKS)

MAX_RANK_CARDS: Final = 16     # four decks: 16 cards of each rank
MAX_JOKERS: Final = 4          # four decks: 4 small and 4 big jokers
MAX_REVEAL: Final = 4          # a hidden solo Emperor's copies of the called card
RANK_TWO: Final = int(bh.Rank.TWO)


class PlayKey(NamedTuple):
    """What tells one play from another (see the module docstring)."""

    rank: int
    n: int
    sj: int
    bj: int
    th: int
    k: int


def _play_keys() -> list[PlayKey]:
    keys: list[PlayKey] = []
    for rank in (0, *range(3, RANK_TWO + 1)):
        for n in (range(1, MAX_RANK_CARDS + 1) if rank else (0,)):
            for th in (0, 1):
                for bj in range(MAX_JOKERS + 1):
                    for sj in range(MAX_JOKERS + 1):
                        if n + sj + bj + th == 0:
                            continue
                        # k: SJ* needs a small joker; called copies need rank cards
                        kmax = 0 if th else min(MAX_REVEAL, n) if n else min(1, sj)
                        for k in range(kmax + 1):
                            keys.append(PlayKey(rank, n, sj, bj, th, k))
    return keys


#: Every play key, in index order (index ``PLAY_BASE + i``).
PLAY_KEYS: Final = tuple(_play_keys())
_PLAY_INDEX: Final = {key: PLAY_BASE + i for i, key in enumerate(PLAY_KEYS)}
N_ACTIONS: Final = PLAY_BASE + len(PLAY_KEYS)
_ROLE_INDEX: Final = {kind: i for i, kind in enumerate(ROLE_KINDS)}
_SIMPLE_INDEX: Final = {**_ROLE_INDEX, K.PASS: PASS_INDEX, K.ASK_LEAD: ASK_LEAD_INDEX}
_SUITS: Final = tuple(bh.Suit)
_PLAY: Final = K.PLAY
_PLAY_STAGE: Final = bh.Stage.PLAY
#: any shape the cards make (encoding does not judge legality: 2s with jokers too)
_ANY_RULES: Final = bh.RuleSet().replace(jokers_with_twos=True)


class IllegalActionIndex(ValueError):
    """An action index that names no legal action now (``index`` says which)."""

    def __init__(self, index: int, message: str) -> None:
        self.index = index
        super().__init__(message)


def reveal_card(view: bh.View) -> bh.Card | None:
    """The card whose play would show ``view.seat`` as the hidden Guard (or hidden
    solo Emperor), or ``None`` when the seat is not one or is already shown."""
    return reveal_card_of(view.seat, view.guard, view.stage, view.guard_open, view.solo,
                          view.rebels, view.rules, view.called)


def reveal_card_of(seat: int | None, guard: int | None, stage: bh.Stage, guard_open: bool,
                   solo: str | None, rebels: Sequence[int], rules: dict[str, object],
                   called: bh.Card | None) -> bh.Card | None:
    """:func:`reveal_card` of the view with these values."""
    if (seat is None or guard != seat or stage is not _PLAY_STAGE
            or guard_open or solo == "open" or len(rebels) >= 2):
        return None
    if rules.get("guard_mode") == "card":
        return bh.GUARD_CARD
    return called


def _play_key(cards: Sequence[bh.Card], special: bh.Card | None) -> PlayKey:
    try:
        shape = bh.classify(cards, _ANY_RULES)
    except bh.InvalidPlay as exc:
        raise ValueError(f"not a play shape: {exc}") from None
    k = cards.count(special) if special is not None else 0
    return PlayKey(shape.rank, shape.n, shape.sj, shape.bj, shape.th, k)


def _encode(action: bh.Action, special: bh.Card | None) -> int:
    kind = action.kind
    simple = _SIMPLE_INDEX.get(kind)
    if simple is not None:
        return simple
    if kind is K.CALL:
        card = action.cards[0]
        suit = card.suit
        if len(action.cards) != 1 or suit is None or card.rank not in CALL_RANKS:
            raise ValueError(f"not a callable card: {action}")
        return CALL_BASE + 4 * (card.rank - 3) + (suit - 1)
    if kind is K.PLAY:
        key = _play_key(action.cards, special)
        index = _PLAY_INDEX.get(key)
        if index is None:
            raise ValueError(f"a play beyond what four decks hold: {action}")
        return index
    raise ValueError(f"{kind.value} has no action index (not a decision from legal_actions)")


def encode(action: bh.Action, view: bh.View) -> int:
    """The index of ``action`` taken by the seat whose view is ``view``."""
    return _encode(action, reveal_card(view))


def describe(index: int) -> str:
    """What an index means, in words: ``pass``, ``call 9h``, ``play BJ 9 9 (k=1)``."""
    if not 0 <= index < N_ACTIONS:
        return "out of range"
    if index < len(ROLE_KINDS):
        return ROLE_KINDS[index].value
    if index == PASS_INDEX:
        return "pass"
    if index == ASK_LEAD_INDEX:
        return "ask_lead"
    if index < PLAY_BASE:
        i = index - CALL_BASE
        card = bh.Card.make(bh.Rank(CALL_RANKS[i // 4]), _SUITS[i % 4])
        return f"call {card}"
    key = PLAY_KEYS[index - PLAY_BASE]
    text = "play " + str(bh.Shape(key.rank, key.n, key.sj, key.bj, key.th))
    return text + (f" (k={key.k})" if key.k else "")


def legal_indexes(view: bh.View, legal: Iterable[bh.Action] | None = None) -> list[int]:
    """The index of each legal action (``legal``: default ``view.legal_actions``)."""
    special = reveal_card(view)
    return [_encode(a, special) for a in (view.legal_actions if legal is None else legal)]


def mask_of(indexes: Sequence[int]) -> npt.NDArray[np.int8]:
    """A 0/1 vector of length :data:`N_ACTIONS`: 1 at ``indexes``."""
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    if len(indexes) <= 16:
        for i in indexes:                # (cheaper than numpy's fancy indexing for few)
            mask[i] = 1
    else:
        mask[indexes] = 1
    return mask


def legal_mask(view: bh.View, legal: Iterable[bh.Action] | None = None) -> npt.NDArray[np.int8]:
    """A 0/1 vector of length :data:`N_ACTIONS`: 1 at the legal actions' indexes."""
    return mask_of(legal_indexes(view, legal))


def _illegal(index: int, view: bh.View, legal: Sequence[bh.Action],
             indexes: Sequence[int]) -> IllegalActionIndex:
    if not 0 <= index < N_ACTIONS:
        return IllegalActionIndex(index, f"action index {index} is out of range "
                                         f"(0..{N_ACTIONS - 1})")
    shown = ", ".join(f"{i} {a}" for i, a in list(zip(indexes, legal, strict=True))[:8])
    more = f", … ({len(legal)} in all)" if len(legal) > 8 else ""
    return IllegalActionIndex(index, f"action index {index} ({describe(index)}) is not "
                                     f"legal now (stage {view.stage.value}, legal: "
                                     f"{shown or 'none'}{more})")


def decode(index: int, view: bh.View, legal: Sequence[bh.Action] | None = None) -> bh.Action:
    """The legal action with this index, or :class:`IllegalActionIndex`."""
    legal = view.legal_actions if legal is None else legal
    indexes = legal_indexes(view, legal)
    for i, action in zip(indexes, legal, strict=True):
        if i == index:
            return action
    raise _illegal(int(index), view, legal, indexes)


#: per reveal card: the cards of a play -> its index, for every ActionEncoder
_KNOWN: dict[bh.Card | None, dict[tuple[bh.Card, ...], int]] = {}


class ActionEncoder:
    """:func:`legal_indexes`, :func:`legal_mask` and :func:`decode` for a stream of
    decisions, remembering the index of each play by its cards (the same plays come
    up again and again), so that a lead with hundreds of choices costs one
    dictionary look-up per action."""

    __slots__ = ("_known",)

    _LIMIT: Final = 200_000

    def __init__(self) -> None:
        # per reveal card: the cards of a play -> its index (what an index is does not
        # change: every encoder shares one, warm from the first game of a process)
        self._known = _KNOWN

    def __reduce__(self) -> tuple[type[ActionEncoder], tuple[()]]:
        """A copy (``copy``, ``pickle``) shares its process's indexes, as a new one."""
        return ActionEncoder, ()

    def clear(self) -> None:
        """Forget the indexes known (of every encoder: they share them)."""
        self._known.clear()

    def indexes(self, view: bh.View, legal: Sequence[bh.Action] | None = None) -> list[int]:
        """The index of each legal action, in order."""
        return self.indexes_with(view.legal_actions if legal is None else legal,
                                 reveal_card(view))

    def indexes_with(self, legal: Sequence[bh.Action], special: bh.Card | None) -> list[int]:
        """The index of each of ``legal``, ``special`` being the seat's
        :func:`reveal_card`."""
        known = self._known.get(special)
        if known is None:
            known = self._known[special] = {}
        elif len(known) > self._LIMIT:
            known.clear()
        # (the dict methods are called, not bound to names first: compiled, a call of
        # dict.get is one C call, a bound method's a Python call)
        out: list[int] = []
        for action in legal:
            kind = action[0]
            index: int | None
            if kind is _PLAY:
                cards = action[1]
                index = known.get(cards)
                if index is None:
                    index = known[cards] = _encode(action, special)
            else:
                index = _SIMPLE_INDEX.get(kind)
                if index is None:
                    index = _encode(action, special)
            out.append(index)
        return out

    def mask(self, view: bh.View, legal: Sequence[bh.Action] | None = None
             ) -> npt.NDArray[np.int8]:
        return mask_of(self.indexes(view, legal))

    def decode(self, index: int, view: bh.View,
               legal: Sequence[bh.Action] | None = None) -> bh.Action:
        legal = view.legal_actions if legal is None else legal
        indexes = self.indexes(view, legal)
        try:
            return legal[indexes.index(index)]
        except ValueError:
            raise _illegal(int(index), view, legal, indexes) from None
