"""The game state shared by the role phase and the play phase."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import Any, Final

from .cards import EMPEROR_CARD, GUARD_CARD, RANK_OF, RANK_SLOTS, TEHUA_CARD, Card, Deck, make_deck
from .events import CardShown, Deal, Event, EventKind, Over, Transfer
from .rules import GuardMode, RuleSet
from .scoring import SoloKind, TributeBasis, tribute_transfers

__all__ = ["GameState", "IllegalAction", "Result", "Stage"]

SEATS = range(5)

class IllegalAction(ValueError):
    """An action the rules do not allow now; ``reason`` says why.  The game
    is unchanged."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class Stage(StrEnum):
    """Where the game is.  The role phase runs EMPEROR … KICK, then PLAY."""

    EMPEROR = "emperor"        # 选皇帝: accept or abdicate
    EMPEROR_SOLO = "emperor_solo"  # the Emperor may declare 明独 before 抢独
    STEAL = "steal"            # 抢独
    CALL = "call"              # 叫侍卫
    GUARD = "guard"            # 明保/暗保 (or the solo Emperor's 明独/暗独)
    REBELLION = "rebellion"    # 造反
    KICK = "kick"              # 踢
    PLAY = "play"
    OVER = "over"


_PLAY: Final = Stage.PLAY
_CARD_MODE: Final = GuardMode.CARD
_NO_CARDS: Final[frozenset[Card]] = frozenset()
_GUARD_CARD_ONLY: Final = frozenset((GUARD_CARD,))
_TEHUA_ONLY: Final = frozenset((TEHUA_CARD,))


@dataclass(frozen=True, slots=True)
class Result:
    """How a game ended.  ``places``: 1..5, or ``None`` for players not out
    when the game ended.  ``scores`` sum to zero in the ``shandong`` table,
    except for a lone rebel's doubling and the leaving penalty.

    How the scores came about (``scoring.ScoreParts``; all 1 / 0 / empty when a
    player's leaving ended the game): seat ``s`` scored ``unit × shares[s] × stake``,
    less the leaving penalty if it left; ``factors`` name the stake's doublings
    (倍数: 明保, 明独保, 造反, 踢)."""

    places: tuple[int | None, ...]
    scores: tuple[int, ...]
    emperor: int | None
    guard: int | None
    solo: SoloKind | None
    left: int | None = None
    order: tuple[int, ...] = ()
    royal_won: bool | None = None
    stake: int = 1
    unit: int = 0
    shares: tuple[int, ...] = ()
    factors: tuple[str, ...] = ()

    def __reduce__(self) -> tuple[type[Result], tuple[Any, ...]]:
        """For ``copy.deepcopy`` and ``pickle``: made again through the constructor
        (the only way a compiled build's Result can be made)."""
        return Result, tuple(getattr(self, f.name) for f in fields(self))

    def to_dict(self) -> dict[str, object]:
        return {"places": list(self.places), "scores": list(self.scores),
                "emperor": self.emperor, "guard": self.guard, "solo": self.solo,
                "left": self.left, "order": list(self.order), "royal_won": self.royal_won,
                "stake": self.stake, "unit": self.unit, "shares": list(self.shares),
                "factors": list(self.factors)}

    def event(self) -> Event:
        """The ``over`` event that tells every seat this result."""
        return Event(EventKind.OVER, None, Over(
            places=list(self.places), scores=list(self.scores), emperor=self.emperor,
            guard=self.guard, solo=self.solo, left=self.left, order=list(self.order),
            royal_won=self.royal_won, stake=self.stake, unit=self.unit,
            shares=list(self.shares), factors=list(self.factors)))


def callable_kinds(hand: Counter[Card] | dict[Card, int]) -> list[Card]:
    """Cards (rank+suit, never a joker or a 2) held three or more times:
    what an Emperor may call (叫侍卫)."""
    return sorted(c for c, n in hand.items() if n >= 3 and RANK_OF[c] < 15)


def triples(hand: Counter[Card] | dict[Card, int]) -> list[Card]:
    """Callable cards held exactly three times (逼位 counts these: "有且只有3张同点数
    同花色的牌")."""
    return [c for c, n in hand.items() if n == 3 and RANK_OF[c] < 15]


def four_identical(hand: Counter[Card] | dict[Card, int]) -> bool:
    return any(n >= 4 and RANK_OF[c] < 16 for c, n in hand.items())


