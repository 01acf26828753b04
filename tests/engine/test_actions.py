"""Reading actions: the texts a client or a server reads are kept with their actions,
and a list reads right whether its texts are kept, new, or more than the kept ones
can hold."""

from __future__ import annotations

import pytest

from baohuang.engine import actions
from baohuang.engine.actions import Action, ActionParseError, parse_actions

TEXTS = ["pass", "play 9s 9h", "play BJ", "call 9h", "play 10s 10s 10d", "ask_lead"]


def test_a_list_reads_like_each_text() -> None:
    assert parse_actions(TEXTS) == tuple(Action.parse(t) for t in TEXTS)
    assert [str(a) for a in parse_actions(TEXTS)] == TEXTS


def test_a_list_reads_right_when_the_kept_texts_are_dropped_on_the_way(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(actions, "_PARSED_MAX", 3)
    actions._parsed.clear()
    assert [str(a) for a in parse_actions(TEXTS)] == TEXTS
    assert len(actions._parsed) <= 3
    assert [str(a) for a in parse_actions(TEXTS[::-1])] == TEXTS[::-1]


def test_a_bad_text_in_a_list_is_named() -> None:
    with pytest.raises(ActionParseError, match="unknown action 'jump'"):
        parse_actions(["pass", "jump 9"])
