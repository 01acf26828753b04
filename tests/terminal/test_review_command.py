"""``baohuang review``: a record file reviewed in the terminal, in English and Chinese."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

import baohuang as bh
from baohuang.bots import make_bot
from baohuang.cli import app


def bad_record(path: Path) -> Path:
    """Seed 2 played by ``heuristic`` bots, but at action 75 seat 1 passes where one
    play would have won the game (as a server replay: the record under ``record``)."""
    game = bh.Game.new(seed=2)
    bots = [make_bot("heuristic", seed=s) for s in range(5)]
    i = 0
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        legal = game.legal_actions()
        action = bots[seat].choose(game.view(seat), legal)
        if i == 75:
            action = next(a for a in legal if a.kind is bh.ActionKind.PASS)
        game.apply(action)
        i += 1
    path.write_text(json.dumps({"game_id": 1, "record": game.record()}), encoding="utf-8")
    return path


def test_review_shows_the_blunder_in_english_and_chinese(tmp_path: Path) -> None:
    record = bad_record(tmp_path / "game.json")
    runner = CliRunner()
    en = runner.invoke(app, ["review", str(record), "--seat", "1", "--playouts", "120",
                             "--lang", "en"], env={"COLUMNS": "160"})
    assert en.exit_code == 0, en.output
    assert "Review of seat 1" in en.output
    row = next(line for line in en.output.splitlines() if line.startswith("│ 75 "))
    assert "pass" in row and "blunder" in row
    assert "blunder 1" in en.output and "final score -24" in en.output
    zh = runner.invoke(app, ["review", str(record), "--seat", "1", "--playouts", "120",
                             "--lang", "zh"], env={"COLUMNS": "160"})
    assert zh.exit_code == 0, zh.output
    assert "复盘 1号" in zh.output and "大错 1" in zh.output and "明牌最佳" in zh.output


def test_review_refuses_what_is_not_a_finished_game(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(app, ["review", str(tmp_path / "none.json")])
    assert missing.exit_code == 2 and "cannot read" in missing.output
    game = bh.Game.new(seed=2)
    game.apply(game.legal_actions()[0])
    (tmp_path / "open.json").write_text(json.dumps(game.record()), encoding="utf-8")
    unfinished = runner.invoke(app, ["review", str(tmp_path / "open.json"), "--seat", "0"])
    assert unfinished.exit_code == 2 and "not over" in unfinished.output
