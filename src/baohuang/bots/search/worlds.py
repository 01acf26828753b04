"""A sampled deal made into a game: the position a seat's view shows, rebuilt with
the hidden cards of one sample (:meth:`~baohuang.engine.game.Game.setup`), for the
search bot's playouts and OpenSpiel's resampling."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ...engine.actions import Action, ActionKind
from ...engine.cards import EMPEROR_CARD, Card, parse_card
from ...engine.events import CardsShown, Play, Seen, Solo, Transfer
from ...engine.events import EventKind as K
from ...engine.game import Game
from ...engine.plays import classify
from ...engine.rules import GuardMode, RuleSet
from ...engine.state import Stage
from ...engine.views import View
from ..hand_eval import bot_shape
from ..inference import current_events
from .sampler import World

__all__ = ["RoleFacts", "default_role_action", "determinized_game", "root_facts"]

A = ActionKind


def root_facts(view: View, rules: RuleSet) -> dict[str, Any]:
    """``out``, the play to beat, passes and 接风 applicant, from the view."""
    facts: dict[str, Any] = {"out": list(view.out)}
    if view.last_play is None:
        return facts
    seat, cards = view.last_play
    shape = classify(cards, rules)
    passes = 0
    applicant: int | None = None
    for ev in reversed(current_events(view)):
        kind = ev.kind
        if kind is K.PLAY:
            break
        if kind is K.PASS or kind is K.ASK_LEAD:
            passes += 1
            if kind is K.ASK_LEAD:
                applicant = ev.seat
    facts.update(last=bot_shape(shape), last_seat=seat,
                 passes=passes, applicant=applicant)
    return facts


_DEFAULT_KINDS = (A.ACCEPT, A.GUARD_HIDDEN, A.SOLO_HIDDEN, A.DECLINE, A.ABDICATE)


def default_role_action(game: Game, options: list[Action]) -> Action:
    """托管's role-phase answer (docs/rules.md §10) for the seat to act in ``game``."""
    kinds = {a.kind: a for a in options}
    for kind in _DEFAULT_KINDS:
        if kind in kinds:
            return kinds[kind]
    calls = [a for a in options if a.kind is A.CALL]
    if calls and game.to_act is not None:
        hand = Counter(game.hand(game.to_act))
        return min(calls, key=lambda a: (hand[a.cards[0]] != 3, a.cards[0]))
    return options[0]


