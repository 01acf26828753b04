"""The two parts of a seat's view that :mod:`.viewvalues` makes, declared once: the
values every seat's view of a state holds alike (:class:`PublicValues`) and those that
are the seat's own but its events (:class:`OwnValues`), NamedTuples with ``View``'s
names, order and types, made by name.  (In a module of their own, which the compiled
build leaves as it is: mypyc keeps no more than the runtime class of a compiled
NamedTuple's annotations, and :mod:`.views` compares these with ``View``'s.)"""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from .actions import Action
from .cards import Card
from .lastplay import LastPlay
from .state import Stage

__all__ = ["OWN_ORDER", "PUBLIC_ORDER", "OwnValues", "PublicValues"]


class PublicValues(NamedTuple):
    """The values every seat's view of one game state holds alike: ``View``'s ``Public``
    fields, in ``View``'s order and with its types (:mod:`.views`
    refuses to import when they differ), made by name (:func:`.viewvalues._public`): no
    value can land in another's place."""

    stage: Stage
    dealer: int
    deal_no: int
    rules: dict[str, Any]
    hand_counts: tuple[int, ...]
    candidate: int | None
    emperor: int | None
    called: Card | None
    guard_open: bool
    rebels: tuple[int, ...]
    kicks: int
    stake: int
    leader: int | None
    last_play: LastPlay | None
    out: tuple[int, ...]
    left: tuple[int, ...]
    played: tuple[Card, ...]
    result: dict[str, Any] | None
    hands: dict[int, tuple[Card, ...]]


class OwnValues(NamedTuple):
    """The values of a seat's view that are its own but its events: ``View``'s other
    fields, declared here once as :class:`PublicValues` is, made by name
    (:func:`.viewvalues.own_values`)."""

    seat: int | None
    to_act: int | None
    hand: tuple[Card, ...]
    guard: int | None
    role: str | None
    solo: str | None
    legal_actions: tuple[Action, ...]
    choice_stakes: tuple[int, ...]


#: the fields of View whose values public_values() makes, in its order
PUBLIC_ORDER: Final = PublicValues._fields
#: the fields of View whose values own_values() makes, in its order
OWN_ORDER: Final = OwnValues._fields
