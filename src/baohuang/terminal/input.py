"""Reading what a player types in the terminal game (``baohuang play``).

Everything here is a pure function of the typed text, so it is tested
directly; :mod:`baohuang.terminal.session` turns the results into actions.

>>> parse_play_input("9 9 9", hints=3)
Cards(text='9 9 9')
>>> parse_play_input("2", hints=3), parse_play_input("play 2", hints=3)
(Hint(number=2), Cards(text='2'))
>>> parse_play_input("", hints=3), parse_play_input("过", hints=3)
(Default(), Pass())
>>> expand_repeats("bj 9x3")
'bj 9 9 9'
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..bots import bot_names, is_bot
from ..bots.base import BUDGETS, UnknownBot
from ..engine.cards import Card, CardParseError, Rank, parse_cards

__all__ = [
    "AskLead",
    "BadInput",
    "Cards",
    "Default",
    "Help",
    "Hint",
    "Pass",
    "PlayInput",
    "Quit",
    "ShowSuits",
    "card_parse_message",
    "check_cards",
    "expand_repeats",
    "missing_cards",
    "parse_bots",
    "parse_choice",
    "parse_play_input",
]


@dataclass(frozen=True, slots=True)
class Default:
    """Enter alone: take what the prompt names (in play the first hint)."""


@dataclass(frozen=True, slots=True)
class Pass:
    """``p`` / ``pass`` / ``过`` / ``不要``."""


@dataclass(frozen=True, slots=True)
class AskLead:
    """``ask`` / ``接风``: ask to lead (申请接风, ``lead_after_out = apply``)."""


@dataclass(frozen=True, slots=True)
class Help:
    """``?`` / ``help``."""


@dataclass(frozen=True, slots=True)
class ShowSuits:
    """``s`` / ``suits``: show the hand card by card, with suits."""


@dataclass(frozen=True, slots=True)
class Quit:
    """``quit`` / ``exit``: leave the program."""


@dataclass(frozen=True, slots=True)
class Hint:
    """A hint number (1-based) from the listed hints."""

    number: int


@dataclass(frozen=True, slots=True)
class Cards:
    """Cards to play, in the card notation (checked when they are played)."""

    text: str


@dataclass(frozen=True, slots=True)
class BadInput:
    """Input that names nothing; ``message`` says what was wrong."""

    message: str


PlayInput = Default | Pass | AskLead | Help | ShowSuits | Quit | Hint | Cards | BadInput

_WORDS: dict[str, PlayInput] = {
    "p": Pass(), "pass": Pass(), "过": Pass(), "不要": Pass(), "要不起": Pass(),
    "ask": AskLead(), "接风": AskLead(),
    "?": Help(), "？": Help(), "help": Help(), "帮助": Help(),
    "s": ShowSuits(), "suits": ShowSuits(), "hand": ShowSuits(),
    "quit": Quit(), "exit": Quit(),
}
_RANK_WORDS = frozenset(r.symbol for r in Rank if not r.is_joker)
_REPEAT = re.compile(r"^(.+?)[x×](\d+)$", re.IGNORECASE)


def expand_repeats(text: str) -> str:
    """``9x3`` (or ``9×3``) stands for ``9 9 9``; other tokens are kept.

    >>> expand_repeats("BJ 10x2"), expand_repeats("9 9")
    ('BJ 10 10', '9 9')
    """
    out: list[str] = []
    for token in text.replace(",", " ").split():
        m = _REPEAT.match(token)
        if m and 0 < int(m.group(2)) <= 64:
            out.extend([m.group(1)] * int(m.group(2)))
        else:
            out.append(token)
    return " ".join(out)


def parse_play_input(text: str, hints: int) -> PlayInput:
    """What a line typed at the play prompt asks for.

    ``hints`` is how many numbered hints are listed: a lone number in
    ``1..hints`` picks a hint.  A lone card rank that is also a hint number
    (``2``) is a hint; ``play 2`` always means the card.

    >>> parse_play_input("p", 0), parse_play_input(" ? ", 0)
    (Pass(), Help())
    >>> parse_play_input("7", hints=5), parse_play_input("9", hints=5)
    (Cards(text='7'), Cards(text='9'))
    >>> parse_play_input("12", hints=5)
    BadInput(message='no hint 12: the hints are numbered 1 to 5')
    >>> parse_play_input("bj 8x2", 5)
    Cards(text='bj 8 8')
    """
    stripped = text.strip()
    if not stripped:
        return Default()
    word = stripped.lower()
    if word in _WORDS:
        return _WORDS[word]
    if word.startswith("play "):
        rest = expand_repeats(stripped[5:])
        return Cards(rest) if rest else BadInput("play what? e.g. play 2")
    if stripped.isdigit():
        number = int(stripped)
        if 1 <= number <= hints:
            return Hint(number)
        if stripped not in _RANK_WORDS:
            if hints:
                return BadInput(f"no hint {number}: the hints are numbered 1 to {hints}")
            return BadInput(f"no hint {number}: there are no hints now")
    return Cards(expand_repeats(stripped))


def missing_cards(hand: Sequence[Card], wanted: Sequence[Card]) -> str | None:
    """Why ``hand`` cannot supply ``wanted`` (cards typed with or without a
    suit), or ``None`` when it can.  Marked jokers count as plain jokers
    unless typed with their mark.

    >>> hand = parse_cards("BJ* SJ 9s 9h 9h 10d")
    >>> missing_cards(hand, parse_cards("BJ 9 9 9")) is None
    True
    >>> missing_cards(hand, parse_cards("9 9 9 9"))
    'you hold only 3× 9, not 4'
    >>> missing_cards(hand, parse_cards("9d"))
    'you hold no 9d'
    >>> missing_cards(hand, parse_cards("SJ*"))
    'you hold no SJ*'
    """
    exact = Counter(c for c in wanted if c.suit is not None or c.marked)
    have = Counter(hand)
    for card, n in exact.items():
        if have[card] < n:
            return _short(card, have[card], n)
        have[card] -= n
    by_rank = Counter(c.rank for c in wanted if c.suit is None and not c.marked)
    for rank, n in by_rank.items():
        held = sum(k for c, k in have.items() if c.rank == rank)
        if held < n:
            return _short(rank.symbol, held, n)
    return None


def _short(what: Card | str, held: int, wanted: int) -> str:
    if held == 0:
        return f"you hold no {what}"
    return f"you hold only {held}× {what}, not {wanted}"


def parse_choice(text: str, aliases: Sequence[Sequence[str]], default: int) -> int | str:
    """The 0-based choice picked by ``text`` among numbered choices, or an
    error message.  Enter picks ``default``; a choice is picked by its
    number or one of its ``aliases`` (case-insensitive).

    >>> parse_choice("", [["accept"], ["abdicate"]], default=0)
    0
    >>> parse_choice("2", [["accept"], ["abdicate"]], 0)
    1
    >>> parse_choice("ABDICATE", [["accept"], ["abdicate"]], 0)
    1
    >>> parse_choice("3", [["accept"], ["abdicate"]], 0)
    'choose 1 to 2, or press Enter for the default (1)'
    """
    stripped = text.strip()
    if not stripped:
        return default
    if stripped.isdigit() and 1 <= int(stripped) <= len(aliases):
        return int(stripped) - 1
    low = stripped.lower()
    for i, names in enumerate(aliases):
        if low in (n.lower() for n in names):
            return i
    return f"choose 1 to {len(aliases)}, or press Enter for the default ({default + 1})"


def parse_bots(text: str, seats: int = 4) -> list[str]:
    """Bot names for the other ``seats`` seats, from ``a,b,c,d`` or one
    name for all.  Raises :class:`~baohuang.bots.base.UnknownBot` naming
    the bad name and the registered bots.

    >>> parse_bots("hosted")
    ['hosted', 'hosted', 'hosted', 'hosted']
    >>> parse_bots("random, hosted,hosted,search-250")
    ['random', 'hosted', 'hosted', 'search-250']
    """
    names = [n.strip() for n in text.split(",")]
    if len(names) == 1:
        names = names * seats
    if len(names) != seats:
        raise UnknownBot(f"--bots takes one bot name or {seats} names separated by commas, "
                         f"not {len(names)}: {text!r}")
    for name in names:
        if not is_bot(name):
            shown = name or "(empty)"
            budgets = "".join(f", {b}-N" for b in BUDGETS)
            raise UnknownBot(f"unknown bot {shown!r}; registered bots: "
                             f"{', '.join(bot_names())}{budgets}")
    return names


def card_parse_message(exc: CardParseError) -> str:
    """A player-facing message for a bad card token."""
    return f"{exc} — type cards like 9 9 9, bj 8 8, 10h; ? for help"


def check_cards(text: str) -> list[Card] | str:
    """The cards of ``text``, or the message naming the bad token.

    >>> print(check_cards("9 9 x"))
    not a card: 'x' (e.g. 9, 10h, Q, 2, SJ, BJ, BJ*) — type cards like 9 9 9, bj 8 8, 10h; ...
    """
    try:
        return parse_cards(text)
    except CardParseError as exc:
        return card_parse_message(exc)
