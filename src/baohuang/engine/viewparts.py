"""The two parts of a seat's view that :mod:`.viewvalues` makes, declared once: the
values every seat's view of a state holds alike (:class:`PublicValues`) and those that
are the seat's own but its events (:class:`OwnValues`), with ``View``'s names, order and
types.  :mod:`.viewvalues` makes each by name, in C (msgspec), and hands on its values
as a tuple (:func:`values`), which views, the server's render and the environments
read by position.  (In a module of their own, which the compiled build leaves as it
is: mypyc keeps no more than the runtime class of a compiled class's annotations, and
:mod:`.views` compares these with ``View``'s.)

>>> own = OwnValues(seat=1, to_act=2, hand=(), guard=None, role=None, solo=None,
...                 legal_actions=(), choice_stakes=())
>>> values(own)
(1, 2, (), None, None, None, (), ())
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

from .actions import Action
from .cards import Card
from .lastplay import LastPlay
from .state import Stage

__all__ = ["OWN_ORDER", "PUBLIC_ORDER", "OwnValues", "PublicValues", "values"]


class PublicValues(msgspec.Struct):
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


class OwnValues(msgspec.Struct):
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
PUBLIC_ORDER: Final[tuple[str, ...]] = PublicValues.__struct_fields__
#: the fields of View whose values own_values() makes, in its order
OWN_ORDER: Final[tuple[str, ...]] = OwnValues.__struct_fields__

#: a part's values, in its fields' order (one C call)
values: Final = msgspec.structs.astuple
