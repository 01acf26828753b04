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

import struct
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
    _REL,
    _REL4,
    _SUIT_OF,
    _ZERO_ROW,
    HISTORY,
    SLOTS,
    ObservationEncoder,
    Vector,
    _pack2,
    _rules_vector,
    _seat_block,
)

__all__ = ["ValuesEncoder", "legal_indexes_of"]

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


#: per play (its cards): its hand-block entries, and its history rows per seat that
#: played it and per observer (``[seat][observer]``, the seat one-hot as that observer
#: sees it); the same rows of a pass; what is known of plays, per play (its cards)
#: its counts per slot, per play (its card texts) its hand-block entries and history row
_BY_CARDS: dict[tuple[bh.Card, ...], tuple[Vector, tuple[tuple[bytes, ...], ...]]] = {}
_COUNTS: dict[tuple[bh.Card, ...], bytes] = {}
_TEXTS: dict[tuple[str, ...], tuple[Vector, bytes]] = {}


def _rows_by_seat(row: bytes) -> tuple[tuple[bytes, ...], ...]:
    """A history row (its seat columns 0) as each observer sees it played by each
    seat: ``[seat][observer]``."""
    by_rel = [row[:4 * r] + _ONE + row[4 * r + 4:] for r in range(5)]
    return tuple(tuple(by_rel[_REL[o][seat]] for o in range(5)) for seat in range(5))


_PASS_ROWS: Final = _rows_by_seat(_PASS_ROW)
_ZERO_HIST: Final = bytes(_B_HISTORY_END - _B_HISTORY)
#: where each value is in the tuples of Game.view_values
_I_STAGE: Final = PUBLIC_FIELDS.index("stage")
_I_DEALER: Final = PUBLIC_FIELDS.index("dealer")
_I_RULES: Final = PUBLIC_FIELDS.index("rules")
_I_SIZES: Final = PUBLIC_FIELDS.index("hand_counts")
_I_CANDIDATE: Final = PUBLIC_FIELDS.index("candidate")
_I_EMPEROR: Final = PUBLIC_FIELDS.index("emperor")
_I_CALLED: Final = PUBLIC_FIELDS.index("called")
_I_GUARD_OPEN: Final = PUBLIC_FIELDS.index("guard_open")
_I_REBELS: Final = PUBLIC_FIELDS.index("rebels")
_I_KICKS: Final = PUBLIC_FIELDS.index("kicks")
_I_STAKE: Final = PUBLIC_FIELDS.index("stake")
_I_LEADER: Final = PUBLIC_FIELDS.index("leader")
_I_LAST: Final = PUBLIC_FIELDS.index("last_play")
_I_OUT: Final = PUBLIC_FIELDS.index("out")
_I_LEFT: Final = PUBLIC_FIELDS.index("left")
_I_TO_ACT: Final = OWN_FIELDS.index("to_act")
_I_HAND: Final = OWN_FIELDS.index("hand")
_I_ROLE: Final = OWN_FIELDS.index("role")
#: the five sizes in the order of each observer's relative seats
_ROTATE: Final = tuple(itemgetter(*[(o + r) % 5 for r in range(5)]) for o in range(5))
_pack5_into: Final = struct.Struct("=5f").pack_into


class _Made:
    """What one observer's observation bytes were last made of (objects compared by
    identity, one-hot entries by byte offset, -1: none)."""

    __slots__ = ("buf", "hand", "hist", "key", "kicks", "last", "left", "offsets", "out",
                 "plays", "rebels", "rules", "sizes", "stake", "to_act", "writes")

    def __init__(self) -> None:
        self.buf = bytearray(_NBYTES)
        # (bytes are written through a memoryview: a bytearray's own slice assignment
        # copies the bytes given it into a new bytearray first)
        self.writes = memoryview(self.buf)
        self.hand: object = _NEVER
        self.plays = -1
        self.hist: object = _NEVER
        self.rules: object = _NEVER
        self.sizes: object = _NEVER
        self.rebels: object = _NEVER
        self.left: object = _NEVER
        self.out: object = _NEVER
        self.last: object = _NEVER
        self.kicks = -1
        self.stake = -1
        self.to_act = -1
        self.key: object = _NEVER
        self.offsets = [-1] * 10


