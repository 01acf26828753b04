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

from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import numpy.typing as npt

import baohuang as bh

__all__ = [
    "HISTORY",
    "OBS_HIGH",
    "OBS_LAYOUT",
    "OBS_SIZE",
    "SLOTS",
    "ObservationEncoder",
    "observe",
]

Vector = npt.NDArray[np.float32]

#: Card slots: ranks 3 … 2, then SJ, BJ, TH.
SLOTS: Final = 16
#: How many past plays and passes the history block holds.
HISTORY: Final = 8
_HIST_ROW: Final = 5 + 1 + SLOTS            # seat one-hot, pass, card counts
_STAGES: Final = tuple(bh.Stage)
_RULE_FLAGS: Final = ("guard_mode", "called_card_high", "kaopai", "hold_sixes",
                      "jokers_with_twos", "steal_solo", "rebellion", "kick", "tribute",
                      "forced_call")
_RULE_CHOICES: Final = (("deck", ("full", "no345", "shandong165")),
                        ("lead_after_out", ("teammate", "next", "apply")),
                        ("scoring", ("shandong", "placement", "wurenju")),
                        ("abdication", ("none", "skip_two_if_solo", "to_prev",
                                        "to_prev_with_two", "clockwise_with_two",
                                        "clockwise_then_two")))
_N_RULES: Final = len(_RULE_FLAGS) + sum(len(values) for _, values in _RULE_CHOICES)

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
    ("rules", _N_RULES, 1, "rule options: " + ", ".join(_RULE_FLAGS) + " (guard_mode: 1 = "
                           "call), then one-hot " + ", ".join(n for n, _ in _RULE_CHOICES)),
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
#: What each block holds (for the documentation).
OBS_DOC: Final = {name: text for name, _, _, text in _BLOCKS}

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
_PASS_ROW: Final = np.zeros(_HIST_ROW, dtype=np.float32)
_PASS_ROW[5] = 1.0

#: _REL[observer][seat]: the relative seat; _ROT[observer]: absolute seats in relative order
_REL: Final = tuple(tuple((s - o) % 5 for s in range(5)) for o in range(5))
_ROT: Final = tuple(np.array([(o + i) % 5 for i in range(5)]) for o in range(5))


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


def _counts_of_slots(slots: Sequence[int] | npt.NDArray[np.int64]) -> Vector:
    return np.bincount(np.asarray(slots, dtype=np.int64), minlength=SLOTS).astype(np.float32)


def _rules_vector(rules: dict[str, Any]) -> Vector:
    values = [float(rules.get("guard_mode") == "call")]
    values += [float(bool(rules.get(flag))) for flag in _RULE_FLAGS[1:]]
    for name, choices in _RULE_CHOICES:
        values += [float(rules.get(name) == choice) for choice in choices]
    return np.array(values, dtype=np.float32)


