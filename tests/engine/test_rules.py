"""Rule options and the four presets (docs/rules.md §4, §5)."""

from __future__ import annotations

import json

import pytest

import baohuang as bh
from baohuang import RuleError, RuleSet

TABLE = {
    # deck, guard, abdication, steal, requires, rebellion, kick, lead, scoring, tribute
    "shandong": ("shandong165", "card", "skip_two_if_solo", True, "nothing", True, True,
                 "teammate", "shandong", False),
    "lianzhong_classic": ("full", "call", "to_prev", True, "three_jokers_and_four_identical",
                          True, False, "teammate", "shandong", False),
    "lianzhong_simple": ("no345", "card", "to_prev_with_two", False, None, True, False,
                         "teammate", "shandong", False),
    "seed001_216": ("full", "call", "clockwise_with_two", False, None, False, False, "apply",
                    "placement", True),
    "wurenju": ("full", "call", "clockwise_then_two", False, None, False, False, "teammate",
                "wurenju", False),
}
#: the options only some presets set: (hold_back_emperor_card, called_card_high, forced_call)
SPECIAL = {"wurenju": (False, True, True)}


@pytest.mark.parametrize("name", list(TABLE))
def test_presets_match_the_table(name: str) -> None:
    r = RuleSet.preset(name)
    deck, guard, abd, steal, requires, rebellion, kick, lead, scoring, tribute = TABLE[name]
    assert (r.deck, r.guard_mode, r.abdication) == (deck, guard, abd)
    assert r.steal_solo is steal
    if steal:
        assert r.steal_solo_requires == requires
    assert (r.rebellion, r.kick) == (rebellion, kick)
    assert r.lead_after_out == lead and r.scoring == scoring and r.tribute is tribute
    assert (r.kaopai, r.hold_sixes, r.jokers_with_twos) == (False, False, False)
    assert (r.hold_back_emperor_card, r.called_card_high, r.forced_call) == SPECIAL.get(
        name, (True, False, False))
    assert r.preset_name() == name


def test_default_is_shandong() -> None:
    assert RuleSet() == RuleSet.preset("shandong")
    assert set(bh.PRESETS) == set(TABLE)


def test_unknown_preset_is_named() -> None:
    with pytest.raises(RuleError, match="'tianjin'"):
        RuleSet.preset("tianjin")


def test_replace_by_option_name_and_string_values() -> None:
    r = RuleSet().replace(kaopai=True, deck="full", lead_after_out="next")
    assert r.kaopai and r.deck is bh.Deck.FULL and r.lead_after_out is bh.LeadAfterOut.NEXT
    assert r.preset_name() is None
    with pytest.raises(RuleError, match="'kaopia'"):
        RuleSet().replace(kaopia=True)
    with pytest.raises(RuleError, match=r"'sword'.*'guard_mode'"):
        RuleSet().replace(guard_mode="sword")
    with pytest.raises(RuleError, match="'kaopai'"):
        RuleSet().replace(kaopai="yes")
    with pytest.raises(RuleError, match="'leave_penalty'"):
        RuleSet().replace(leave_penalty=-1)


def test_with_option_text() -> None:
    r = RuleSet().with_option("hold_sixes=on").with_option("leave-penalty=30")
    assert r.hold_sixes and r.leave_penalty == 30
    assert not RuleSet().with_option("steal_solo=off").steal_solo
    for bad, word in [("hold_sixes", "NAME=VALUE"), ("hold_sixes=maybe", "'hold_sixes'"),
                      ("colour=red", "'colour'"), ("leave_penalty=ten", "'leave_penalty'")]:
        with pytest.raises(RuleError, match=word):
            RuleSet().with_option(bad)


@pytest.mark.parametrize("name", list(TABLE))
def test_rules_round_trip_through_json(name: str) -> None:
    r = RuleSet.preset(name).replace(kaopai=True, hold_sixes=True)
    assert RuleSet.from_dict(json.loads(json.dumps(r.to_dict()))) == r


def test_every_option_has_help() -> None:
    from baohuang.engine.rules import OPTION_HELP
    assert set(OPTION_HELP) == set(RuleSet().to_dict())


def test_options_that_only_make_sense_together_change_together() -> None:
    """From 五人局, card mode without 特画 is one change (one option at a time, the
    first would be refused: 特画 needs call mode)."""
    wurenju = RuleSet.preset("wurenju")
    with pytest.raises(RuleError, match="called_card_high"):
        wurenju.with_option("guard_mode=card")
    changed = wurenju.with_options({"guard_mode": "card", "called_card_high": "off"})
    assert changed.guard_mode is bh.GuardMode.CARD and not changed.called_card_high
    with pytest.raises(RuleError, match="'kaopia'"):
        wurenju.with_options({"kaopia": True})
    with pytest.raises(RuleError, match="takes on/off"):
        wurenju.with_options({"kaopai": "maybe"})

