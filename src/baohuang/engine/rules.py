"""Rule options and the five presets (docs/rules.md §4, §5).

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
baohuang.engine.rules.RuleError: unknown rule option 'kaopia'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import Any, Final

from .cards import Deck

__all__ = [
    "OPTION_HELP",
    "PLAY_OPTIONS",
    "PRESETS",
    "Abdication",
    "ForcedCallRule",
    "GuardMode",
    "LeadAfterOut",
    "RuleError",
    "RuleSet",
    "Scoring",
    "StealRequirement",
    "option_types",
]


class RuleError(ValueError):
    """An unknown rule option, preset or option value."""


class GuardMode(StrEnum):
    """How the Guard is found (docs/rules.md §6.2)."""

    CARD = "card"   # 固定保: the holder of the Guard card 侍卫牌
    CALL = "call"   # 叫侍卫: the Emperor names a card he holds three of


class Abdication(StrEnum):
    """How the Emperor candidate may give the throne away (让位, docs/rules.md §6.1)."""

    NONE = "none"
    SKIP_TWO_IF_SOLO = "skip_two_if_solo"
    TO_PREV = "to_prev"
    TO_PREV_WITH_TWO = "to_prev_with_two"
    CLOCKWISE_WITH_TWO = "clockwise_with_two"
    CLOCKWISE_THEN_TWO = "clockwise_then_two"


class ForcedCallRule(StrEnum):
    """Who must take the Emperor card under 逼位 (``forced_call``, docs/rules.md §6.1)."""

    #: 有且只有3张同点数同花色的牌: some card held exactly three times
    THREE_NOT_FOUR = "three_not_four"
    #: the older reading: exactly one such card
    ONE_SET_OF_THREE = "one_set_of_three"


class StealRequirement(StrEnum):
    """What a player needs to claim 抢独."""

    NOTHING = "nothing"
    THREE_JOKERS_AND_FOUR_IDENTICAL = "three_jokers_and_four_identical"


class LeadAfterOut(StrEnum):
    """Who leads after a player went out with the round's last play (接风, docs/rules.md §7.3)."""

    TEAMMATE = "teammate"
    NEXT = "next"
    APPLY = "apply"


class Scoring(StrEnum):
    """Score tables (docs/rules.md §8)."""

    SHANDONG = "shandong"
    PLACEMENT = "placement"
    WURENJU = "wurenju"


@dataclass(frozen=True, slots=True)
class RuleSet:
    """All rule options.  Field names are the option names of docs/rules.md §4."""

    deck: Deck = Deck.SHANDONG165
    hold_back_emperor_card: bool = True
    guard_mode: GuardMode = GuardMode.CARD
    called_card_high: bool = False
    abdication: Abdication = Abdication.SKIP_TWO_IF_SOLO
    forced_call: bool = False
    forced_call_rule: ForcedCallRule = ForcedCallRule.THREE_NOT_FOUR
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
        if self.called_card_high and self.guard_mode is not GuardMode.CALL:
            raise RuleError("rule option 'called_card_high' (特画) needs guard_mode=call: "
                            "only a called card has a fourth copy")
        if not self.hold_back_emperor_card and self.deck is not Deck.FULL:
            raise RuleError("rule option 'hold_back_emperor_card' applies only to deck=full "
                            "(the other decks are dealt out whole)")

    @classmethod
    def preset(cls, name: str) -> RuleSet:
        """One of the presets ``shandong`` (default), ``lianzhong_classic``,
        ``lianzhong_simple``, ``seed001_216``, ``wurenju``."""
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
        return self.with_assignments([assignment])

    def with_assignments(self, assignments: Sequence[str]) -> RuleSet:
        """Apply several ``NAME=VALUE`` texts at once (:meth:`with_options`).

        >>> RuleSet.preset("wurenju").with_assignments(
        ...     ["guard_mode=card", "called_card_high=off"]).preset_name()
        """
        options: dict[str, str] = {}
        for assignment in assignments:
            name, sep, text = assignment.partition("=")
            if not sep:
                raise RuleError(f"option must look like NAME=VALUE, not {assignment!r}")
            options[name] = text
        return self.with_options(options)

    def with_options(self, options: dict[str, Any]) -> RuleSet:
        """Apply several options at once (values as given or as text such as
        ``"on"`` or ``"40"``), so that options which only make sense together can
        change together.

        >>> wurenju = RuleSet.preset("wurenju")
        >>> wurenju.with_options({"guard_mode": "card", "called_card_high": "off"}).guard_mode
        <GuardMode.CARD: 'card'>
        """
        changes: dict[str, Any] = {}
        for raw, value in options.items():
            name = str(raw).strip().replace("-", "_")
            kind = _FIELD_TYPES.get(name)
            if kind is None:
                raise RuleError(f"unknown rule option {name!r}")
            changes[name] = _read_value(name, kind, value) if isinstance(value, str) else value
        return self.replace(**changes)

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


def _read_value(name: str, kind: Any, text: str) -> Any:
    """An option's value read from text (booleans: on/off, true/false, yes/no, 1/0)."""
    value = text.strip()
    if kind is bool:
        low = value.lower()
        if low in ("1", "true", "on", "yes"):
            return True
        if low in ("0", "false", "off", "no"):
            return False
        raise RuleError(f"rule option {name!r} takes on/off, not {text!r}")
    if kind is int:
        try:
            return int(value)
        except ValueError:
            raise RuleError(f"rule option {name!r} takes a whole number, not {text!r}") from None
    return value


