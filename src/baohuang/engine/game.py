"""One game of 保皇 as a deterministic state machine.

``legal_actions()`` and ``apply()`` are the only way a game changes and
``view(seat)`` the only way information leaves it.

>>> import baohuang as bh
>>> game = bh.Game.new(seed=7)
>>> game.stage, game.to_act is not None
(<Stage.EMPEROR: 'emperor'>, True)
>>> while not game.is_over:
...     game.apply(game.legal_actions()[0])
>>> sum(game.result.scores) == 0 or game.result.scores
True
>>> bh.Game.from_record(game.record()).result == game.result
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from . import moves, playphase, roles
from .actions import Action, ActionKind
from .cards import RANK_OF, Card, parse_cards
from .events import Event, EventKind
from .rules import RuleSet
from .scoring import TributeBasis
from .state import GameState, IllegalAction, Result, Stage
from .views import View, make_view
from .viewvalues import ViewCache, events_seen, own_values, public_values

__all__ = ["RECORD_VERSION", "Game"]

RECORD_VERSION = 1

# Enum members are slow to look up as class attributes: the hot path uses these.
_PLAY: Final = Stage.PLAY
_OVER: Final = Stage.OVER
_PLAY_KIND: Final = ActionKind.PLAY
_PASS_KIND: Final = ActionKind.PASS
_ASK_KIND: Final = ActionKind.ASK_LEAD
_LEAVE_KIND: Final = ActionKind.LEAVE


class Game:
    """A game at a table of five seats (0–4)."""

    __slots__ = ("_actions", "_kept", "_legal_cache", "_seen", "_set_up", "_st")

    def __init__(self, state: GameState, *, set_up: bool = False) -> None:
        self._st = state
        self._set_up = set_up
        self._actions: list[Action] = []
        # derived data, out of the state: the legal actions of this state, what the
        # play phase keeps between decisions, what the views keep between moves
        self._legal_cache: tuple[Action, ...] | None = None
        self._kept = moves.PlayCache()
        self._seen = ViewCache()

    @classmethod
    def new(cls, rules: RuleSet | None = None, seed: int = 0, *, dealer: int = 0,
            tribute: TributeBasis | None = None) -> Game:
        """Deal a new game.  ``dealer`` deals first (the previous Emperor in a
        match); ``tribute`` is last game's outcome when tribute is on."""
        rules = rules or RuleSet()
        if not 0 <= dealer < 5:
            raise ValueError(f"dealer must be a seat 0..4, not {dealer}")
        if tribute is not None and not rules.tribute:
            tribute = None
        st = GameState(rules=rules, seed=int(seed), dealer=dealer, tribute=tribute)
        roles.start(st)
        return cls(st)

    @classmethod
    def setup(cls, rules: RuleSet, hands: Sequence[str | Iterable[Card]], *, to_act: int,
              stage: Stage = Stage.PLAY, **position: Any) -> Game:
        """A game at a position given by hand, not dealt: for tests, puzzles and
        the determinizations of a search bot.

        ``hands``: five hands (card lists or texts such as ``"BJ 9 9"``);
        ``to_act``: the seat to decide; ``stage`` (default ``play``).  The rest,
        by keyword, as far as the stage needs it: ``emperor``, ``guard``, ``solo``
        (``"open"``/``"hidden"``, then ``guard == emperor``), ``called`` (the
        called card), ``guard_open`` (明保), ``guard_public`` (the Guard is known
        to all; default: after 明保 or 明独保), ``stolen`` (抢独); the Emperor
        card's way: ``candidate``, ``first_candidate``, ``declines``, ``pool``
        (cards travelling with it); the seats still to be asked in this stage
        ``asking`` and the answers so far ``votes``; ``rebels`` (who said 造反),
        ``kicks``; the trick: ``last`` (seat, cards) to beat, ``passes`` on it,
        ``applicant`` (申请接风), ``leader``; ``out`` (seats out, in order);
        ``played``: the plays so far, as (seat, cards), which the views show;
        ``seed``, ``dealer``, ``deal_no``.  Raises :class:`IllegalAction` naming
        what does not fit.  A set-up game has no :meth:`record` (it was not
        dealt), but plays on like any other.

        >>> import baohuang as bh
        >>> game = bh.Game.setup(bh.RuleSet(), ["9", "8", "SJ* 7", "2", "A"],
        ...                      emperor=0, guard=2, to_act=0)
        >>> game.apply(game.legal_actions()[0]); game.view(None).out
        (0,)
        """
        from .position import build_state
        return cls(build_state(rules, hands, to_act=to_act, stage=stage, **position),
                   set_up=True)

    # -- reading -------------------------------------------------------------
    @property
    def rules(self) -> RuleSet:
        return self._st.rules

    @property
    def seed(self) -> int:
        return self._st.seed

    @property
    def stage(self) -> Stage:
        return self._st.stage

    @property
    def to_act(self) -> int | None:
        """The seat that must decide now; ``None`` when the game is over."""
        return self._st.to_act

    @property
    def is_over(self) -> bool:
        return self._st.stage is _OVER

    @property
    def result(self) -> Result | None:
        return self._st.result

    @property
    def emperor(self) -> int | None:
        return self._st.emperor

    @property
    def guard(self) -> int | None:
        return self._st.guard

    @property
    def solo(self) -> str | None:
        return self._st.solo

    @property
    def version(self) -> int:
        """How many events the game has produced (grows with every change)."""
        return len(self._st.events)

    @property
    def deal_no(self) -> int:
        """Which deal of the seed this is (a void deal is dealt again with the next)."""
        return self._st.deal_no

    def hand(self, seat: int) -> list[Card]:
        """The cards ``seat`` holds, low to high (the full truth, not a view)."""
        return sorted(self._st.hands[seat].elements())

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act (empty when over)."""
        return list(self._legal())

    def _legal(self) -> tuple[Action, ...]:
        """The legal actions, made once per state."""
        legal = self._legal_cache
        if legal is None:
            st = self._st
            stage = st.stage
            if stage is _PLAY:
                legal = tuple(moves.legal_actions(st, self._kept))
            elif stage is _OVER:
                legal = ()
            else:
                legal = tuple(roles.legal(st))
            self._legal_cache = legal
        return legal

    def view(self, seat: int | None) -> View:
        """What ``seat`` may know (``None``: a spectator)."""
        return make_view(self._st, seat, self._legal_of(seat), self._seen)

    def view_values(self, seat: int | None) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        """``seat``'s view as its values, without the view's events: those of
        ``views.PUBLIC_FIELDS`` (one tuple, the same object for every seat) and of
        ``views.OWN_FIELDS`` (for a learning environment that reads plays and passes
        from the actions it applies, and makes no ``View`` a step).

        >>> game = Game.new(seed=2)
        >>> from baohuang.engine.views import OWN_FIELDS, PUBLIC_FIELDS
        >>> public, own = game.view_values(game.to_act)
        >>> view = game.view(game.to_act)
        >>> public == tuple(getattr(view, name) for name in PUBLIC_FIELDS)
        True
        >>> own == tuple(getattr(view, name) for name in OWN_FIELDS)
        True
        """
        st = self._st
        seen = self._seen
        return public_values(st, seen), own_values(st, seat, self._legal_of(seat), seen)

    def view_update(self, seat: int | None, since: int
                    ) -> tuple[tuple[Any, ...], tuple[Any, ...], tuple[dict[str, Any], ...]]:
        """What a seat that knows the first ``since`` events needs to know now, for a
        server sending views as changes: the values of ``views.PUBLIC_FIELDS`` in its
        view (one tuple, the same object for every seat), those of ``views.OWN_FIELDS``
        (its own), and the events from number ``since`` on, as
        ``events_for(seat, since)`` has them (one tuple, the same for every seat when
        every seat sees those events alike).

        >>> game = Game.new(seed=2)
        >>> game.apply(game.legal_actions()[0])
        >>> public, own, events = game.view_update(1, 1)
        >>> public is game.view_update(3, 1)[0] is game.view_update(None, 1)[0]
        True
        >>> from baohuang.engine.views import OWN_FIELDS, PUBLIC_FIELDS
        >>> view = game.view(1)
        >>> public == tuple(getattr(view, name) for name in PUBLIC_FIELDS)
        True
        >>> own == tuple(getattr(view, name) for name in OWN_FIELDS)
        True
        >>> list(events) == game.events_for(1, 1)
        True
        """
        public, [(own, events)] = self.view_updates([seat], since)
        return public, own, events

    def view_updates(self, seats: Sequence[int | None], since: int
                     ) -> tuple[tuple[Any, ...],
                                list[tuple[tuple[Any, ...], tuple[dict[str, Any], ...]]]]:
        """:meth:`view_update` for several seats at once (a server's broadcast of one
        move): the public part, the same for all, and each seat's own values and
        events.

        >>> game = Game.new(seed=2)
        >>> public, updates = game.view_updates([0, None], 0)
        >>> updates[1] == game.view_update(None, 0)[1:]
        True
        """
        st = self._st
        stop = len(st.events)
        legal_of = self._legal_of
        seen = self._seen
        return public_values(st, seen), [
            (own_values(st, seat, legal_of(seat), seen), events_seen(st, seat, since, stop, seen))
            for seat in seats]

    def _legal_of(self, seat: int | None) -> tuple[Action, ...] | None:
        """``seat``'s legal actions when it is to act (for its view), else None."""
        if seat is not None and not 0 <= seat < 5:
            raise ValueError(f"seat must be 0..4 or None, not {seat}")
        return self._legal() if seat is not None and seat == self._st.to_act else None

    def events_for(self, seat: int | None, since: int = 0) -> list[dict[str, Any]]:
        """Events from number ``since`` on, as ``seat`` may see them."""
        return [ev.for_seat(seat) for ev in self._st.events[since:]]

    def replay_events(self) -> list[dict[str, Any]]:
        """Every event with nothing hidden (for finished games only)."""
        if not self.is_over:
            raise IllegalAction("a game in progress cannot be shown with open hands")
        return [ev.for_seat(None, reveal_all=True) for ev in self._st.events]

    # -- changing --------------------------------------------------------------
    def apply(self, action: Action) -> None:
        """Apply the action of the seat to act (or ``leave`` by any seat).
        Raises :class:`IllegalAction` and leaves the game unchanged when the
        action is not allowed now (``TypeError`` for what is not an action)."""
        st = self._st
        if not isinstance(action, Action):
            raise TypeError(f"not an action: {action!r}")
        stage = st.stage
        kind = action.kind
        if stage is _PLAY:
            if kind is _PLAY_KIND:
                legal = self._legal_cache
                if legal is not None and action in legal:
                    # A play taken from legal_actions() needs no second check.
                    playphase.apply_legal(st, action, self._kept)
                else:
                    playphase.apply(st, action, kept=self._kept)
            elif kind is _PASS_KIND or kind is _ASK_KIND:
                playphase.apply(st, action, kept=self._kept)
            elif kind is _LEAVE_KIND:
                self._leave(action)
            else:
                raise IllegalAction(f"{kind.value} is not allowed while playing cards")
        elif stage is _OVER:
            raise IllegalAction("the game is over")
        elif kind is _LEAVE_KIND:
            self._leave(action)
        else:
            legal = self._legal()
            if action not in legal:
                allowed = ", ".join(str(a) for a in legal)
                raise IllegalAction(f"{action} is not allowed now (stage {stage.value}, "
                                    f"seat {st.to_act}: {allowed})")
            roles.apply(st, action)
        self._actions.append(action)
        self._legal_cache = None

    def _leave(self, action: Action) -> None:
        st = self._st
        seat = action.seat
        if seat is None or not 0 <= seat < 5:
            raise IllegalAction("leave needs a seat 0..4")
        if seat in st.left:
            raise IllegalAction(f"seat {seat} has already left")
        st.events.append(Event(EventKind.LEAVE, seat))
        if st.rules.leave_ends_game:
            scores = [0] * 5
            scores[seat] = -st.rules.leave_penalty
            st.result = Result(tuple([None] * 5), tuple(scores), st.emperor, st.guard,
                               st.solo, seat)
            st.stage, st.to_act = Stage.OVER, None
            st.events.append(st.result.event())
        else:
            st.left.append(seat)

    def play_cards(self, cards: str | list[Card]) -> Action:
        """The action for playing ``cards``, resolving cards typed without a
        suit to cards the seat to act holds (ordinary copies first).

        Raises :class:`IllegalAction` when the seat does not hold them."""
        st = self._st
        seat = st.to_act
        if seat is None or st.stage is not Stage.PLAY:
            raise IllegalAction("nobody is playing cards now")
        wanted = parse_cards(cards) if isinstance(cards, str) else list(cards)
        if not wanted:
            raise IllegalAction("no cards given")
        available = sorted(st.hands[seat].elements(),
                           key=lambda c: (c in st.special_cards(seat), c))
        chosen: list[Card] = []
        for card in sorted(wanted, key=lambda c: (c.suit is None and not c.marked, c)):
            pick = card if card in available else None
            if pick is None and card.suit is None and not card.is_joker:
                pick = next((c for c in available if RANK_OF[c] == RANK_OF[card]), None)
            if pick is None and card.is_joker and not card.marked:
                pick = next((c for c in available if RANK_OF[c] == RANK_OF[card]), None)
            if pick is None:
                raise IllegalAction(f"seat {seat} does not hold {card}")
            available.remove(pick)
            chosen.append(pick)
        chosen.sort(reverse=True)
        return Action(ActionKind.PLAY, tuple(chosen))

    # -- records ------------------------------------------------------------
    def record(self) -> dict[str, Any]:
        """Everything needed to rebuild this game: rules, seed, every action."""
        if self._set_up:
            raise IllegalAction("a game set up from a position was not dealt: it has no record")
        st = self._st
        return {
            "version": RECORD_VERSION,
            "rules": st.rules.to_dict(),
            "seed": st.seed,
            "dealer": st.dealer,
            "tribute": None if st.tribute is None else st.tribute.to_dict(),
            "actions": [a.to_dict() for a in self._actions],
        }

    @classmethod
    def from_record(cls, record: object) -> Game:
        """Rebuild a game from :meth:`record` (raises ``ValueError`` naming
        what is wrong with a bad record, whatever it is)."""
        if not isinstance(record, dict):
            raise ValueError(f"a game record must be an object, not {type(record).__name__}")
        if record.get("version") != RECORD_VERSION:
            raise ValueError(f"not a version-{RECORD_VERSION} game record "
                             f"(version {record.get('version')!r})")
        seed = record.get("seed")
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ValueError(f"record 'seed' must be a whole number, not {seed!r}")
        dealer = record.get("dealer", 0)
        if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < 5:
            raise ValueError(f"record 'dealer' must be a seat 0..4, not {dealer!r}")
        rules_raw = record.get("rules", {})
        if not isinstance(rules_raw, dict):
            raise ValueError(f"record 'rules' must be an object of rule options, "
                             f"not {rules_raw!r}")
        try:
            rules = RuleSet.from_dict(rules_raw)
        except ValueError as exc:
            raise ValueError(f"record 'rules': {exc}") from None
        tribute_raw = record.get("tribute")
        try:
            tribute = None if tribute_raw is None else TributeBasis.from_dict(tribute_raw)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"record 'tribute' is not a tribute basis: {exc!r}") from None
        actions = record.get("actions", [])
        if not isinstance(actions, list):
            raise ValueError(f"record 'actions' must be a list, not {type(actions).__name__}")
        game = cls.new(rules, seed, dealer=dealer, tribute=tribute)
        for i, raw in enumerate(actions):
            try:
                game.apply(Action.from_dict(raw))
            except ValueError as exc:   # IllegalAction, ActionParseError, CardParseError
                raise ValueError(f"record action {i} ({raw}) cannot be replayed: {exc}") from None
        return game

    def copy(self) -> Game:
        """An independent copy (by replaying the record)."""
        return Game.from_record(self.record())

    def __reduce__(self) -> tuple[Any, tuple[GameState, bool, list[Action]]]:
        """For ``copy.deepcopy`` (OpenSpiel clones its states so) and ``pickle``: the
        state, set-up or not, and the actions; the copy's derived caches start afresh.
        (A compiled build's ``Game`` can be made only through its constructor.)"""
        return _restore, (self._st, self._set_up, self._actions)

    def __repr__(self) -> str:
        return (f"<Game seed={self.seed} stage={self.stage.value} to_act={self.to_act} "
                f"actions={len(self._actions)}>")


def _restore(state: GameState, set_up: bool, actions: list[Action]) -> Game:
    """The game of :meth:`Game.__reduce__`."""
    game = Game(state, set_up=set_up)
    game._actions = actions
    return game
