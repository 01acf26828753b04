"""``baohuang rules`` reads at 80 columns: every option, its zh and en help and its
value in each preset, no line wider than the terminal."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from typer.testing import CliRunner

import baohuang as bh
from baohuang.cli import app
from baohuang.engine.rules import OPTION_HELP


@pytest.mark.parametrize("columns", [80, 120])
def test_rules_fit_the_terminal(columns: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    result = CliRunner().invoke(app, ["rules"])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert max(cell_len(line.rstrip()) for line in lines) <= columns
    text = " ".join(line.strip() for line in lines)
    for option, (zh, _en) in OPTION_HELP.items():
        assert option in lines and zh.replace(" ", "") in text.replace(" ", "")
    for i, preset in enumerate(bh.PRESETS, 1):
        assert f"{i} {preset}" in text
    assert "5 clockwise_then_two" in text and "5 wurenju" in text