_FIELD_TYPES: Final[dict[str, Any]] = {
    "deck": Deck, "hold_back_emperor_card": bool, "guard_mode": GuardMode,
    "called_card_high": bool, "abdication": Abdication,
    "forced_call": bool, "forced_call_rule": ForcedCallRule, "steal_solo": bool,
    "steal_solo_requires": StealRequirement,
    "rebellion": bool, "kick": bool, "lead_after_out": LeadAfterOut, "scoring": Scoring,
    "tribute": bool, "kaopai": bool, "hold_sixes": bool, "jokers_with_twos": bool,
    "leave_penalty": int, "leave_ends_game": bool,
}



def option_types(rules: type[RuleSet] = RuleSet) -> tuple[tuple[str, Any], ...]:
    """Each option of ``rules`` in field order and its type (``bool``, ``int`` or an
    ``Enum``): what the learning environments' observation (``env/observation.py``)
    and the server's ``/api/rules`` are made from.

    >>> option_types()[:2]
    (('deck', <enum 'Deck'>), ('hold_back_emperor_card', <class 'bool'>))
    """
    return tuple((f.name, _FIELD_TYPES[f.name]) for f in dataclasses.fields(rules))


PRESETS: Final[dict[str, RuleSet]] = {
    "shandong": RuleSet(),
    "lianzhong_classic": RuleSet(
        deck=Deck.FULL, guard_mode=GuardMode.CALL, abdication=Abdication.TO_PREV,
        steal_solo=True,
        steal_solo_requires=StealRequirement.THREE_JOKERS_AND_FOUR_IDENTICAL,
        rebellion=True, kick=False),
    "lianzhong_simple": RuleSet(
        deck=Deck.NO345, guard_mode=GuardMode.CARD,
        abdication=Abdication.TO_PREV_WITH_TWO, steal_solo=False, rebellion=True,
        kick=False),
    "seed001_216": RuleSet(
        deck=Deck.FULL, guard_mode=GuardMode.CALL,
        abdication=Abdication.CLOCKWISE_WITH_TWO, steal_solo=False, rebellion=False,
        kick=False, lead_after_out=LeadAfterOut.APPLY, scoring=Scoring.PLACEMENT,
        tribute=True),
    "wurenju": RuleSet(
        deck=Deck.FULL, hold_back_emperor_card=False, guard_mode=GuardMode.CALL,
        called_card_high=True, abdication=Abdication.CLOCKWISE_THEN_TWO, forced_call=True,
        steal_solo=False, rebellion=False, kick=False, scoring=Scoring.WURENJU),
}

#: The options that change what may be played (``plays``, ``playphase``): the
#: terminal's play help notes each of them with its value (``terminal/words.py``).
PLAY_OPTIONS: Final[tuple[str, ...]] = ("called_card_high", "kaopai", "hold_sixes",
                                        "jokers_with_twos")

#: One line of help per option: (Chinese, English).
OPTION_HELP: Final[dict[str, tuple[str, str]]] = {
    "deck": ("用牌：全部216张 / 去3、4、5共168张 / 山东165张",
             "cards used: all 216 / without 3-5 (168) / Shandong 165"),
    "hold_back_emperor_card": ("216张时皇牌先留出，发完后随机给一人（联众）；关闭则全部发出",
                               "216 cards: hold the Emperor card back and give it to a "
                               "random seat after the deal (联众); off: deal all 216"),
    "guard_mode": ("定侍卫：固定保（侍卫牌）或叫侍卫（皇帝叫三张同牌）",
                   "guard: holder of the Guard card, or called by the Emperor"),
    "called_card_high": ("特画：叫牌的第四张（小保）当王用，比大王还大（需叫侍卫）",
                         "特画: the fourth copy of the called card (小保) is a joker above "
                         "the big joker (needs guard_mode=call)"),
    "abdication": ("让位方式", "how the Emperor card may be passed on (abdication)"),
    "forced_call": ("逼位：无人当皇帝时，有三张同牌者必须当",
                    "if all decline, a player holding three of a card must take it"),
    "forced_call_rule": ("逼位条件：有且只有3张同牌（不算4张）/ 只有一套三张",
                         "who must take it: some card held exactly three times / "
                         "exactly one such card"),
    "steal_solo": ("允许抢独", "others may claim to play alone (抢独)"),
    "steal_solo_requires": ("抢独条件", "what a 抢独 claimant must hold"),
    "rebellion": ("允许造反", "rebels may rebel (造反) against a hidden royal side"),
    "kick": ("允许踢", "kicks (踢) double the stake"),
    "lead_after_out": ("接风：队友 / 下家 / 申请",
                       "who leads after a player goes out: teammate / next / apply"),
    "scoring": ("计分：山东 / 名次 / 五人局（胜平负）",
                "scoring: shandong table / placement points / 五人局 win-draw-loss"),
    "tribute": ("进贡（连续对局）", "tribute between games of a match"),
    "kaopai": ("烤牌：可多挂王压王挂牌", "kaopai: beat joker plays with extra jokers"),
    "hold_sixes": ("憋6：6必须最后一手出完", "sixes only in the final play"),
    "jokers_with_twos": ("王可以挂2", "jokers may be attached to 2s"),
    "leave_penalty": ("逃跑扣分", "points lost for leaving a game"),
    "leave_ends_game": ("逃跑即结束本局（否则托管打完）",
                        "leaving ends the game (else 托管 plays the seat to the end)"),
}
