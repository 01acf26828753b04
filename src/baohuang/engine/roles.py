"""The role phase: who is Emperor (皇帝), who is Guard (侍卫), and the
declarations in order — 抢独, 叫侍卫, 明保/暗保 or 明独/暗独, 造反, 踢
(docs/rules.md §6).

Every function here takes the :class:`GameState`; :class:`baohuang.Game`
calls :func:`legal` and :func:`apply` only while the stage is not PLAY.
"""

from __future__ import annotations

from collections import Counter
from typing import Final

from .actions import Action, ActionKind
from .cards import EMPEROR_CARD, GUARD_CARD, RANK_OF, TEHUA_CARD, Card, Rank
from .events import (
    Call,
    CardsShown,
    Event,
    EventKind,
    GuardChoice,
    KickStands,
    RebellionStands,
    Redeal,
    Solo,
    Tehua,
    Transfer,
)
from .rules import Abdication, ForcedCallRule, GuardMode, StealRequirement
from .state import GameState, IllegalAction, Stage, callable_kinds, four_identical, triples

__all__ = ["apply", "legal", "start"]

A = ActionKind
_ACCEPT, _ABDICATE = Action(A.ACCEPT), Action(A.ABDICATE)
_DECLINE, _STEAL = Action(A.DECLINE), Action(A.STEAL)
_REBEL, _KICK = Action(A.REBEL), Action(A.KICK)
_SOLO_OPEN, _SOLO_HIDDEN = Action(A.SOLO_OPEN), Action(A.SOLO_HIDDEN)
_GUARD_OPEN, _GUARD_HIDDEN = Action(A.GUARD_OPEN), Action(A.GUARD_HIDDEN)


def start(st: GameState) -> None:
    """Deal and begin choosing the Emperor."""
    st.deal()
    _emperor_turn(st)


# -- choosing the Emperor ------------------------------------------------------

def _able(st: GameState, seat: int) -> bool:
    """Whether ``seat`` could be Emperor now (in ``call`` mode he must be able
    to call a guard)."""
    if st.rules.guard_mode is GuardMode.CALL:
        return bool(callable_kinds(st.hands[seat]))
    return True


def _emperor_choices(st: GameState) -> list[Action]:
    c, mode = st.candidate, st.rules.abdication
    able = _able(st, c)
    if mode is Abdication.SKIP_TWO_IF_SOLO:
        # Always asked, so that being asked reveals nothing about the Guard card.
        holds = st.rules.guard_mode is GuardMode.CARD and bool(st.hands[c].get(GUARD_CARD))
        return [_ACCEPT, _ABDICATE] if holds else [_ACCEPT]
    if mode is Abdication.TO_PREV and st.declines >= 5:
        # Second time round: he must be Emperor unless he cannot call a guard
        # or holds four identical cards.
        if not able:
            return [_ABDICATE]
        return [_ACCEPT, _ABDICATE] if four_identical(st.hands[c]) else [_ACCEPT]
    if mode in _CLOCKWISE:
        able = bool(callable_kinds(st.hands[c]))
    return [_ACCEPT, _ABDICATE] if able else [_ABDICATE]


def _emperor_turn(st: GameState) -> None:
    """Ask the candidate, or settle the Emperor where nobody is asked."""
    mode = st.rules.abdication
    if mode is Abdication.NONE or (
            mode is Abdication.SKIP_TWO_IF_SOLO and st.rules.guard_mode is GuardMode.CALL):
        while not _able(st, st.candidate):
            # 叫不起: the Emperor card passes on by itself (seed 001).
            if not _pass_card(st, st.candidate, (st.candidate + 1) % 5, extra=None):
                return
        _fix_emperor(st, st.candidate)
        return
    st.stage = Stage.EMPEROR
    st.to_act = st.candidate


_CLOCKWISE = (Abdication.CLOCKWISE_WITH_TWO, Abdication.CLOCKWISE_THEN_TWO)
#: the ways the Emperor card passes on to the next seat, +1 (the others: to seat -1)
_FORWARD: Final = frozenset((*_CLOCKWISE, Abdication.NONE, Abdication.SKIP_TWO_IF_SOLO))
#: the ways in which a decliner may add a card to the Emperor card (_tribute_card)
_WITH_TRIBUTE: Final = frozenset((Abdication.TO_PREV_WITH_TWO, *_CLOCKWISE))
#: a vote's event: what was voted on -> (no, yes)
_VOTES = {"rebel": (EventKind.NO_REBEL, EventKind.REBEL),
          "kick": (EventKind.NO_KICK, EventKind.KICK)}


