"""The observation of one seat: a numeric vector built only from ``game.view(seat)``.

Seats are relative to the observer: relative seat 0 is the observer, 1 his 下家
(next to play after him), 2, 3, and 4 his 上家.  Card counts are per *slot*:
slots 0 … 12 are the ranks 3 … A, 2; slot 13 the small joker, 14 the big joker,
15 the 特画 ``TH``.  Counts are raw numbers (not scaled); one-hot blocks are 0/1.

:data:`OBS_LAYOUT` names each block and its index range (``docs/rl.md`` has the
table); :data:`OBS_SIZE` is the length, :data:`OBS_HIGH` the largest value of each
entry (the lower bound is 0 everywhere).

>>> import baohuang as bh
>>> from baohuang.env.observation import OBS_LAYOUT, OBS_SIZE, observe
>>> game = bh.Game.new(seed=1)
>>> obs = observe(game.view(0))
>>> obs.shape == (OBS_SIZE,), int(obs[OBS_LAYOUT["hand"]].sum()) == len(game.hand(0))
(True, True)

:class:`ObservationEncoder` makes the same vectors for the views of one game
taken in order, reading each public event once (what an environment uses);
:func:`observe` makes one from scratch.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from enum import Enum
from typing import Any, Final

import numpy as np
import numpy.typing as npt

import baohuang as bh
from baohuang.engine.events import EventKind, Play
from baohuang.engine.rules import option_types

__all__ = [
    "HISTORY",
    "OBS_HIGH",
    "OBS_LAYOUT",
    "OBS_SIZE",
    "OBS_VERSION",
    "RULE_ENTRIES",
    "SLOTS",
    "ObservationEncoder",
    "observe",
    "rule_entries",
]

Vector = npt.NDArray[np.float32]

#: Card slots: ranks 3 … 2, then SJ, BJ, TH.
SLOTS: Final = 16
#: How many past plays and passes the history block holds.
HISTORY: Final = 8
_HIST_ROW: Final = 5 + 1 + SLOTS            # seat one-hot, pass, card counts
_STAGES: Final = tuple(bh.Stage)
#: The layout of every block but ``rules`` (raised when one of them changes):
#: stored with a network's weights beside its rule entries (``learn/model.py``).
OBS_VERSION: Final = 1


def rule_entries(rules: type[bh.RuleSet] = bh.RuleSet) -> tuple[str, ...]:
    """The entries of the ``rules`` block, made from the options of ``rules``
    (:func:`baohuang.engine.rules.option_types`): ``NAME`` for an on/off option,
    ``NAME=VALUE`` for each value of a choice (one-hot); numbers are left out.

    >>> rule_entries()[:4]
    ('deck=full', 'deck=no345', 'deck=shandong165', 'hold_back_emperor_card')
    """
    entries: list[str] = []
    for name, kind in option_types(rules):
        if kind is bool:
            entries.append(name)
        elif isinstance(kind, type) and issubclass(kind, Enum):
            entries += [f"{name}={member.value}" for member in kind]
    return tuple(entries)


#: The entries of the ``rules`` block, in order.
RULE_ENTRIES: Final = rule_entries()
_N_RULES: Final = len(RULE_ENTRIES)

#: (name, size, largest value, what it holds), in order.
_BLOCKS: Final[tuple[tuple[str, int, float, str], ...]] = (
    ("hand", SLOTS, 16, "own cards per slot"),
    ("hand_suits", 48, 4, "own cards per rank+suit, ranks 3 … A (what can be called): "
                          "4·(rank − 3) + suit − 1, suits s h d c"),
    ("hand_marked", 3, 4, "own Emperor card BJ* (0/1), Guard card SJ* (0/1), copies of "
                          "the called card"),
    ("hand_sizes", 5, 216, "cards held, per relative seat"),
    ("played", 5 * SLOTS, 16, "cards played so far, per relative seat (5 × 16 slots)"),
    ("stage", len(_STAGES), 1, "one-hot: " + ", ".join(s.value for s in _STAGES)),
    ("to_act", 6, 1, "one-hot relative seat to act; the sixth entry: not shown (the "
                     "guard stage, to other seats) or nobody (game over)"),
    ("dealer", 5, 1, "one-hot relative seat"),
    ("candidate", 5, 1, "one-hot relative seat of the Emperor candidate (emperor stage)"),
    ("emperor", 5, 1, "one-hot relative seat of the Emperor, once fixed"),
    ("guard", 5, 1, "one-hot relative seat of the Guard, when this seat may know it"),
    ("role", 3, 1, "own role, one-hot: emperor, guard, rebel (all 0 while unknown)"),
    ("solo", 2, 1, "solo as known to this seat: open (明独), hidden (暗独)"),
    ("called", 48, 1, "one-hot called card (call mode), as the call actions"),
    ("guard_open", 1, 1, "明保 declared"),
    ("rebels", 5, 1, "relative seats that said 造反"),
    ("kicks", 1, 8, "number of standing kicks (踢)"),
    ("stake", 1, 64, "the stake multiplier"),
    ("leader", 5, 1, "one-hot relative seat who led the current round"),
    ("last_seat", 5, 1, "one-hot relative seat of the play to beat"),
    ("last_cards", SLOTS, 16, "the play to beat, per slot"),
    ("out", 5, 5, "finishing place per relative seat (0: still in)"),
    ("left", 5, 1, "relative seats that left the game"),
    ("history", HISTORY * _HIST_ROW, 16,
     f"the last {HISTORY} plays and passes, most recent first, each 22 entries: "
     "one-hot relative seat (5), pass (1), cards per slot (16)"),
    ("rules", _N_RULES, 1, "rule options, one entry an on/off option, one a value of a "
                           "choice (RULE_ENTRIES, from RuleSet's options; numbers left out)"),
)


def _layout() -> dict[str, slice]:
    out: dict[str, slice] = {}
    start = 0
    for name, size, _, _ in _BLOCKS:
        out[name] = slice(start, start + size)
        start += size
    return out


#: Block name -> its index range in the observation.
OBS_LAYOUT: Final = _layout()
OBS_SIZE: Final = max(s.stop for s in OBS_LAYOUT.values())
#: The largest value of each entry.
OBS_HIGH: Final = np.concatenate([np.full(size, high, dtype=np.float32)
                                  for _, size, high, _ in _BLOCKS])

_L = OBS_LAYOUT
_HAND0, _HAND1 = _L["hand"].start, _L["hand_marked"].stop
_SIZES = _L["hand_sizes"].start
_PLAYED = _L["played"]
_STAGE = {stage: _L["stage"].start + i for i, stage in enumerate(_STAGES)}
_TO_ACT = _L["to_act"].start
_DEALER = _L["dealer"].start
_CANDIDATE = _L["candidate"].start
_EMPEROR = _L["emperor"].start
_GUARD = _L["guard"].start
_ROLE = {name: _L["role"].start + i for i, name in enumerate(("emperor", "guard", "rebel"))}
_SOLO = {"open": _L["solo"].start, "hidden": _L["solo"].start + 1}
_CALLED = _L["called"].start
_GUARD_OPEN = _L["guard_open"].start
_REBELS = _L["rebels"].start
_KICKS = _L["kicks"].start
_STAKE = _L["stake"].start
_LEADER = _L["leader"].start
_LAST_SEAT = _L["last_seat"].start
_LAST_CARDS = _L["last_cards"]
_OUT = _L["out"].start
_LEFT = _L["left"].start
_HISTORY = _L["history"]
_RULES = _L["rules"]
_SIZE_POS: Final = tuple(range(_SIZES, _SIZES + 5))
_HIST_SEAT_POS: Final = tuple(_HISTORY.start + i * _HIST_ROW for i in range(HISTORY))
_HAND_SIZE: Final = _HAND1 - _HAND0
_HAND_CALLED: Final = _HAND1 - 1
_PLAY_STAGE: Final = bh.Stage.PLAY
# the event kinds the observation reads (typed events: View.seen)
_PLAY: Final = EventKind.PLAY
_PASS: Final = EventKind.PASS
_ASK_LEAD: Final = EventKind.ASK_LEAD
_DEAL: Final = EventKind.DEAL
#: byte offsets (4 bytes a number) of the blocks and entries encode() writes
_NBYTES: Final[int] = 4 * int(OBS_SIZE)
# (each typed int and Final: compiled, a Final int is a C constant and its sums are
# machine arithmetic, where a module global is a dict look-up and an object)
_B_HAND: Final[int] = 4 * int(_HAND0)
_B_HAND_END: Final[int] = 4 * int(_HAND1)
_B_PLAYED: Final[int] = 4 * int(_PLAYED.start)
_B_PLAYED_END: Final[int] = 4 * int(_PLAYED.stop)
_B_HISTORY: Final[int] = 4 * int(_HISTORY.start)
_B_HISTORY_END: Final[int] = 4 * int(_HISTORY.stop)
_B_RULES: Final[int] = 4 * int(_RULES.start)
_B_RULES_END: Final[int] = 4 * int(_RULES.stop)
_B_LAST_CARDS: Final[int] = 4 * int(_LAST_CARDS.start)
_B_LAST_CARDS_END: Final[int] = 4 * int(_LAST_CARDS.stop)
_B_SIZES: Final[int] = 4 * int(_SIZES)
_B_KICKS: Final[int] = 4 * int(_KICKS)
_B_STAGE: Final[dict[bh.Stage, int]] = {stage: 4 * i for stage, i in _STAGE.items()}
_B_ROLE: Final[dict[str, int]] = {role: 4 * i for role, i in _ROLE.items()}
_B_SOLO: Final[dict[str, int]] = {solo: 4 * i for solo, i in _SOLO.items()}
_B_TO_ACT: Final[int] = 4 * int(_TO_ACT)
_B_DEALER: Final[int] = 4 * int(_DEALER)
_B_CANDIDATE: Final[int] = 4 * int(_CANDIDATE)
_B_EMPEROR: Final[int] = 4 * int(_EMPEROR)
_B_GUARD: Final[int] = 4 * int(_GUARD)
_B_LEADER: Final[int] = 4 * int(_LEADER)
_B_CALLED: Final[int] = 4 * int(_CALLED)
_B_GUARD_OPEN: Final[int] = 4 * int(_GUARD_OPEN)
_B_REBELS: Final[int] = 4 * int(_REBELS)
_B_LEFT: Final[int] = 4 * int(_LEFT)
_B_OUT: Final[int] = 4 * int(_OUT)
_B_LAST_SEAT: Final[int] = 4 * int(_LAST_SEAT)
_B_HIST_SEATS: Final = tuple(4 * (_HISTORY.start + i * _HIST_ROW) for i in range(HISTORY))
_pack5 = struct.Struct("=5f").pack
_pack2 = struct.Struct("=2f").pack
#: the bytes of the float32 1.0 (native order, as numpy reads them)
_ONE: Final = _pack2(1.0, 0.0)[:4]
_ZERO_ROW: Final = bytes(4 * SLOTS)
_PASS_ROW: Final = np.eye(1, _HIST_ROW, 5, dtype=np.float32).tobytes()

#: _REL[observer][seat]: the relative seat; _ROT[observer]: absolute seats in relative order
_REL: Final[tuple[tuple[int, ...], ...]] = tuple(tuple((s - o) % 5 for s in range(5))
                                                 for o in range(5))
#: the same, times 4 (bytes)
_REL4: Final = tuple(tuple(4 * r for r in row) for row in _REL)
_ROT: Final = tuple(np.array([(o + i) % 5 for i in range(5)]) for o in range(5))


#: per (seats, observer, placed): a block of five numbers by relative seat, see _seat_block
_SEAT_BLOCKS: dict[tuple[tuple[int, ...], int, bool], bytes] = {}


def _seat_block(seats: tuple[int, ...], me: int, placed: bool) -> bytes:
    """The bytes of a block of five numbers, one per relative seat of observer ``me``:
    1 for each of ``seats`` (``placed``: its place in ``seats``, 1 first), 0 for the
    others (the rebels, left and out blocks)."""
    key = (seats, me, placed)
    block = _SEAT_BLOCKS.get(key)
    if block is None:
        values = [0.0] * 5
        for place, seat in enumerate(seats, 1):
            values[_REL[me][seat]] = float(place) if placed else 1.0
        if len(_SEAT_BLOCKS) > 10_000:
            _SEAT_BLOCKS.clear()
        block = _SEAT_BLOCKS[key] = _pack5(*values)
    return block


def _all_cards() -> list[bh.Card]:
    cards = set(bh.make_deck("full")) | {bh.TEHUA_CARD}
    for rank in bh.Rank:
        if not rank.is_joker:
            cards.add(bh.Card.make(rank))            # also cards written without a suit
    return sorted(cards)


_CARDS: Final = _all_cards()
_MAX_VALUE: Final = max(int(c) for c in _CARDS) + 1
#: per card value: its slot; its rank+suit entry in hand_suits (-1: none)
_SLOT_OF = np.full(_MAX_VALUE, -1, dtype=np.int64)
_SUIT_OF = np.full(_MAX_VALUE, -1, dtype=np.int64)
for _card in _CARDS:
    _SLOT_OF[int(_card)] = int(_card.rank) - 3
    if _card.suit is not None and _card.rank < bh.Rank.TWO:
        _SUIT_OF[int(_card)] = 4 * (int(_card.rank) - 3) + int(_card.suit) - 1
_CARD_BY_TEXT: Final = {str(c): int(c) for c in _CARDS}
#: the same as tuples of Python ints (read a card at a time)
_SLOT_LIST: Final[tuple[int, ...]] = tuple(int(v) for v in _SLOT_OF)
_SUIT_LIST: Final[tuple[int, ...]] = tuple(int(v) for v in _SUIT_OF)
_EMPEROR_VALUE: Final[int] = int(bh.EMPEROR_CARD)
_GUARD_VALUE: Final[int] = int(bh.GUARD_CARD)


def _counts_of_slots(slots: Sequence[int] | npt.NDArray[np.int64]) -> Vector:
    return np.bincount(np.asarray(slots, dtype=np.int64), minlength=SLOTS).astype(np.float32)


_RULE_TESTS: Final = tuple(entry.partition("=")[::2] for entry in RULE_ENTRIES)


def _rules_vector(rules: dict[str, Any]) -> Vector:
    """The ``rules`` block of a view's rules (``RuleSet.to_dict()``)."""
    return np.array([float(rules.get(name) == value) if value else float(bool(rules.get(name)))
                     for name, value in _RULE_TESTS], dtype=np.float32)