class ValuesEncoder(ObservationEncoder):
    """:class:`~baohuang.env.observation.ObservationEncoder` fed a view's values
    (``Game.view_values``) instead of a ``View``, and told each play and pass as it is
    applied (:meth:`record`) instead of reading the view's events: the same vectors,
    for an environment that applies every action of one game itself."""

    __slots__ = ("_by_cards", "_hists", "_made", "_plays")

    def __init__(self) -> None:
        # per play (its cards): its hand-block entries and its history rows
        self._by_cards = _BY_CARDS
        super().__init__()
        # what is known of plays, shared by the encoders of a batch (never changed)
        self._counts = _COUNTS
        self._texts = _TEXTS

    def record(self, seat: int, action: bh.Action) -> None:
        """``seat`` took ``action`` (a play, pass or 接风 request shows in the history
        and the cards played; the role phase's actions do not)."""
        kind = action[0]
        rows: tuple[bytes, ...]
        if kind is _PLAY:
            cards = action[1]
            vectors = self._by_cards.get(cards)
            if vectors is None:
                if len(self._by_cards) > 50_000:
                    self._by_cards.clear()
                block, row = self._play_vectors(tuple(map(str, cards)))
                vectors = self._by_cards[cards] = (block, _rows_by_seat(row))
            played = self._played
            played[seat] += vectors[0]
            self._played_rows[seat] = played[seat, :SLOTS].tobytes()
            self._plays += 1
            rows = vectors[1][seat]
        elif kind is _PASS or kind is _ASK:
            rows = _PASS_ROWS[seat]
        else:
            return
        # each observer's history block, the newest row first
        hists = self._hists
        for o in range(5):
            hists[o] = rows[o] + hists[o][:_HIST_CUT]

    def reset(self) -> None:
        super().reset()
        # per observer: its history block, and what its observation bytes were made of
        self._hists: list[bytes] = [_ZERO_HIST] * 5
        self._made: list[_Made] = [_Made() for _ in range(5)]
        self._plays = 0

    def _state(self) -> tuple[Any, ...]:
        # (the bytes of the observations are made afresh, from this)
        return (*super()._state(), self._hists, self._plays)

    def _set_state(self, state: tuple[Any, ...]) -> None:
        super()._set_state(state)
        self._hists, self._plays = state[7:9]

    def encode_values(self, public: tuple[Any, ...], own: tuple[Any, ...]) -> bytearray:
        """The observation (as float32 bytes) of the seat whose view has these values
        (``public``, ``own``: as ``Game.view_values`` gives them).  The bytes are the
        seat's own buffer, changed where its observation changed since it was last
        made (and written over when it is made again)."""
        me: int = own[_SEAT]
        made = self._made[me]
        buf = made.writes
        rel = _REL4[me]
        stage: bh.Stage = public[_I_STAGE]
        called: bh.Card | None = public[_I_CALLED]
        data = self._hand_bytes_of(stage, own[_I_HAND], called, me)
        if data is not made.hand:
            buf[_B_HAND:_B_HAND_END] = data
            made.hand = data
        if self._plays != made.plays:
            made.plays = self._plays
            rows = self._played_rows
            buf[_B_PLAYED:_B_PLAYED_END] = b"".join(rows[me:] + rows[:me])
        hist = self._hists[me]
        if hist is not made.hist:
            buf[_B_HISTORY:_B_HISTORY_END] = hist
            made.hist = hist
        value = public[_I_RULES]
        if value is not made.rules:
            made.rules = value
            buf[_B_RULES:_B_RULES_END] = _rules_vector(value).tobytes()
        value = public[_I_SIZES]
        if value is not made.sizes:
            made.sizes = value
            _pack5_into(buf, _B_SIZES, *_ROTATE[me](value))
        value = public[_I_REBELS]
        if value is not made.rebels:
            made.rebels = value
            buf[_B_REBELS:_B_REBELS + 20] = _seat_block(value, me, False)
        value = public[_I_LEFT]
        if value is not made.left:
            made.left = value
            buf[_B_LEFT:_B_LEFT + 20] = _seat_block(value, me, False)
        value = public[_I_OUT]
        if value is not made.out:
            made.out = value
            buf[_B_OUT:_B_OUT + 20] = _seat_block(value, me, True)
        one = _ONE
        last: tuple[int, tuple[bh.Card, ...]] | None = public[_I_LAST]
        if last is not made.last:
            made.last = last
            buf[_B_LAST_SEAT:_B_LAST_SEAT + 20] = _ZERO5
            if last is None:
                buf[_B_LAST_CARDS:_B_LAST_CARDS_END] = _ZERO_ROW
            else:
                o = _B_LAST_SEAT + rel[last[0]]
                buf[o:o + 4] = one
                buf[_B_LAST_CARDS:_B_LAST_CARDS_END] = self._cards_bytes(last[1])
        kicks: int = public[_I_KICKS]
        stake: int = public[_I_STAKE]
        if kicks != made.kicks or stake != made.stake:
            made.kicks, made.stake = kicks, stake
            buf[_B_KICKS:_B_KICKS + 8] = _pack2(kicks, stake)
        # the seat to act's one-hot entry changes every decision; the others seldom
        to_act: int | None = own[_I_TO_ACT]
        o = _B_TO_ACT + (20 if to_act is None else rel[to_act])
        was = made.to_act
        if o != was:
            if was >= 0:
                buf[was:was + 4] = _ZERO1
            buf[o:o + 4] = one
            made.to_act = o
        # the other one-hot entries: the byte offset of each 1 now (-1: none), worked
        # out only when one of the values they come from changed
        dealer: int = public[_I_DEALER]
        candidate: int | None = public[_I_CANDIDATE]
        emperor: int | None = public[_I_EMPEROR]
        guard: int | None = own[_GUARD]
        leader: int | None = public[_I_LEADER]
        role: str | None = own[_I_ROLE]
        solo: str | None = own[_SOLO]
        guard_open: bool = public[_I_GUARD_OPEN]
        key = (stage, dealer, candidate, emperor, guard, leader, role, solo, called,
               guard_open)
        if key == made.key:
            return made.buf
        made.key = key
        offsets: list[int] = [_B_STAGE[stage],
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
        before = made.offsets
        for i in range(10):
            o = offsets[i]
            was = before[i]
            if o != was:
                if was >= 0:
                    buf[was:was + 4] = _ZERO1
                if o >= 0:
                    buf[o:o + 4] = one
        made.offsets = offsets
        return made.buf


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


#: a seat's view's values (``Game.view_values``) and the indexes of its legal actions
Decision = tuple[tuple[Any, ...], tuple[Any, ...], list[int]]


class Decisions:
    """What an environment reads of a seat at a state — its view's values and the
    indexes of its legal actions (none unless it is to act) — made once per state of a
    game and seat, though a step asks for them several times."""

    def __init__(self) -> None:
        self._kept: tuple[bh.Game, int, int, Decision] | None = None

    def __reduce__(self) -> tuple[type[Decisions], tuple[()]]:
        """A copy (``copy``, ``pickle``) starts empty: what it keeps is made again."""
        return Decisions, ()

    def of(self, actions: ActionEncoder, game: bh.Game, seat: int) -> Decision:
        kept = self._kept
        if kept is not None and kept[0] is game and kept[1] == game.version and kept[2] == seat:
            return kept[3]
        public, own = game.view_values(seat)
        made = (public, own, legal_indexes_of(actions, public, own))
        self._kept = (game, game.version, seat, made)
        return made
