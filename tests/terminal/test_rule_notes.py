"""A rule option is described once, in the engine (``rules.OPTION_HELP``; the options
that change what may be played: ``rules.PLAY_OPTIONS``): an option added there shows
in the terminal's play help and in what the web client builds its table form from
(``/api/rules``), with no edit to either client."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import baohuang as bh
from baohuang.engine.rules import OPTION_HELP, PLAY_OPTIONS
from baohuang.terminal.text import Lang, Text, plain
from baohuang.terminal.words import help_lines

ADDED_OPTION = textwrap.dedent("""
    import dataclasses
    import baohuang as bh
    from baohuang.engine import rules

    # a rule option that changes what may be played, added to RuleSet
    @dataclasses.dataclass(frozen=True, slots=True)
    class RuleSet(rules.RuleSet):
        bombs: bool = False
    rules._FIELD_TYPES["bombs"] = bool
    rules.RuleSet = bh.RuleSet = RuleSet
    rules.OPTION_HELP["bombs"] = ("炸弹：四张以上同牌可以压任何牌", "bombs beat any play")
    rules.PLAY_OPTIONS += ("bombs",)

    from baohuang.server.transport import api
    from baohuang.terminal.text import Lang, Text, plain
    from baohuang.terminal.words import help_lines

    served = api.rules_json()["options"]["bombs"]
    assert served == {"values": [False, True], "type": "bool", "default": False,
                      "zh": "炸弹：四张以上同牌可以压任何牌", "en": "bombs beat any play"}, served
    view = bh.Game.new(RuleSet(bombs=True), seed=1).view(0)
    for lang in (Lang.ZH, Lang.EN):
        print(plain(help_lines(view, Text(lang, 0))[-1]))
""")


def test_an_option_added_to_the_engine_shows_in_both_clients() -> None:
    done = subprocess.run([sys.executable, "-c", ADDED_OPTION], capture_output=True,
                          text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == ["炸弹：四张以上同牌可以压任何牌：开",
                                        "bombs beat any play (bombs): on"]


def test_the_play_help_notes_each_play_option_with_its_value() -> None:
    rules = bh.RuleSet.preset("wurenju").replace(kaopai=True)
    view = bh.Game.new(rules, seed=2).view(0)
    lines = [plain(line) or "" for line in help_lines(view, Text(Lang.EN, 0))]
    for name in PLAY_OPTIONS:
        state = "on" if getattr(rules, name) else "off"
        assert f"{OPTION_HELP[name][1]} ({name}): {state}" in lines
    zh = [plain(line) or "" for line in help_lines(view, Text(Lang.ZH, 0))]
    assert f"{OPTION_HELP['kaopai'][0]}：开" in zh
    assert f"{OPTION_HELP['jokers_with_twos'][0]}：关" in zh