class ObservationEncoder:
    """Observations of the views of **one game**, taken in order (of any seats).

    It reads each public event once (the cards each seat played, the history), and
    keeps a seat's hand block while its hand is the same (in the play phase: the hand
    it was first seen with, less what it played since).  Call :meth:`reset` for a new
    game; given a view with fewer events than it has read, it starts over.

    The vector is put together as the bytes of float32 numbers (numpy's per-call cost
    would dominate for blocks this small) and returned as a numpy array over them."""

    __slots__ = ("_bases", "_counts", "_hands", "_hist", "_hist_seats", "_played",
                 "_played_rows", "_read", "_rules", "_texts")

    def __init__(self) -> None:
        # per play: its card counts per slot, as bytes
        self._counts: dict[tuple[bh.Card, ...], bytes] = {}
        # per play (its card texts): its hand-block entries, and its history row (bytes)
        self._texts: dict[tuple[str, ...], tuple[Vector, bytes]] = {}
        self.reset()

    def reset(self) -> None:
        """Forget the game read so far."""
        self._read = 0
        # per seat: what it played, in the entries of the hand block (its first 16
        # entries are the cards played per slot), and those 16 as bytes
        self._played = np.zeros((5, _HAND_SIZE), dtype=np.float32)
        self._played_rows = [_ZERO_ROW] * 5
        # the history block without its seat columns, most recent first
        self._hist = bytes(4 * HISTORY * _HIST_ROW)
        self._hist_seats: list[int] = []
        # per seat: (its hand, the called card, the hand block as bytes)
        self._hands: dict[int, tuple[Any, bh.Card | None, bytes]] = {}
        # per seat, in the play phase: its hand block plus what it had played then
        self._bases: dict[int, Vector] = {}
        self._rules: tuple[dict[str, Any], bytes] | None = None
        if len(self._counts) > 50_000:
            self._counts.clear()
        if len(self._texts) > 50_000:
            self._texts.clear()

    # -- copies ----------------------------------------------------------------------
    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        """For ``copy.deepcopy`` and ``pickle``: what it has read of its game; the
        copy's caches start afresh.  (A compiled build's encoder can be made only
        through its constructor.)"""
        return _restore_encoder, (type(self), self._state())

    def _state(self) -> tuple[Any, ...]:
        """What :meth:`__reduce__` keeps."""
        return (self._read, self._played, self._played_rows, self._hist, self._hist_seats,
                self._hands, self._bases)

    def _set_state(self, state: tuple[Any, ...]) -> None:
        (self._read, self._played, self._played_rows, self._hist, self._hist_seats,
         self._hands, self._bases) = state[:7]

    # -- public events -------------------------------------------------------------
    def _play_vectors(self, texts: tuple[str, ...]) -> tuple[Vector, bytes]:
        vectors = self._texts.get(texts)
        if vectors is None:
            block = np.zeros(_HAND_SIZE, dtype=np.float32)
            for text in texts:
                card = _CARD_BY_TEXT[text]
                block[_SLOT_OF[card]] += 1
                suit = _SUIT_OF[card]
                if suit >= 0:
                    block[SLOTS + suit] += 1
                if card == bh.EMPEROR_CARD:
                    block[SLOTS + 48] += 1
                elif card == bh.GUARD_CARD:
                    block[SLOTS + 49] += 1
            row = np.zeros(_HIST_ROW, dtype=np.float32)
            row[6:] = block[:SLOTS]
            vectors = self._texts[texts] = (block, row.tobytes())
        return vectors

    def _read_events(self, view: bh.View) -> None:
        """Reads the events of ``view`` not read yet (typed: :meth:`View.seen`)."""
        n = len(view.events)
        if n < self._read:
            self.reset()
        seats, played = self._hist_seats, self._played
        cut = len(self._hist) - 4 * _HIST_ROW
        for ev in view.seen(self._read):
            kind = ev.kind
            if kind is _PLAY:
                data = ev.data
                assert isinstance(data, Play)
                block, row = self._play_vectors(tuple(data.cards))
                seat = ev.seat
                assert seat is not None
                played[seat] += block
                self._played_rows[seat] = played[seat, :SLOTS].tobytes()
                self._hist = row + self._hist[:cut]
            elif kind is _PASS or kind is _ASK_LEAD:
                seat = ev.seat
                assert seat is not None
                self._hist = _PASS_ROW + self._hist[:cut]
            elif kind is _DEAL:
                read = self._read
                self.reset()
                self._read = read
                seats = self._hist_seats
                played = self._played
                continue
            else:
                continue
            seats.insert(0, seat)
            if len(seats) > HISTORY:
                seats.pop()
        self._read = n

    # -- own hand ------------------------------------------------------------------
    def _hand_block(self, hand: tuple[bh.Card, ...]) -> Vector:
        """The hand block, its last entry (the called card's copies) 0.  (Counted in
        a list, one NumPy call: NumPy's per-call cost is most of a few dozen cards.)"""
        counts = [0] * _HAND_SIZE
        for card in hand:
            value = int(card)
            counts[_SLOT_LIST[value]] += 1
            entry = _SUIT_LIST[value]
            if entry >= 0:
                counts[SLOTS + entry] += 1
            if value == _EMPEROR_VALUE:
                counts[SLOTS + 48] += 1
            elif value == _GUARD_VALUE:
                counts[SLOTS + 49] += 1
        return np.array(counts, dtype=np.float32)

    def _hand_bytes(self, view: bh.View, me: int) -> bytes:
        return self._hand_bytes_of(view.stage, view.hand, view.called, me)

    def _hand_bytes_of(self, stage: bh.Stage, hand: tuple[bh.Card, ...],
                       called: bh.Card | None, me: int) -> bytes:
        """The hand block of seat ``me`` holding ``hand`` (as bytes)."""
        if stage is _PLAY_STAGE:
            # in play a hand changes only by the seat's own plays, read from the events
            key: Any = self._played_rows[me]
            kept = self._hands.get(me)
            if kept is not None and kept[0] is key and kept[1] == called:
                return kept[2]
            base = self._bases.get(me)
            if base is None:
                base = self._bases[me] = self._hand_block(hand) + self._played[me]
            block: Vector = base - self._played[me]
        else:
            key = hand
            kept = self._hands.get(me)
            if kept is not None and kept[0] is key and kept[1] == called:
                return kept[2]
            block = self._hand_block(hand)
        if called is not None and called.suit is not None:
            block[_HAND_SIZE - 1] = block[SLOTS + _SUIT_OF[int(called)]]
        data = block.tobytes()
        self._hands[me] = (key, called, data)
        return data

    def _cards_bytes(self, cards: tuple[bh.Card, ...]) -> bytes:
        data = self._counts.get(cards)
        if data is None:
            values = np.fromiter(cards, dtype=np.int64, count=len(cards))
            data = self._counts[cards] = _counts_of_slots(_SLOT_OF[values]).tobytes()
        return data

    # -- the vector ------------------------------------------------------------------
    def encode(self, view: bh.View) -> Vector:
        """The observation of ``view`` (a seat's view, not a spectator's)."""
        me = view.seat
        if me is None:
            raise ValueError("observations are made for a seat, not a spectator's view")
        if len(view.events) != self._read:
            self._read_events(view)
        rel = _REL4[me]
        buf = bytearray(_NBYTES)
        buf[_B_HAND:_B_HAND_END] = self._hand_bytes(view, me)
        rows = self._played_rows
        buf[_B_PLAYED:_B_PLAYED_END] = b"".join(rows[me:] + rows[:me])
        buf[_B_HISTORY:_B_HISTORY_END] = self._hist
        rules = self._rules
        if rules is None or rules[0] is not view.rules:
            rules = self._rules = (view.rules, _rules_vector(view.rules).tobytes())
        buf[_B_RULES:_B_RULES_END] = rules[1]
        sizes = view.hand_counts
        buf[_B_SIZES:_B_SIZES + 20] = _pack5(*sizes[me:], *sizes[:me])
        buf[_B_KICKS:_B_KICKS + 8] = _pack2(view.kicks, view.stake)
        one = _ONE
        o = _B_STAGE[view.stage]
        buf[o:o + 4] = one
        to_act = view.to_act
        o = _B_TO_ACT + (20 if to_act is None else rel[to_act])
        buf[o:o + 4] = one
        o = _B_DEALER + rel[view.dealer]
        buf[o:o + 4] = one
        seat = view.candidate
        if seat is not None:
            o = _B_CANDIDATE + rel[seat]
            buf[o:o + 4] = one
        seat = view.emperor
        if seat is not None:
            o = _B_EMPEROR + rel[seat]
            buf[o:o + 4] = one
        seat = view.guard
        if seat is not None:
            o = _B_GUARD + rel[seat]
            buf[o:o + 4] = one
        seat = view.leader
        if seat is not None:
            o = _B_LEADER + rel[seat]
            buf[o:o + 4] = one
        if view.role is not None:
            o = _B_ROLE[view.role]
            buf[o:o + 4] = one
        if view.solo is not None:
            o = _B_SOLO[view.solo]
            buf[o:o + 4] = one
        called = view.called
        if called is not None and called.suit is not None:
            o = _B_CALLED + 4 * int(_SUIT_OF[int(called)])
            buf[o:o + 4] = one
        if view.guard_open:
            buf[_B_GUARD_OPEN:_B_GUARD_OPEN + 4] = one
        buf[_B_REBELS:_B_REBELS + 20] = _seat_block(view.rebels, me, False)
        buf[_B_LEFT:_B_LEFT + 20] = _seat_block(view.left, me, False)
        buf[_B_OUT:_B_OUT + 20] = _seat_block(view.out, me, True)
        last = view.last_play
        if last is not None:
            o = _B_LAST_SEAT + rel[last[0]]
            buf[o:o + 4] = one
            buf[_B_LAST_CARDS:_B_LAST_CARDS_END] = self._cards_bytes(last[1])
        for o, seat in zip(_B_HIST_SEATS, self._hist_seats, strict=False):
            o += rel[seat]
            buf[o:o + 4] = one
        return np.frombuffer(buf, dtype=np.float32)


def _restore_encoder(cls: type[ObservationEncoder], state: tuple[Any, ...]
                     ) -> ObservationEncoder:
    """The encoder of :meth:`ObservationEncoder.__reduce__`."""
    encoder = cls()
    encoder._set_state(state)
    return encoder


def observe(view: bh.View) -> Vector:
    """The observation of ``view``, made from scratch."""
    return ObservationEncoder().encode(view)