def _direction(st: GameState) -> int:
    return 1 if st.rules.abdication in _FORWARD else -1


def _pass_card(st: GameState, giver: int, receiver: int, extra: Card | None) -> bool:
    """Move the Emperor card (and the pool) on.  Returns False when the deal
    was void and redealt."""
    cards = [EMPEROR_CARD, *st.pool] + ([extra] if extra is not None else [])
    st.take(giver, cards)
    st.give(receiver, cards)
    if extra is not None:
        st.pool.append(extra)
    st.declines += 1
    shown = CardsShown([str(c) for c in cards])
    st.events.append(Event(EventKind.ABDICATE, giver, Transfer(to=receiver, count=len(cards)),
                           {giver: shown, receiver: shown}))
    st.candidate = receiver
    # clockwise_with_two: the first candidate chooses once more (seed 001);
    # clockwise_then_two: 逼位 or a new deal after five ("如果都当不起再转或者重新抓牌")
    limit = {Abdication.TO_PREV: 10, Abdication.TO_PREV_WITH_TWO: 10,
             Abdication.CLOCKWISE_WITH_TWO: 6}.get(st.rules.abdication, 5)
    if st.declines == 5 and st.rules.forced_call:
        return _forced_call(st)
    if st.declines >= limit:
        _redeal(st, "nobody became Emperor")
        return False
    return True


def _forced_call(st: GameState) -> bool:
    """逼位: from the first candidate round, the first player who holds exactly
    three copies of some card ("有且只有3张同点数同花色的牌"; ``forced_call_rule =
    one_set_of_three``: exactly one such card) must be Emperor; nobody: 流局, redeal."""
    step = _direction(st)
    one_set = st.rules.forced_call_rule is ForcedCallRule.ONE_SET_OF_THREE
    for i in range(5):
        seat = (st.first_candidate + step * i) % 5
        held = len(triples(st.hands[seat]))
        if held == 1 if one_set else held >= 1:
            if seat != st.candidate:
                cards = [EMPEROR_CARD, *st.pool]
                st.take(st.candidate, cards)
                st.give(seat, cards)
            st.events.append(Event(EventKind.FORCED, seat))
            _fix_emperor(st, seat)
            return False
    _redeal(st, "流局: nobody had to take the throne")
    return False


def _redeal(st: GameState, reason: str) -> None:
    st.events.append(Event(EventKind.REDEAL, None, Redeal(reason)))
    st.deal_no += 1
    start(st)


def _tribute_card(st: GameState, seat: int) -> Card | None:
    """The card a decliner adds: a 2, or (to_prev_with_two) with no 2 his
    highest non-joker card."""
    hand = st.hands[seat] - Counter(st.pool) - Counter((EMPEROR_CARD,))   # his own cards
    twos = sorted(c for c in hand if RANK_OF[c] == Rank.TWO)
    if twos:
        return twos[0]
    if st.rules.abdication is Abdication.TO_PREV_WITH_TWO:
        rest = sorted((c for c in hand if RANK_OF[c] < 15), reverse=True)
        return rest[0] if rest else None
    return None


def _apply_emperor(st: GameState, action: Action) -> None:
    c = st.candidate
    if action.kind is A.ACCEPT:
        st.events.append(Event(EventKind.ACCEPT, c))
        _fix_emperor(st, c)
        return
    mode = st.rules.abdication
    if mode is Abdication.SKIP_TWO_IF_SOLO:
        # 让位: the Emperor card goes to 下家的下家; the passer keeps the Guard card.
        receiver = (c + 2) % 5
        st.take(c, (EMPEROR_CARD,))
        st.give(receiver, (EMPEROR_CARD,))
        st.events.append(Event(EventKind.ABDICATE, c, Transfer(to=receiver, count=1)))
        _fix_emperor(st, receiver)
        return
    extra = None
    if mode in _WITH_TRIBUTE and st.declines >= 1:
        extra = _tribute_card(st, c)
    if _pass_card(st, c, (c + _direction(st)) % 5, extra):
        _emperor_turn(st)


