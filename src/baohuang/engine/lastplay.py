"""The play to beat, as views show it (:class:`LastPlay`).

It is a module of its own, left out of the compiled build (``setup.py``), because the
views' JSON form (:mod:`.wire`) reads its fields' types from its annotations, which a
compiled named tuple does not keep whole."""

from __future__ import annotations

from typing import NamedTuple

from .cards import Card

__all__ = ["LastPlay"]


class LastPlay(NamedTuple):
    """The play to beat: who played it and its cards."""

    seat: int
    cards: tuple[Card, ...]
