"""Team rating with openskill (Plackett–Luce): the royal side against the rebels.

After a scored game the Emperor and the Guard (or the solo Emperor alone) form
one team and the other seats the other; the winning side is ranked first, both
equal on a draw.  Only seats played by people are rated; a bot seat plays with
the default rating and is not changed.

>>> new = rate_game([(25.0, 8.333)] * 5, royal=(0, 2), royal_won=True,
...                 rated=(True, True, True, True, False))
>>> new[0][0] > 25.0 > new[1][0], new[4] is None
(True, True)
>>> round(ordinal(25.0, 8.333), 3)
0.001
"""

from __future__ import annotations

from collections.abc import Sequence

from openskill.models import PlackettLuce

__all__ = ["DEFAULT_MU", "DEFAULT_SIGMA", "ordinal", "rate_game"]

_MODEL = PlackettLuce()
DEFAULT_MU: float = 25.0
DEFAULT_SIGMA: float = 25.0 / 3


def ordinal(mu: float, sigma: float) -> float:
    """The conservative skill estimate shown on leaderboards (μ − 3σ)."""
    return mu - 3 * sigma


def rate_game(ratings: Sequence[tuple[float, float]], *, royal: Sequence[int],
              royal_won: bool | None,
              rated: Sequence[bool]) -> list[tuple[float, float] | None]:
    """New ``(mu, sigma)`` per seat after one game (``None`` for unrated seats).

    ``royal``: the royal side's seats; ``royal_won``: ``None`` for a draw."""
    players = [_MODEL.rating(mu=mu, sigma=sigma) for mu, sigma in ratings]
    royal_team = [players[s] for s in range(5) if s in royal]
    rebel_team = [players[s] for s in range(5) if s not in royal]
    ranks = [1.0, 1.0] if royal_won is None else [1.0, 2.0] if royal_won else [2.0, 1.0]
    new_royal, new_rebel = _MODEL.rate([royal_team, rebel_team], ranks=ranks)
    updated = iter(new_royal)
    updated_rebel = iter(new_rebel)
    out: list[tuple[float, float] | None] = []
    for seat in range(5):
        rating = next(updated) if seat in royal else next(updated_rebel)
        out.append((float(rating.mu), float(rating.sigma)) if rated[seat] else None)
    return out
