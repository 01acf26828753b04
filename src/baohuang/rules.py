"""Rule options and the four presets (RULES.md §8).

Every regional difference between the source texts is an option of
:class:`RuleSet`; a preset fixes all of them to match one source.

>>> from baohuang import RuleSet
>>> rules = RuleSet.preset("shandong")
>>> rules.deck, rules.guard_mode
(<Deck.SHANDONG165: 'shandong165'>, <GuardMode.CARD: 'card'>)
>>> rules.replace(kaopai=True).kaopai
True
>>> rules.replace(kaopia=True)
Traceback (most recent call last):
...
baohuang.rules.RuleError: unknown rule option 'kaopia'
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any, Final

from .cards import Deck

__all__ = [
    "OPTION_HELP",
    "PRESETS",
    "Abdication",
    "GuardMode",
    "LeadAfterOut",
    "RuleError",
    "RuleSet",
    "Scoring",
    "StealRequirement",
]


class RuleError(ValueError):
    """An unknown rule option, preset or option value."""


class GuardMode(StrEnum):
    """How the Guard is found (RULES.md §4.2)."""

    CARD = "card"   # 固定保: the holder of the Guard card 侍卫牌
    CALL = "call"   # 叫侍卫: the Emperor names a card he holds three of


class Abdication(StrEnum):
    """How the Emperor candidate may give the throne away (让位, RULES.md §4.1)."""

    NONE = "none"
    SKIP_TWO_IF_SOLO = "skip_two_if_solo"
    TO_PREV = "to_prev"
    TO_PREV_WITH_TWO = "to_prev_with_two"
    CLOCKWISE_WITH_TWO = "clockwise_with_two"


class StealRequirement(StrEnum):
    """What a player needs to claim 抢独."""

    NOTHING = "nothing"
    THREE_JOKERS_AND_FOUR_IDENTICAL = "three_jokers_and_four_identical"


class LeadAfterOut(StrEnum):
    """Who leads after a player went out with the round's last play (接风, §5)."""

    TEAMMATE = "teammate"
    NEXT = "next"
    APPLY = "apply"


class Scoring(StrEnum):
    """Score tables (RULES.md §6)."""

    SHANDONG = "shandong"
    PLACEMENT = "placement"


@dataclass(frozen=True, slots=True)
class RuleSet:
    """All rule options.  Field names are the option names of RULES.md."""

    deck: Deck = Deck.SHANDONG165
    guard_mode: GuardMode = GuardMode.CARD
    abdication: Abdication = Abdication.SKIP_TWO_IF_SOLO
    forced_call: bool = False
    steal_solo: bool = True
    steal_solo_requires: StealRequirement = StealRequirement.NOTHING
    rebellion: bool = True
    kick: bool = True
    lead_after_out: LeadAfterOut = LeadAfterOut.TEAMMATE
    scoring: Scoring = Scoring.SHANDONG
    tribute: bool = False
    kaopai: bool = False
    hold_sixes: bool = False
    jokers_with_twos: bool = False
    leave_penalty: int = 40
    leave_ends_game: bool = True

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            kind = _FIELD_TYPES[f.name]
            if isinstance(kind, type) and issubclass(kind, Enum):
                if not isinstance(value, kind):
                    try:
                        object.__setattr__(self, f.name, kind(value))
                    except ValueError:
                        allowed = ", ".join(m.value for m in kind)
                        raise RuleError(
                            f"bad value {value!r} for rule option {f.name!r} "
                            f"(one of: {allowed})") from None
            elif kind is bool and not isinstance(value, bool):
                raise RuleError(f"rule option {f.name!r} takes true or false, not {value!r}")
            elif kind is int and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 0):
                raise RuleError(f"rule option {f.name!r} takes a whole number ≥ 0, "
                                f"not {value!r}")

    @classmethod
    def preset(cls, name: str) -> RuleSet:
        """One of the presets ``shandong`` (default), ``lianzhong_classic``,
        ``lianzhong_simple``, ``seed001_216``."""
        try:
            return PRESETS[name]
        except KeyError:
            raise RuleError(f"unknown preset {name!r} (one of: "
                            f"{', '.join(PRESETS)})") from None

    def replace(self, **changes: Any) -> RuleSet:
        """A copy with some options changed; values may be given as strings."""
        names = {f.name for f in dataclasses.fields(self)}
        for key in changes:
            if key not in names:
                raise RuleError(f"unknown rule option {key!r}")
        return dataclasses.replace(self, **changes)

    def with_option(self, assignment: str) -> RuleSet:
        """Apply one ``NAME=VALUE`` text (as on the command line).

        >>> RuleSet().with_option("hold_sixes=on").hold_sixes
        True
        """
        name, sep, text = assignment.partition("=")
        name = name.strip().replace("-", "_")
        if not sep:
            raise RuleError(f"option must look like NAME=VALUE, not {assignment!r}")
        kind = _FIELD_TYPES.get(name)
        if kind is None:
            raise RuleError(f"unknown rule option {name!r}")
        value: Any = text.strip()
        if kind is bool:
            low = value.lower()
            if low in ("1", "true", "on", "yes"):
                value = True
            elif low in ("0", "false", "off", "no"):
                value = False
            else:
                raise RuleError(f"rule option {name!r} takes on/off, not {text!r}")
        elif kind is int:
            try:
                value = int(value)
            except ValueError:
                raise RuleError(f"rule option {name!r} takes a whole number, "
                                f"not {text!r}") from None
        return self.replace(**{name: value})

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values, keyed by option name."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            out[f.name] = value.value if isinstance(value, Enum) else value
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RuleSet:
        """The inverse of :meth:`to_dict` (missing options take their default)."""
        return cls().replace(**data)

    def preset_name(self) -> str | None:
        """The name of the preset equal to these rules, if any."""
        for name, rules in PRESETS.items():
            if rules == self:
                return name
        return None


