"""A seat's observation made from its view's values (``Game.view_values``) and the
plays and passes an environment applies: :class:`ValuesEncoder`, the encoder of
:class:`~baohuang.env.vector.VectorEnv` and of the PettingZoo environment, which make
no ``View`` a step; and :func:`legal_indexes_of`, the indexes of the legal actions in
those values.

>>> import baohuang as bh
>>> import numpy as np
>>> from baohuang.env.observation import observe
>>> game, encoder = bh.Game.new(seed=4), ValuesEncoder()
>>> for _ in range(40):
...     seat = game.to_act
...     action = game.legal_actions()[-1]
...     game.apply(action)
...     encoder.record(seat, action)
>>> data = encoder.encode_values(*game.view_values(game.to_act))
>>> np.array_equal(np.frombuffer(data, dtype=np.float32), observe(game.view(game.to_act)))
True
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Final

import baohuang as bh
from baohuang.engine.views import OWN_FIELDS, PUBLIC_FIELDS

from .actions import ActionEncoder, reveal_card_of
from .observation import (
    _B_CALLED,
    _B_CANDIDATE,
    _B_DEALER,
    _B_EMPEROR,
    _B_GUARD,
    _B_GUARD_OPEN,
    _B_HAND,
    _B_HAND_END,
    _B_HIST_SEATS,
    _B_HISTORY,
    _B_HISTORY_END,
    _B_KICKS,
    _B_LAST_CARDS,
    _B_LAST_CARDS_END,
    _B_LAST_SEAT,
    _B_LEADER,
    _B_LEFT,
    _B_OUT,
    _B_PLAYED,
    _B_PLAYED_END,
    _B_REBELS,
    _B_ROLE,
    _B_RULES,
    _B_RULES_END,
    _B_SIZES,
    _B_SOLO,
    _B_STAGE,
    _B_TO_ACT,
    _NBYTES,
    _ONE,
    _PASS_ROW,
    _REL4,
    _SUIT_OF,
    _ZERO_ROW,
    HISTORY,
    SLOTS,
    ObservationEncoder,
    Vector,
    _pack2,
    _pack5,
    _rules_vector,
    _seat_block,
)

__all__ = ["ValuesEncoder", "legal_indexes_of"]

_public_parts: Final = itemgetter(*(PUBLIC_FIELDS.index(name) for name in (
    "stage", "dealer", "rules", "hand_counts", "candidate", "emperor", "called", "guard_open",
    "rebels", "kicks", "stake", "leader", "last_play", "out", "left")))
_own_parts: Final = itemgetter(*(OWN_FIELDS.index(name) for name in (
    "seat", "to_act", "hand", "guard", "role", "solo", "legal_actions")))
_reveal_parts: Final = itemgetter(*(PUBLIC_FIELDS.index(name) for name in (
    "stage", "guard_open", "rebels", "rules", "called")))
_SEAT: Final = OWN_FIELDS.index("seat")
_GUARD: Final = OWN_FIELDS.index("guard")
_LEGAL: Final = OWN_FIELDS.index("legal_actions")
_SOLO: Final = OWN_FIELDS.index("solo")
_PLAY: Final = bh.ActionKind.PLAY
_PASS: Final = bh.ActionKind.PASS
_ASK: Final = bh.ActionKind.ASK_LEAD
_NEVER: Final = object()
_ZERO1: Final = bytes(4)
_ZERO5: Final = bytes(20)
_ROW: Final = 4 * (5 + 1 + SLOTS)
_HIST_CUT: Final = 4 * HISTORY * (5 + 1 + SLOTS) - _ROW


#: per play (its cards): its hand-block entries and history row; its counts per slot;
#: per play (its card texts): its hand-block entries and history row
_BY_CARDS: dict[tuple[bh.Card, ...], tuple[Vector, bytes]] = {}
_COUNTS: dict[tuple[bh.Card, ...], bytes] = {}
_TEXTS: dict[tuple[str, ...], tuple[Vector, bytes]] = {}


class ValuesEncoder(ObservationEncoder):
    """:class:`~baohuang.env.observation.ObservationEncoder` fed a view's values
    (``Game.view_values``) instead of a ``View``, and told each play and pass as it is
    applied (:meth:`record`) instead of reading the view's events: the same vectors,
    for an environment that applies every action of one game itself."""

    __slots__ = ("_bufs", "_by_cards", "_made", "_plays")

    def __init__(self) -> None:
        # per play (its cards): its hand-block entries and its history row
        self._by_cards = _BY_CARDS
        super().__init__()
        # what is known of plays, shared by the encoders of a batch (never changed)
        self._counts = _COUNTS
        self._texts = _TEXTS

    def record(self, seat: int, action: bh.Action) -> None:
        """``seat`` took ``action`` (a play, pass or 接风 request shows in the history
        and the cards played; the role phase's actions do not)."""
        kind = action[0]
        if kind is _PLAY:
            cards = action[1]
            vectors = self._by_cards.get(cards)
            if vectors is None:
                if len(self._by_cards) > 50_000:
                    self._by_cards.clear()
                vectors = self._by_cards[cards] = self._play_vectors(tuple(map(str, cards)))
            played = self._played
            played[seat] += vectors[0]
            self._played_rows[seat] = played[seat, :SLOTS].tobytes()
            self._plays += 1
            self._hist = vectors[1] + self._hist[:_HIST_CUT]
        elif kind is _PASS or kind is _ASK:
            self._hist = _PASS_ROW + self._hist[:_HIST_CUT]
        else:
            return
        seats = self._hist_seats
        seats.insert(0, seat)
        if len(seats) > HISTORY:
            seats.pop()

    def reset(self) -> None:
        super().reset()
        # per observer: its observation as bytes, and what they were made of (the
        # objects compared by identity, one-hot entries by byte offset; -1: none)
        self._bufs: list[bytearray] = [bytearray(_NBYTES) for _ in range(5)]
        self._made: list[list[Any]] = [[*[_NEVER] * 12, [-1] * 11] for _ in range(5)]
        self._plays = 0

    def encode_values(self, public: tuple[Any, ...], own: tuple[Any, ...]) -> bytearray:
        """The observation (as float32 bytes) of the seat whose view has these values
        (``public``, ``own``: as ``Game.view_values`` gives them).  The bytes are the
        seat's own buffer, changed where its observation changed since it was last
        made (and written over when it is made again)."""
        (stage, dealer, rules_dict, sizes, candidate, emperor, called, guard_open, rebels,
         kicks, stake, leader, last, out, left) = _public_parts(public)
        me, to_act, hand, guard, role, solo, _ = _own_parts(own)
        buf: bytearray = self._bufs[me]
        made = self._made[me]
        rel = _REL4[me]
        data = self._hand_bytes_of(stage, hand, called, me)
        if data is not made[0]:
            buf[_B_HAND:_B_HAND_END] = made[0] = data
        if self._plays != made[1]:
            made[1] = self._plays
            rows = self._played_rows
            buf[_B_PLAYED:_B_PLAYED_END] = b"".join(rows[me:] + rows[:me])
        hist = self._hist
        one = _ONE
        if hist is not made[2]:
            buf[_B_HISTORY:_B_HISTORY_END] = made[2] = hist
            for o, seat in zip(_B_HIST_SEATS, self._hist_seats, strict=False):
                o += rel[seat]
                buf[o:o + 4] = one
        if rules_dict is not made[3]:
            made[3] = rules_dict
            buf[_B_RULES:_B_RULES_END] = _rules_vector(rules_dict).tobytes()
        if sizes is not made[4]:
            made[4] = sizes
            buf[_B_SIZES:_B_SIZES + 20] = _pack5(*sizes[me:], *sizes[:me])
        if rebels is not made[5]:
            made[5] = rebels
            buf[_B_REBELS:_B_REBELS + 20] = _seat_block(rebels, me, False)
        if left is not made[6]:
            made[6] = left
            buf[_B_LEFT:_B_LEFT + 20] = _seat_block(left, me, False)
        if out is not made[7]:
            made[7] = out
            buf[_B_OUT:_B_OUT + 20] = _seat_block(out, me, True)
        if last is not made[8]:
            made[8] = last
            buf[_B_LAST_SEAT:_B_LAST_SEAT + 20] = _ZERO5
            if last is None:
                buf[_B_LAST_CARDS:_B_LAST_CARDS_END] = _ZERO_ROW
            else:
                o = _B_LAST_SEAT + rel[last[0]]
                buf[o:o + 4] = one
                buf[_B_LAST_CARDS:_B_LAST_CARDS_END] = self._cards_bytes(last[1])
        if kicks != made[9] or stake != made[10]:
            made[9], made[10] = kicks, stake
            buf[_B_KICKS:_B_KICKS + 8] = _pack2(kicks, stake)
        # one-hot entries: the byte offset of each 1 now (-1: none), as made[12] has them,
        # worked out only when one of the values they come from changed (made[11])
        key = (stage, to_act, dealer, candidate, emperor, guard, leader, role, solo, called,
               guard_open)
        if key == made[11]:
            return buf
        made[11] = key
        offsets = [_B_STAGE[stage],
                   _B_TO_ACT + (20 if to_act is None else rel[to_act]),
                   _B_DEALER + rel[dealer],
                   -1 if candidate is None else _B_CANDIDATE + rel[candidate],
                   -1 if emperor is None else _B_EMPEROR + rel[emperor],
                   -1 if guard is None else _B_GUARD + rel[guard],
                   -1 if leader is None else _B_LEADER + rel[leader],
                   -1 if role is None else _B_ROLE[role],
                   -1 if solo is None else _B_SOLO[solo],
                   -1 if called is None or called.suit is None
                   else _B_CALLED + 4 * int(_SUIT_OF[int(called)]),
                   _B_GUARD_OPEN if guard_open else -1]
        before = made[12]
        if offsets != before:
            for was, o in zip(before, offsets, strict=True):
                if o != was:
                    if was >= 0:
                        buf[was:was + 4] = _ZERO1
                    if o >= 0:
                        buf[o:o + 4] = one
            made[12] = offsets
        return buf




def legal_indexes_of(actions: ActionEncoder, public: tuple[Any, ...],
                     own: tuple[Any, ...]) -> list[int]:
    """The index of each legal action of the seat whose view has these values
    (``public``, ``own``: as ``Game.view_values`` gives them), in order."""
    seat = own[_SEAT]
    special = None
    if own[_GUARD] == seat:         # (only a hidden Guard's plays can show him)
        stage, guard_open, rebels, rules, called = _reveal_parts(public)
        special = reveal_card_of(seat, seat, stage, guard_open, own[_SOLO], rebels, rules,
                                 called)
    return actions.indexes_with(own[_LEGAL], special)
