"""What one seat's view of the deal says of where the hidden cards are.

:func:`read_evidence` goes once through the events of the current deal in a
:class:`~baohuang.engine.views.View` and keeps, for the deal sampler
(:mod:`.sampler`), every fact about the other seats' hands it shows:

- cards seen in transit (进贡 tribute and 让位 abdication cards this seat
  gave or received, the Emperor card 皇牌 and the cards travelling with it)
  stay with the seat that got them, less the copies it has played since;
- a player who gave this seat tribute kept nothing higher than the card it
  gave (it gives its highest cards), until unseen cards reach it;
- who is the Emperor, the Guard when known (a reveal, 明保, a played copy of
  the called card), the holder of the Guard card when the rules show it, a
  solo and its kind, a 抢独 claimant and the cards he has played since;
- the called card (叫侍卫) and how many of its copies the Emperor and the
  others have played.

>>> import baohuang as bh
>>> game = bh.Game.new(seed=4)
>>> facts = read_evidence(game.view(game.to_act), game.rules)
>>> facts.me == game.to_act, sum(sum(h.values()) for h in facts.held)
(True, 0)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...engine.cards import EMPEROR_CARD, RANK_OF, TEHUA_CARD, Card, parse_card
from ...engine.events import (
    Call,
    CardShown,
    CardsShown,
    GuardChoice,
    Play,
    RebellionStands,
    Reveal,
    Seen,
    Solo,
    Transfer,
)
from ...engine.events import EventKind as K
from ...engine.plays import BJ
from ...engine.rules import Abdication, GuardMode, RuleSet, StealRequirement
from ...engine.scoring import SoloKind
from ...engine.views import View
from ..inference import current_events

__all__ = ["Evidence", "read_evidence"]


@dataclass(slots=True)
class Evidence:
    """The facts :func:`read_evidence` found (see the module doc).

    ``held[s]``: cards seat ``s`` is known to hold (none for this seat,
    ``me``); ``caps[s]``: the highest rank seat ``s``'s unknown cards may have;
    ``sj_holder``: the Guard card's holder when only it could have acted so;
    ``early_open_solo``: 明独 before the Guard stage, or 抢独;
    ``steal_check``: a 抢独 claimant under the strict rule and the cards he
    has played since; ``called_by_emperor`` / ``called_by_others``: copies
    of the called card played.
    """

    me: int
    emperor: int | None
    held: list[Counter[Card]] = field(default_factory=lambda: [Counter() for _ in range(5)])
    guard_known: int | None = None
    sj_holder: int | None = None
    solo: SoloKind | None = None
    early_open_solo: bool = False
    called_by_emperor: int = 0
    called_by_others: int = 0
    steal_check: tuple[int, Counter[Card]] | None = None
    called: Card | None = None
    caps: dict[int, int] = field(default_factory=dict)

    def plain(self, cards: Sequence[Card]) -> tuple[Card, ...]:
        """``cards`` with the 特画 read as the copy of the called card it was."""
        called = self.called
        if called is None or TEHUA_CARD not in cards:
            return tuple(cards)
        return tuple(called if c == TEHUA_CARD else c for c in cards)


def read_evidence(view: View, rules: RuleSet) -> Evidence:
    """The facts of ``view``'s current deal (``view`` is a seat's)."""
    me = view.seat
    assert me is not None
    facts = Evidence(me, view.emperor, guard_known=view.guard)
    held = facts.held
    pool: Counter[Card] = Counter()   # identities known to travel with BJ*
    bj_at: int | None = None
    card_mode = rules.guard_mode is GuardMode.CARD
    saw_decline_solo = False
    for ev in current_events(view):
        seat = ev.seat
        match ev:
            case Seen(kind=K.TRIBUTE, data=Transfer(to=receiver), mine=mine):
                if isinstance(mine, CardShown):
                    card = parse_card(mine.card)
                    if seat == me:
                        held[receiver][card] += 1
                    elif receiver == me and seat is not None:
                        # 进贡 gives the highest cards: none left above this one
                        facts.caps[seat] = min(facts.caps.get(seat, BJ), RANK_OF[card])
                elif seat is not None:
                    _drop_one_each(held[seat])
            case Seen(kind=K.CANDIDATE):
                assert seat is not None
                bj_at = seat
                if seat != me:
                    held[seat][EMPEROR_CARD] = 1
            case Seen(kind=K.ABDICATE, data=Transfer(to=receiver, count=count), mine=mine):
                assert seat is not None
                if isinstance(mine, CardsShown):
                    moved = Counter(_cards(mine.cards))
                    pool = moved - Counter((EMPEROR_CARD,))
                else:
                    facts.caps.pop(receiver, None)     # unseen cards may have come in
                    moved = pool + Counter((EMPEROR_CARD,))
                    if count > 1 + sum(pool.values()):
                        _drop_one_each(held[seat])   # an unseen extra card left him
                    if (rules.abdication is Abdication.SKIP_TWO_IF_SOLO and card_mode):
                        facts.sj_holder = seat        # only the Guard-card holder may
                _remove(held[seat], moved)
                if receiver != me:
                    held[receiver] += moved
                bj_at = receiver
            case Seen(kind=K.FORCED):
                assert seat is not None
                facts.caps.pop(seat, None)
                if bj_at is not None and bj_at != seat:
                    moved = pool + Counter((EMPEROR_CARD,))
                    _remove(held[bj_at], moved)
                    if seat != me:
                        held[seat] += moved
                bj_at = seat
            case Seen(kind=K.EMPEROR):
                facts.emperor = seat
            case Seen(kind=K.DECLINE_SOLO):
                saw_decline_solo = True
            case Seen(kind=K.SOLO, data=Solo(open=open_, stolen=stolen)):
                assert seat is not None
                facts.solo = "open" if open_ else "hidden"
                from_guard_stage = (not stolen and
                                    (saw_decline_solo or not rules.steal_solo))
                if (stolen and rules.steal_solo_requires
                        is StealRequirement.THREE_JOKERS_AND_FOUR_IDENTICAL):
                    facts.steal_check = (seat, Counter())
                facts.emperor = seat
                facts.guard_known = seat
                # in call mode an open solo is declared instead of calling
                facts.early_open_solo = not from_guard_stage or not card_mode
                if from_guard_stage and card_mode:
                    facts.sj_holder = seat
            case Seen(kind=K.CALL, data=Call(card=called_text)):
                facts.called = parse_card(called_text)
            case Seen(kind=K.GUARD, data=GuardChoice(open=True)):
                if seat is not None:
                    facts.guard_known = seat
            case Seen(kind=K.REBELLION_STANDS, data=RebellionStands(guard=guard, solo=solo)):
                facts.guard_known = guard
                if solo:
                    facts.solo = _solo_kind(solo)
            case Seen(kind=K.REVEAL, data=Reveal(solo=solo)):
                facts.guard_known = seat
                if solo:
                    facts.solo = _solo_kind(solo)
            case Seen(kind=K.PLAY, data=Play(cards=texts)):
                assert seat is not None
                cards = list(facts.plain(_cards(texts)))
                _remove(held[seat], cards)
                if facts.steal_check is not None and seat == facts.steal_check[0]:
                    facts.steal_check[1].update(cards)
                called = facts.called
                if called is not None:
                    k = sum(1 for c in cards if c == called)
                    if seat == facts.emperor:
                        facts.called_by_emperor += k
                    else:
                        facts.called_by_others += k
                        if k:
                            facts.guard_known = seat
    held[me].clear()
    if facts.called is None:
        facts.called = view.called
    if view.solo is not None:
        facts.solo = "open" if view.solo == "open" else "hidden"
    return facts


def _solo_kind(text: str) -> SoloKind:
    return "open" if text == "open" else "hidden"


def _cards(tokens: Sequence[str]) -> list[Card]:
    return [parse_card(t) for t in tokens]


def _drop_one_each(held: Counter[Card]) -> None:
    """An unseen card left the seat: every known identity may be that card."""
    for c in list(held):
        if held[c] <= 1:
            del held[c]
        else:
            held[c] -= 1


def _remove(held: Counter[Card], cards: Sequence[Card] | Counter[Card]) -> None:
    items = cards.elements() if isinstance(cards, Counter) else cards
    for c in items:
        if held.get(c, 0) > 0:
            held[c] -= 1
            if not held[c]:
                del held[c]