_FIELD_TYPES: Final[dict[str, Any]] = {
    "deck": Deck, "guard_mode": GuardMode, "abdication": Abdication,
    "forced_call": bool, "steal_solo": bool, "steal_solo_requires": StealRequirement,
    "rebellion": bool, "kick": bool, "lead_after_out": LeadAfterOut, "scoring": Scoring,
    "tribute": bool, "kaopai": bool, "hold_sixes": bool, "jokers_with_twos": bool,
    "leave_penalty": int, "leave_ends_game": bool,
}

PRESETS: Final[dict[str, RuleSet]] = {
    "shandong": RuleSet(),
    "lianzhong_classic": RuleSet(
        deck=Deck.FULL, guard_mode=GuardMode.CALL, abdication=Abdication.TO_PREV,
        steal_solo=True,
        steal_solo_requires=StealRequirement.THREE_JOKERS_AND_FOUR_IDENTICAL,
        rebellion=False, kick=False),
    "lianzhong_simple": RuleSet(
        deck=Deck.NO345, guard_mode=GuardMode.CARD,
        abdication=Abdication.TO_PREV_WITH_TWO, steal_solo=False, rebellion=True,
        kick=False),
    "seed001_216": RuleSet(
        deck=Deck.FULL, guard_mode=GuardMode.CALL,
        abdication=Abdication.CLOCKWISE_WITH_TWO, steal_solo=False, rebellion=False,
        kick=False, lead_after_out=LeadAfterOut.APPLY, scoring=Scoring.PLACEMENT,
        tribute=True),
}

#: One line of help per option: (Chinese, English).
OPTION_HELP: Final[dict[str, tuple[str, str]]] = {
    "deck": ("用牌：全部216张 / 去3、4、5共168张 / 山东165张",
             "cards used: all 216 / without 3-5 (168) / Shandong 165"),
    "guard_mode": ("定侍卫：固定保（侍卫牌）或叫侍卫（皇帝叫三张同牌）",
                   "guard: holder of the Guard card, or called by the Emperor"),
    "abdication": ("让位方式", "how the Emperor card may be passed on (abdication)"),
    "forced_call": ("逼位：无人当皇帝时，只有一套三张同牌者必须当",
                    "if all decline, a player with exactly one triple must take it"),
    "steal_solo": ("允许抢独", "others may claim to play alone (抢独)"),
    "steal_solo_requires": ("抢独条件", "what a 抢独 claimant must hold"),
    "rebellion": ("允许造反", "rebels may rebel (造反) against a hidden royal side"),
    "kick": ("允许踢", "kicks (踢) double the stake"),
    "lead_after_out": ("接风：队友 / 下家 / 申请",
                       "who leads after a player goes out: teammate / next / apply"),
    "scoring": ("计分：山东 / 名次", "scoring: shandong table / placement points"),
    "tribute": ("进贡（连续对局）", "tribute between games of a match"),
    "kaopai": ("烤牌：可多挂王压王挂牌", "kaopai: beat joker plays with extra jokers"),
    "hold_sixes": ("憋6：6必须最后一手出完", "sixes only in the final play"),
    "jokers_with_twos": ("王可以挂2", "jokers may be attached to 2s"),
    "leave_penalty": ("逃跑扣分", "points lost for leaving a game"),
    "leave_ends_game": ("逃跑即结束本局（否则托管打完）",
                        "leaving ends the game (else 托管 plays the seat to the end)"),
}
