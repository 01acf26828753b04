"""Where a table's deals come from (docs/protocol.md §2 ``practice``): seeds drawn
from :mod:`secrets`, one per game, except at a practice table, which deals from
its (possibly chosen) seed reproducibly.

>>> rated = new_match(RuleSet(), seed=5, games=3, practice=False)
>>> rated.game_seed(0) != 5000 and rated.game_seed(1) != rated.game_seed(0)
True
>>> new_match(RuleSet(), seed=5, games=3, practice=True).game_seed(1)
5001
"""

from __future__ import annotations

import secrets

from ...engine.match import Match
from ...engine.rules import RuleSet

__all__ = ["new_match", "new_seed"]


def new_seed() -> int:
    """A seed no one can guess (63 bits from :mod:`secrets`, a database BIGINT)."""
    return secrets.randbits(63)


def new_match(rules: RuleSet, seed: int, games: int, practice: bool,
              dealt: list[int] | None = None) -> Match:
    """The match of a table.  A practice table deals from its seed, reproducibly; any
    other deals each game from a new seed from :mod:`secrets` (``dealt``: the seeds of
    the games already dealt, after a restart), so that no deal — nor a replay's seed —
    tells anything of another."""
    if practice:
        return Match(rules, seed, games)
    known = list(dealt or [])

    def seeds(index: int) -> int:
        return known[index] if index < len(known) else new_seed()
    return Match(rules, seed, games, seeds=seeds)