def _fix_emperor(st: GameState, seat: int) -> None:
    st.emperor = seat
    st.events.append(Event(EventKind.EMPEROR, seat))
    if st.rules.steal_solo:
        st.stage, st.to_act = Stage.EMPEROR_SOLO, seat
    else:
        _guard_stage(st)


# -- 抢独, calling, the Guard's decision -------------------------------------

def _may_steal(st: GameState, seat: int) -> bool:
    if st.rules.steal_solo_requires is StealRequirement.NOTHING:
        return True
    counts = st.counts[seat]
    return counts[16] + counts[17] >= 3 and four_identical(st.hands[seat])


def _guard_stage(st: GameState) -> None:
    assert st.emperor is not None
    if st.rules.guard_mode is GuardMode.CALL:
        st.stage, st.to_act = Stage.CALL, st.emperor
        return
    holder = st.holder(GUARD_CARD)
    st.guard = st.emperor if holder is None else holder
    st.stage, st.to_act = Stage.GUARD, st.guard


def _open_solo(st: GameState, seat: int, stolen: bool) -> None:
    st.emperor = st.guard = seat
    st.solo, st.stolen, st.guard_public = "open", stolen, True
    st.events.append(Event(EventKind.SOLO, seat, Solo(open=True, stolen=stolen)))
    _kick_by_rebels(st)


def _kick_by_rebels(st: GameState) -> None:
    """After 明保 or 明独保, each rebel says 踢 or not."""
    if not st.rules.kick:
        _start_play(st)
        return
    assert st.emperor is not None
    st.stage = Stage.KICK
    st.asking = [(st.emperor + i) % 5 for i in range(1, 5)
                 if (st.emperor + i) % 5 not in st.royal()]
    st.votes = {}
    st.to_act = st.asking.pop(0)


def _start_play(st: GameState) -> None:
    assert st.emperor is not None
    st.stage = Stage.PLAY
    st.leader = st.to_act = st.emperor
    st.asking = []
    st.events.append(Event(EventKind.PLAY_STARTS, st.emperor))


def _call_choices(st: GameState) -> list[Action]:
    """Call a card held three or four times, or declare open solo outright
    (seed 002: "或是直接声明‘明独保’")."""
    assert st.emperor is not None
    return [*(Action(A.CALL, (c,)) for c in callable_kinds(st.hands[st.emperor])), _SOLO_OPEN]


def legal(st: GameState) -> list[Action]:
    """The legal actions of the seat to act in the role phase."""
    stage = st.stage
    if stage is Stage.EMPEROR:
        return _emperor_choices(st)
    if stage is Stage.EMPEROR_SOLO:
        return [_SOLO_OPEN, _DECLINE]
    if stage is Stage.STEAL:
        assert st.to_act is not None
        return [_STEAL, _DECLINE] if _may_steal(st, st.to_act) else [_DECLINE]
    if stage is Stage.CALL:
        return _call_choices(st)
    if stage is Stage.GUARD:
        if st.guard == st.emperor:
            if st.rules.guard_mode is GuardMode.CALL:
                return [_SOLO_HIDDEN]   # calling a card he holds four of is 暗独保 (seed 002)
            return [_SOLO_OPEN, _SOLO_HIDDEN]
        return [_GUARD_OPEN, _GUARD_HIDDEN]
    if stage is Stage.REBELLION:
        return [_REBEL, _DECLINE]
    if stage is Stage.KICK:
        return [_KICK, _DECLINE]
    return []