class ObservationEncoder:
    """Observations of the views of **one game**, taken in order (of any seats).

    It reads each public event once (the cards each seat played, the history), and
    remembers a seat's hand block while its hand is the same.  Call :meth:`reset` for a
    new game; given a view with fewer events than it has read, it starts over."""

    __slots__ = ("_bases", "_counts", "_hands", "_hist", "_hist_flat", "_hist_seats",
                 "_played", "_read", "_rules", "_texts")

    def __init__(self) -> None:
        self._counts: dict[tuple[bh.Card, ...], Vector] = {}
        # per play (its card texts): its hand-block entries, and its history row
        self._texts: dict[tuple[str, ...], tuple[Vector, Vector]] = {}
        # per seat: what it played, in the entries of the hand block (its first 16
        # entries are the cards played per slot)
        self._played = np.zeros((5, _HAND_SIZE), dtype=np.float32)
        # the history block without its seat columns, most recent first
        self._hist = np.zeros((HISTORY, _HIST_ROW), dtype=np.float32)
        self._hist_flat = self._hist.reshape(-1)
        self.reset()

    def reset(self) -> None:
        """Forget the game read so far."""
        self._read = 0
        self._played[:] = 0.0
        self._hist[:] = 0.0
        self._hist_seats: list[int] = []
        self._hands: dict[int, tuple[tuple[bh.Card, ...], bh.Card | None, Vector]] = {}
        # per seat, in the play phase: its hand block plus what it has played
        self._bases: dict[int, Vector] = {}
        self._rules: tuple[dict[str, Any], Vector] | None = None
        if len(self._counts) > 50_000:
            self._counts.clear()
        if len(self._texts) > 50_000:
            self._texts.clear()

    # -- public events -------------------------------------------------------------
    def _play_vectors(self, texts: tuple[str, ...]) -> tuple[Vector, Vector]:
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
            vectors = self._texts[texts] = (block, row)
        return vectors

    def _read_events(self, events: Sequence[dict[str, Any]]) -> None:
        n = len(events)
        if n < self._read:
            self.reset()
        hist, seats, played = self._hist, self._hist_seats, self._played
        for ev in events[self._read:n]:
            kind = ev["type"]
            if kind == "play":
                block, row = self._play_vectors(tuple(ev["cards"]))
                seat = ev["seat"]
                played[seat] += block
                hist[1:] = hist[:-1]
                hist[0] = row
            elif kind == "pass" or kind == "ask_lead":
                seat = ev["seat"]
                hist[1:] = hist[:-1]
                hist[0] = _PASS_ROW
            elif kind == "deal":
                played[:] = 0.0
                hist[:] = 0.0
                seats.clear()
                self._bases.clear()
                continue
            else:
                continue
            seats.insert(0, seat)
            if len(seats) > HISTORY:
                seats.pop()
        self._read = n

    # -- own hand ------------------------------------------------------------------
    def _hand_block(self, seat: int, hand: tuple[bh.Card, ...]) -> Vector:
        """The hand block but its last entry (the called card's copies)."""
        kept = self._hands.get(seat)
        if kept is not None and kept[0] is hand:
            return kept[2]
        values = np.fromiter(hand, dtype=np.int64, count=len(hand))
        block = np.zeros(_HAND_SIZE, dtype=np.float32)
        block[:SLOTS] = np.bincount(_SLOT_OF[values], minlength=SLOTS)
        suits = _SUIT_OF[values]
        block[SLOTS:SLOTS + 48] = np.bincount(suits[suits >= 0], minlength=48)
        block[SLOTS + 48] = hand.count(bh.EMPEROR_CARD)
        block[SLOTS + 49] = hand.count(bh.GUARD_CARD)
        self._hands[seat] = (hand, None, block)
        return block

    def _cards_vector(self, cards: tuple[bh.Card, ...]) -> Vector:
        vec = self._counts.get(cards)
        if vec is None:
            values = np.fromiter(cards, dtype=np.int64, count=len(cards))
            vec = self._counts[cards] = _counts_of_slots(_SLOT_OF[values])
        return vec

    # -- the vector ------------------------------------------------------------------
    def encode(self, view: bh.View) -> Vector:
        """The observation of ``view`` (a seat's view, not a spectator's)."""
        me = view.seat
        if me is None:
            raise ValueError("observations are made for a seat, not a spectator's view")
        events = view.events
        if len(events) != self._read:
            self._read_events(events)
        rel = _REL[me]
        out = np.zeros(OBS_SIZE, dtype=np.float32)
        hand = out[_HAND0:_HAND1]
        if view.stage is _PLAY_STAGE:
            # in play a hand changes only by the seat's own plays, read from the events
            base = self._bases.get(me)
            if base is None:
                base = self._bases[me] = self._hand_block(me, view.hand) + self._played[me]
            np.subtract(base, self._played[me], out=hand)
        else:
            hand[:] = self._hand_block(me, view.hand)
        out[_PLAYED] = self._played[_ROT[me], :SLOTS].ravel()
        out[_HISTORY] = self._hist_flat
        rules = self._rules
        if rules is None or rules[0] is not view.rules:
            rules = self._rules = (view.rules, _rules_vector(view.rules))
        out[_RULES] = rules[1]
        sizes = view.hand_counts
        to_act = view.to_act
        pos = [_STAGE[view.stage], _TO_ACT + (5 if to_act is None else rel[to_act]),
               _DEALER + rel[view.dealer], _KICKS, _STAKE, *_SIZE_POS]
        val = [1.0, 1.0, 1.0, view.kicks, view.stake, *sizes[me:], *sizes[:me]]
        ones = 0
        for base, seat in ((_CANDIDATE, view.candidate), (_EMPEROR, view.emperor),
                           (_GUARD, view.guard), (_LEADER, view.leader)):
            if seat is not None:
                pos.append(base + rel[seat])
                ones += 1
        if view.role is not None:
            pos.append(_ROLE[view.role])
            ones += 1
        if view.solo is not None:
            pos.append(_SOLO[view.solo])
            ones += 1
        called = view.called
        if called is not None and called.suit is not None:
            suit = int(_SUIT_OF[int(called)])
            pos.append(_CALLED + suit)
            ones += 1
            out[_HAND_CALLED] = out[_HAND0 + SLOTS + suit]
        if view.guard_open:
            pos.append(_GUARD_OPEN)
            ones += 1
        if view.rebels:
            pos += [_REBELS + rel[seat] for seat in view.rebels]
            ones += len(view.rebels)
        if view.left:
            pos += [_LEFT + rel[seat] for seat in view.left]
            ones += len(view.left)
        last = view.last_play
        if last is not None:
            pos.append(_LAST_SEAT + rel[last[0]])
            ones += 1
            out[_LAST_CARDS] = self._cards_vector(last[1])
        seats = self._hist_seats
        pos += [base + rel[seat] for base, seat in zip(_HIST_SEAT_POS, seats, strict=False)]
        ones += len(seats)
        val += [1.0] * ones
        if view.out:
            pos += [_OUT + rel[seat] for seat in view.out]
            val += range(1, len(view.out) + 1)
        out[pos] = val
        return out


def observe(view: bh.View) -> Vector:
    """The observation of ``view``, made from scratch."""
    return ObservationEncoder().encode(view)