@dataclass(frozen=True, slots=True)
class RoleFacts:
    """What the role phase so far tells this seat, to rebuild a game state."""

    seat: int
    stage: Stage
    dealer: int
    deal_no: int
    candidate: int | None
    first_candidate: int
    declines: int
    pool: tuple[Card, ...]
    emperor: int | None
    solo: str | None
    stolen: bool
    called: Card | None
    guard_open: bool
    guard_public: bool
    rebels: tuple[int, ...]
    kicks: int
    votes: tuple[tuple[int, bool], ...]

    @classmethod
    def read(cls, view: View) -> RoleFacts:
        assert view.seat is not None
        first = view.candidate if view.candidate is not None else 0
        declines = 0
        pool: tuple[Card, ...] = ()
        stolen = False
        public = view.guard_open or view.solo == "open"
        votes: dict[int, bool] = {}
        vote_kinds = {Stage.REBELLION: (K.REBEL, K.NO_REBEL), Stage.KICK: (K.KICK, K.NO_KICK)}
        yes_no = vote_kinds.get(view.stage)
        for ev in current_events(view):
            kind, seat = ev.kind, ev.seat
            match ev:
                case Seen(kind=K.CANDIDATE, seat=int(candidate)):
                    first = candidate
                case Seen(kind=K.ABDICATE, data=Transfer(to=to), mine=mine):
                    declines += 1
                    if to == view.seat and isinstance(mine, CardsShown):
                        cards = [parse_card(t) for t in mine.cards]
                        cards.remove(EMPEROR_CARD)
                        pool = tuple(cards)
                case Seen(kind=K.SOLO, data=Solo(stolen=True)):
                    stolen = True
                case Seen(kind=K.REBELLION_STANDS | K.REVEAL):
                    public = True
                case _ if yes_no is not None and kind in yes_no and seat is not None:
                    votes[seat] = kind is yes_no[0]
        return cls(view.seat, view.stage, view.dealer, view.deal_no, view.candidate, first,
                   declines, pool, view.emperor, view.solo, stolen, view.called,
                   view.guard_open, public, view.rebels, view.kicks, tuple(votes.items()))

    def game(self, world: World, rules: RuleSet, seed: int) -> Game | None:
        """A game in this role-phase stage with ``world``'s hands, with this seat to
        act (:meth:`Game.setup`); ``None`` when the stage cannot be rebuilt."""
        me, e = self.seat, self.emperor
        stage = self.stage
        position: dict[str, Any] = dict(
            seed=seed, dealer=self.dealer, deal_no=self.deal_no,
            candidate=self.candidate if self.candidate is not None else me,
            first_candidate=self.first_candidate, declines=self.declines, pool=self.pool,
            emperor=e, called=self.called, stolen=self.stolen, guard_open=self.guard_open,
            guard_public=self.guard_public, rebels=self.rebels, kicks=self.kicks,
            votes=dict(self.votes))

        def at(**more: Any) -> Game:
            return Game.setup(rules, world.hands, to_act=me, stage=stage, **position, **more)
        if stage in (Stage.EMPEROR, Stage.EMPEROR_SOLO, Stage.CALL):
            return at()
        if e is None:
            return None
        if stage is Stage.STEAL:
            order = [(e - i) % 5 for i in range(1, 5)]
            return at(asking=order[order.index(me) + 1:])
        guard = world.guard
        if guard is None:
            if rules.guard_mode is GuardMode.CARD:
                return None
            guard = e
        solo: str | None = None
        if self.solo is not None:
            solo = "open" if self.solo == "open" else "hidden"
        elif guard == e and stage is not Stage.GUARD:
            solo = "hidden"
        if stage is Stage.GUARD:
            return at(guard=guard, solo=solo) if guard == me else None
        if stage is Stage.REBELLION:
            order = [(e + i) % 5 for i in range(1, 5)]
            return at(guard=guard, solo=solo, asking=order[order.index(me) + 1:])
        if stage is Stage.KICK:
            if len(self.rebels) >= 2:          # a royal kick after a standing rebellion
                asking = [guard] if me == e and guard != e else []
            else:
                royal = (e,) if solo else (e, guard)
                order = [(e + i) % 5 for i in range(1, 5) if (e + i) % 5 not in royal]
                if me not in order:
                    return None
                asking = order[order.index(me) + 1:]
            return at(guard=guard, solo=solo, asking=asking)
        return None



def determinized_game(view: View, world: World, rules: RuleSet, seed: int = 0) -> Game | None:
    """A game at ``view``'s position with ``world``'s hands (a deal sampled from the
    view: :class:`~baohuang.bots.search.sampler.DealSampler`), in which ``view``'s
    seat sees exactly what it sees now — its hand, the plays so far, the trick, the
    declarations — and the hidden cards are the sample's (:meth:`Game.setup`).
    ``None`` for a position that cannot be rebuilt (as in the role phase, where a
    sample leaves the Guard open in card mode)."""
    if view.stage is not Stage.PLAY:
        return RoleFacts.read(view).game(world, rules, seed)
    if view.emperor is None or world.guard is None or view.to_act is None:
        return None
    facts = root_facts(view, rules)
    plays = [(ev.seat, ev.data.cards) for ev in current_events(view)
             if ev.seat is not None and isinstance(ev.data, Play)]
    solo: str | None = None
    if world.solo is not None:
        solo = "open" if world.solo == "open" else "hidden"
    public = view.guard_open or view.solo == "open" or any(
        ev.kind is K.REVEAL or ev.kind is K.REBELLION_STANDS for ev in current_events(view))
    return Game.setup(rules, world.hands, to_act=view.to_act, seed=seed, dealer=view.dealer,
                      deal_no=view.deal_no, emperor=view.emperor, guard=world.guard, solo=solo,
                      called=view.called, guard_open=view.guard_open, guard_public=public,
                      rebels=view.rebels, kicks=view.kicks, out=facts["out"],
                      last=view.last_play, passes=facts.get("passes", 0),
                      applicant=facts.get("applicant"), leader=view.leader, played=plays)