@dataclass
class GameState:
    """Everything about one game.  Mutated only by :class:`baohuang.Game`."""

    rules: RuleSet
    seed: int
    dealer: int
    tribute: TributeBasis | None
    deal_no: int = 0
    hands: list[Counter[Card]] = field(default_factory=lambda: [Counter() for _ in SEATS])
    counts: list[list[int]] = field(default_factory=lambda: [[0] * RANK_SLOTS for _ in SEATS])
    stage: Stage = Stage.EMPEROR
    to_act: int | None = None
    events: list[Event] = field(default_factory=list)
    # choosing the Emperor
    candidate: int = 0
    first_candidate: int = 0
    declines: int = 0
    pool: list[Card] = field(default_factory=list)   # cards travelling with the Emperor card
    emperor: int | None = None
    guard: int | None = None
    solo: SoloKind | None = None
    stolen: bool = False
    called: Card | None = None
    guard_open: bool = False
    guard_public: bool = False
    asking: list[int] = field(default_factory=list)
    votes: dict[int, bool] = field(default_factory=dict)
    rebels: list[int] = field(default_factory=list)
    kicks: int = 0
    # play
    leader: int | None = None
    last: tuple[int, tuple[int, int, int, int, int], tuple[Card, ...]] | None = None
    passes: int = 0
    applicant: int | None = None
    out: list[int] = field(default_factory=list)
    left: list[int] = field(default_factory=list)
    result: Result | None = None
    # per seat: how many times a card came into or left its hand
    hand_changes: list[int] = field(default_factory=lambda: [0] * 5, compare=False, repr=False)

    def __reduce__(self) -> tuple[type[GameState], tuple[Any, ...]]:
        """For ``copy.deepcopy`` and ``pickle``: made again through the constructor
        (the only way a compiled build's GameState can be made)."""
        return GameState, tuple(getattr(self, f.name) for f in fields(self))

    # -- cards ---------------------------------------------------------------
    def give(self, seat: int, cards: list[Card] | tuple[Card, ...]) -> None:
        hand, counts = self.hands[seat], self.counts[seat]
        self.hand_changes[seat] += 1
        for c in cards:
            hand[c] += 1
            counts[RANK_OF[c]] += 1

    def take(self, seat: int, cards: list[Card] | tuple[Card, ...]) -> None:
        hand, counts = self.hands[seat], self.counts[seat]
        self.hand_changes[seat] += 1
        for c in cards:
            n = hand[c] - 1
            if n:
                hand[c] = n
            else:
                hand.pop(c)
            counts[RANK_OF[c]] -= 1

    def holder(self, card: Card) -> int | None:
        for seat in SEATS:
            if self.hands[seat].get(card):
                return seat
        return None

    def deal(self) -> None:
        """Shuffle and deal (seeded by ``seed`` and the deal number), give
        tribute, and find the Emperor candidate."""
        rng = random.Random(f"baohuang/{self.seed}/{self.deal_no}")
        cards = make_deck(self.rules.deck)
        held_back = self.rules.deck is Deck.FULL and self.rules.hold_back_emperor_card
        if held_back:
            cards.remove(EMPEROR_CARD)
        rng.shuffle(cards)
        # Card i goes to seat dealer + i: each seat's cards in the order dealt.
        self.hands = [Counter(cards[(seat - self.dealer) % 5::5]) for seat in SEATS]
        self.counts = [[0] * RANK_SLOTS for _ in SEATS]
        for hand, counts in zip(self.hands, self.counts, strict=True):
            for card, k in hand.items():
                counts[RANK_OF[card]] += k
        self.events.append(Event(EventKind.DEAL, None, Deal(self.deal_no, self.dealer)))
        if self.tribute is not None:
            self.give_tribute(self.tribute)
        if held_back:
            seat = rng.randrange(5)
            self.give(seat, (EMPEROR_CARD,))
        holder = self.holder(EMPEROR_CARD)
        assert holder is not None
        self.candidate = self.first_candidate = holder
        self.declines = 0
        self.pool = []
        self.events.append(Event(EventKind.CANDIDATE, holder))

    def give_tribute(self, basis: TributeBasis) -> None:
        for giver, receiver, card in tribute_transfers(basis, self.hands):
            self.take(giver, (card,))
            self.give(receiver, (card,))
            shown = CardShown(str(card))
            self.events.append(Event(EventKind.TRIBUTE, giver, Transfer(to=receiver, count=1),
                                     {giver: shown, receiver: shown}))

    # -- roles ---------------------------------------------------------------
    def side_of(self, seat: int) -> str:
        if seat == self.emperor or (seat == self.guard and not self.solo):
            return "royal"
        return "rebel"

    def royal(self) -> tuple[int, ...]:
        assert self.emperor is not None and self.guard is not None
        return (self.emperor,) if self.solo else (self.emperor, self.guard)

    def special_cards(self, seat: int) -> frozenset[Card]:
        """Cards whose play by ``seat`` would reveal a hidden Guard (or hidden solo)."""
        if seat != self.guard or self.guard_public or self.stage is not _PLAY:
            return _NO_CARDS
        if self.rules.guard_mode is _CARD_MODE:
            return _GUARD_CARD_ONLY
        if self.rules.called_card_high and seat != self.emperor:
            return _TEHUA_ONLY      # his copy of the called card became 特画
        return frozenset((self.called,)) if self.called is not None else _NO_CARDS

    def in_play(self, seat: int) -> bool:
        return seat not in self.out

    def next_in(self, seat: int) -> int:
        if not self.out:
            return (seat + 1) % 5
        for step in range(1, 6):
            s = (seat + step) % 5
            if s not in self.out:
                return s
        return seat
