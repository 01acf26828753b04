"""Actions: every decision a seat can take, in the role phase and in play.

>>> from baohuang import Action, ActionKind
>>> Action.parse("play BJ 9 9")
Action(kind=<ActionKind.PLAY: 'play'>, cards=(Card('BJ'), Card('9'), Card('9')), seat=None)
>>> str(Action.parse("call 9h")), Action.parse("pass").to_dict()
('call 9h', {'kind': 'pass'})

An action has two plain forms: its text (``str(action)``, read by
:meth:`Action.parse`; views list legal actions this way) and its
``to_dict()`` object (game records hold these).  :meth:`Action.read` takes either:

>>> Action.read("play 9 9") == Action.read({"kind": "play", "cards": ["9", "9"]})
True
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, NamedTuple

from .cards import CARD_TEXT, Card, CardParseError, parse_cards

__all__ = ["Action", "ActionKind", "ActionParseError", "parse_actions"]


class ActionParseError(ValueError):
    """An action text or dict that names no action."""


class ActionKind(StrEnum):
    """What an action does.  The Chinese term is where a player looks for it."""

    ACCEPT = "accept"              # 当皇帝: keep the Emperor card
    ABDICATE = "abdicate"          # 让位: pass the Emperor card on
    STEAL = "steal"                # 抢独: claim to play alone against four
    CALL = "call"                  # 叫侍卫: name the card whose fourth copy is the Guard
    SOLO_OPEN = "solo_open"        # 明独保: play alone, openly
    SOLO_HIDDEN = "solo_hidden"    # 暗独保: play alone, hidden
    GUARD_OPEN = "guard_open"      # 明保: the Guard shows himself
    GUARD_HIDDEN = "guard_hidden"  # 暗保: the Guard stays hidden
    REBEL = "rebel"                # 造反
    KICK = "kick"                  # 踢
    DECLINE = "decline"            # no 抢独 / 造反 / 踢
    PLAY = "play"                  # 出牌
    PASS = "pass"                  # 过 / 不要
    ASK_LEAD = "ask_lead"          # 申请接风 (lead_after_out = apply)
    LEAVE = "leave"                # 逃跑: leave the game (any seat, any time)


#: (members looked up once: on Python 3.11 ``ActionKind.X`` is a descriptor call, and a
#: client reads dozens of new actions a decision)
_WITH_CARDS = frozenset((ActionKind.PLAY, ActionKind.CALL))
_LEAVE = ActionKind.LEAVE


class Action(NamedTuple):
    """One decision.  ``cards`` for ``play`` and ``call``; ``seat`` only for
    ``leave`` (which any seat may do at any time)."""

    kind: ActionKind
    cards: tuple[Card, ...] = ()
    seat: int | None = None

    def __str__(self) -> str:
        text = self.kind._value_
        if self.cards:
            text += " " + " ".join(map(CARD_TEXT.__getitem__, self.cards))
        if self.seat is not None:
            text += f" {self.seat}"
        return text

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind._value_}
        if self.cards:
            out["cards"] = list(map(CARD_TEXT.__getitem__, self.cards))
        if self.seat is not None:
            out["seat"] = self.seat
        return out

    @classmethod
    def from_dict(cls, data: Any) -> Action:
        if not isinstance(data, dict):
            raise ActionParseError(f"an action must be an object, not {data!r}")
        try:
            kind = ActionKind(str(data.get("kind")))
        except ValueError:
            raise ActionParseError(f"unknown action kind {data.get('kind')!r}") from None
        cards_raw = data.get("cards", [])
        if not isinstance(cards_raw, list) or not all(isinstance(c, str) for c in cards_raw):
            raise ActionParseError("'cards' must be a list of card strings")
        seat = data.get("seat")
        if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool)):
            raise ActionParseError("'seat' must be a seat number")
        return cls.make(kind, parse_cards(cards_raw), seat)

    @classmethod
    def read(cls, data: Any) -> Action:
        """An action from either plain form: its text or its ``to_dict()`` object."""
        if isinstance(data, str):
            return cls.parse(data)
        return cls.from_dict(data)

    @classmethod
    def make(cls, kind: ActionKind, cards: list[Card] | tuple[Card, ...] = (),
             seat: int | None = None) -> Action:
        if kind in _WITH_CARDS:
            if not cards:
                raise ActionParseError(f"{kind.value} needs cards")
        elif cards:
            raise ActionParseError(f"{kind.value} takes no cards")
        if kind is _LEAVE and seat is None:
            raise ActionParseError("leave needs a seat")
        return cls(kind, tuple(cards), seat)

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read ``"play 9 9"``, ``"pass"``, ``"call 9h"``, ``"leave 3"``…

        The texts read lately are kept with their actions (actions are immutable): a
        server reads the same few hundred texts move after move, and a client the
        same legal actions.

        >>> Action.parse("play 9 9") is Action.parse("play 9 9")
        True
        """
        action = _parsed.get(text)
        if action is None:
            action = _parse(text)
            if len(_parsed) >= _PARSED_MAX:
                _parsed.clear()
            _parsed[text] = action
        return action


def _parse(text: str) -> Action:
    words = text.split()
    if not words:
        raise ActionParseError("empty action")
    kind = _KINDS.get(words[0]) or _KINDS.get(words[0].lower())
    if kind is None:
        raise ActionParseError(f"unknown action {words[0]!r}")
    rest = words[1:]
    if kind is ActionKind.LEAVE:
        if len(rest) != 1 or not rest[0].isdigit():
            raise ActionParseError("leave needs a seat number")
        return Action.make(kind, (), int(rest[0]))
    try:
        cards = parse_cards(rest)
    except CardParseError as exc:
        raise ActionParseError(str(exc)) from None
    return Action.make(kind, cards)


#: each kind by its text (``ActionKind(text)``, one lookup)
_KINDS: dict[str, ActionKind] = {kind.value: kind for kind in ActionKind}
#: text -> action, for the texts read lately (see Action.parse)
_parsed: dict[str, Action] = {}
_PARSED_MAX = 50_000


def parse_actions(texts: list[str]) -> tuple[Action, ...]:
    """``Action.parse`` of each text (a view's legal actions, say).

    >>> parse_actions(["pass", "play 9 9"])[1].cards
    (Card('9'), Card('9'))
    """
    try:
        return tuple(map(_parsed.__getitem__, texts))
    except KeyError:
        return tuple(map(Action.parse, texts))


PASS = Action(ActionKind.PASS)
DECLINE = Action(ActionKind.DECLINE)