def apply(st: GameState, action: Action) -> None:
    """Apply a role-phase action (already checked to be legal)."""
    stage, seat = st.stage, st.to_act
    assert seat is not None and st.to_act is not None
    if stage is Stage.EMPEROR:
        _apply_emperor(st, action)
    elif stage is Stage.EMPEROR_SOLO:
        if action.kind is A.SOLO_OPEN:
            _open_solo(st, seat, stolen=False)
        else:
            st.events.append(Event(EventKind.DECLINE_SOLO, seat))
            st.stage = Stage.STEAL
            st.asking = [(seat - i) % 5 for i in range(1, 5)]   # upstream from the Emperor
            st.to_act = st.asking.pop(0)
    elif stage is Stage.STEAL:
        if action.kind is A.STEAL:
            st.events.append(Event(EventKind.STEAL, seat))
            _open_solo(st, seat, stolen=True)
        else:
            st.events.append(Event(EventKind.DECLINE_STEAL, seat))
            if st.asking:
                st.to_act = st.asking.pop(0)
            else:
                _guard_stage(st)
    elif stage is Stage.CALL:
        if action.kind is A.SOLO_OPEN:
            _open_solo(st, seat, stolen=False)
        else:
            _apply_call(st, action.cards[0])
    elif stage is Stage.GUARD:
        _apply_guard(st, action)
    elif stage is Stage.REBELLION:
        _vote(st, seat, action.kind is A.REBEL, "rebel")
    elif stage is Stage.KICK:
        _vote(st, seat, action.kind is A.KICK, "kick")
    else:  # pragma: no cover - guarded by Game.apply
        raise IllegalAction(f"no role decision in stage {stage.value}")


def _apply_call(st: GameState, card: Card) -> None:
    e = st.emperor
    assert e is not None
    st.called = card
    held = st.hands[e][card]
    others = [s for s in range(5) if s != e and st.hands[s].get(card)]
    st.guard = g = others[0] if others and held < 4 else e
    if st.rules.called_card_high and g != e:
        # 特画: the Guard's copy becomes a joker above 大王; only he learns it here.
        st.take(g, (card,))
        st.give(g, (TEHUA_CARD,))
        st.events.append(Event(EventKind.CALL, e, Call(str(card)),
                               {g: Tehua(str(TEHUA_CARD))}))
    else:
        st.events.append(Event(EventKind.CALL, e, Call(str(card))))
    st.stage, st.to_act = Stage.GUARD, st.guard


def _apply_guard(st: GameState, action: Action) -> None:
    g, e = st.guard, st.emperor
    assert g is not None and e is not None
    kind = action.kind
    if kind is A.SOLO_OPEN:
        _open_solo(st, e, stolen=False)
        return
    if kind is A.GUARD_OPEN:
        st.guard_open = st.guard_public = True
        st.events.append(Event(EventKind.GUARD, g, GuardChoice(open=True)))
        _kick_by_rebels(st)
        return
    if kind is A.SOLO_HIDDEN:
        st.solo = "hidden"
    # 暗保 and 暗独保 look the same to everybody else.
    st.events.append(Event(EventKind.GUARD, g, GuardChoice(open=False)))
    if st.rules.rebellion:
        st.stage = Stage.REBELLION
        st.asking = [(e + i) % 5 for i in range(1, 5)]
        st.votes = {}
        st.to_act = st.asking.pop(0)
    else:
        _start_play(st)


def _vote(st: GameState, seat: int, yes: bool, what: str) -> None:
    st.votes[seat] = yes
    st.events.append(Event(_VOTES[what][yes], seat))
    if what == "kick" and yes and st.rebels and len(st.rebels) >= 2:
        # After a standing rebellion one royal kick is enough.
        st.kicks += 1
        _start_play(st)
        return
    if st.asking:
        st.to_act = st.asking.pop(0)
        return
    ayes = [s for s, v in st.votes.items() if v]
    if what == "rebel":
        st.rebels = ayes
        if len(ayes) >= 2:
            _stand_rebellion(st)
            return
        _start_play(st)
        return
    if len(ayes) >= 2:
        st.kicks += 1
        st.events.append(Event(EventKind.KICK_STANDS, None, KickStands(ayes)))
    _start_play(st)


def _stand_rebellion(st: GameState) -> None:
    """Two or more said 造反: the royal side is shown and the stake doubles."""
    e, g = st.emperor, st.guard
    assert e is not None and g is not None
    st.guard_public = True
    st.events.append(Event(EventKind.REBELLION_STANDS, None,
                           RebellionStands(guard=g, solo=st.solo, rebels=list(st.rebels))))
    if st.rules.kick:
        st.stage = Stage.KICK
        st.asking = [g] if g != e else []
        st.votes = {}
        st.to_act = e
    else:
        _start_play(st)
