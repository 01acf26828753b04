"""Difficulty levels: named bots with labels in Chinese and English and think
times, offered wherever bot names are."""

from __future__ import annotations

import baohuang as bh
from baohuang.bots import LEVELS, BeliefSearchBot, bot_names, is_bot, make_bot
from baohuang.bots.levels import EXPERT_ROLES, EXPERT_THINK, HARD_BOT, EasyBot, label
from baohuang.learn.bot import LearnedBot


def test_the_levels_are_bots_with_labels_in_both_languages() -> None:
    assert [lv.name for lv in LEVELS] == ["easy", "normal", "hard", "expert"]
    assert [lv.zh for lv in LEVELS] == ["简单", "普通", "困难", "大师"]
    assert [lv.en for lv in LEVELS] == ["Easy", "Normal", "Hard", "Expert"]
    for lv in LEVELS:
        assert lv.name in bot_names() and is_bot(lv.name)
        assert lv.about_zh and lv.about_en
        assert label(lv.name, "zh") == lv.zh and label(lv.name, "en") == lv.en
    assert label("heuristic", "zh") == "heuristic"


def test_hard_is_the_learned_bot_and_expert_searches_on_top_of_it() -> None:
    hard, expert = make_bot("hard", seed=1), make_bot("expert", seed=1)
    assert isinstance(hard, LearnedBot) and HARD_BOT == "learned"
    assert isinstance(expert, BeliefSearchBot) and expert.time_limit == EXPERT_THINK <= 1.0
    assert [lv.think for lv in LEVELS] == sorted(lv.think for lv in LEVELS)
    scaled = make_bot("expert-40", seed=1)
    assert isinstance(scaled, BeliefSearchBot) and scaled.time_limit == 0.04
    # the expert plays the hard level's move wherever it does not search (the role
    # phase, and the play of every role but a rebel's) and keeps it unless its
    # playouts find a clearly better one
    assert isinstance(expert, BeliefSearchBot) and expert.play_roles == EXPERT_ROLES == {"rebel"}
    played = 0
    for seed in (2, 3):
        game = bh.Game.new(seed=seed)
        while not game.is_over:
            seat = game.to_act
            assert seat is not None
            view, legal = game.view(seat), game.legal_actions()
            answer = LearnedBot(1).choose(view, legal)
            if view.role != "rebel" or game.stage is not bh.Stage.PLAY:
                assert expert.choose(view, legal) == answer and expert.last_playouts == 0
                played += game.stage is bh.Stage.PLAY and len(legal) > 1
            game.apply(answer)
    assert played > 10


def test_easy_slips_but_plays_legally_and_reproducibly() -> None:
    game = bh.Game.new(seed=6)
    easy, again, normal = EasyBot(3), EasyBot(3), make_bot("normal", seed=3)
    slips = plays = 0
    while not game.is_over:
        seat = game.to_act
        assert seat is not None
        view, legal = game.view(seat), game.legal_actions()
        action = easy.choose(view, legal)
        assert action in legal and again.choose(view, legal) == action
        if game.stage is bh.Stage.PLAY and len(legal) > 1:
            plays += 1
            slips += action != normal.choose(view, legal)
        game.apply(action)
    assert plays > 10 and 0 < slips < plays
