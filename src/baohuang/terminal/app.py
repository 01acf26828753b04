"""``baohuang play``: the command — its options, the rules they make, and one match
after another (:class:`~.session.Session`) until the player stops."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Annotated

import typer
from rich.console import Console

from ..bots.base import UnknownBot
from ..engine.rules import PRESETS, RuleError, RuleSet
from .input import parse_bots
from .prompter import Prompter
from .session import QuitGame, Session
from .text import Lang, Text

__all__ = ["build_rules", "play_command"]


def build_rules(preset: str, options: Sequence[str]) -> RuleSet:
    """The rules from a preset name and ``NAME=VALUE`` options (raises
    :class:`~baohuang.engine.rules.RuleError` naming what is wrong).

    >>> build_rules("shandong", ["hold_sixes=on"]).hold_sixes
    True
    """
    return RuleSet.preset(preset).with_assignments(options)


def play_command(
    rules: Annotated[str, typer.Option(
        "--rules", help=f"Rule preset: {', '.join(PRESETS)} (see `baohuang rules`).")
    ] = "shandong",
    option: Annotated[list[str] | None, typer.Option(
        "--option", "-o", help="Change one rule option, NAME=VALUE (repeatable), e.g. "
        "-o kaopai=on.")] = None,
    seed: Annotated[int | None, typer.Option(
        help="Seed of the deal (random when not given; printed so a game can be "
        "replayed).")] = None,
    games: Annotated[int, typer.Option(
        min=1, help="Games in the match (running totals; tribute if the rules have it).")] = 1,
    seat: Annotated[int, typer.Option(min=0, max=4, help="Your seat, 0-4.")] = 0,
    bots: Annotated[str, typer.Option(
        help="Bots for the other four seats in seat order, a,b,c,d, or one name for "
        "all.")] = "heuristic",
    lang: Annotated[Lang, typer.Option(help="Language: both, zh or en.")] = Lang.BOTH,
    delay: Annotated[float | None, typer.Option(
        min=0.0, help="Seconds to pause after each bot move (default 0.25 in a terminal, "
        "0 when input is piped).")] = None,
) -> None:
    """Play 保皇 in the terminal: you against four bots.

    Type cards (9 9 9, bj 8 8, 10h), a hint number, p to pass, ? for help, or
    press Enter: in play for the first hint (or to pass when nothing beats), in the
    role phase for the cautious default.  Input may be piped in.
    """
    try:
        ruleset = build_rules(rules, option or [])
    except RuleError as exc:
        name = "--rules" if "preset" in str(exc) else "--option"
        raise typer.BadParameter(str(exc), param_hint=name) from None
    try:
        bot_list = parse_bots(bots)
    except UnknownBot as exc:
        raise typer.BadParameter(str(exc), param_hint="--bots") from None
    if seed is None:
        seed = random.SystemRandom().randrange(1_000_000)
    console = Console(highlight=False)
    prompter = Prompter(console)
    try:
        while True:
            session = Session(console, prompter, rules=ruleset, seed=seed, games=games,
                              seat=seat, bots=bot_list, lang=lang, delay=delay)
            session.run()
            if not session.again():
                break
            seed = random.SystemRandom().randrange(1_000_000)
    except QuitGame:
        console.print(Text(lang, seat)("再见。", "Bye."))
        raise typer.Exit(0) from None
    except KeyboardInterrupt:
        console.print()
        raise typer.Exit(130) from None
