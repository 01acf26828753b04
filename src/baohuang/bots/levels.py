"""Difficulty levels offered to players: 简单 / 普通 / 困难 / 大师.

Each level is a registered bot (its name is what a table's seat, the lobby's
choice and ``baohuang tournament --bots`` take) with a label in Chinese and
English and a think time per move:

========  ======  ======  =========================================================
name      zh      en      play
========  ======  ======  =========================================================
easy      简单    Easy    ``heuristic``, but a third of its plays is a legal play
                          at random (:data:`EASY_SLIP`)
normal    普通    Normal  ``heuristic`` (rules of thumb, Guard inference)
hard      困难    Hard    ``learned``: the network trained by self-play
                          (``baohuang.learn``), which keeps the heuristic's choice
                          unless its values say clearly that another is better
expert    大师    Expert  ``learned``, with its play as a rebel searched
                          (``belief`` search anchored on ``learned``,
                          :data:`EXPERT_THINK` s a move)
========  ======  ======  =========================================================

Measured in duplicate play (``bench/bots.md``, ``bench/learned.md``): normal
beats easy by about +1.1 points a game and hard beats normal by about +0.3 (+0.27
over 2,000 deals, +0.35 over the ladder's 200).
The expert level is the hard level until it plays as a rebel; then it searches
the hidden hands drawn from :class:`~baohuang.bots.belief.Belief` and plays the
hard level's move unless its playouts find a clearly better one.  Searching
only there beat the hard level by 0.48 points a seat (95% interval 0.07 to
0.88) over 260 challenger-format deals (``bench/belief.md``), where searching
every role's play had not shown a gain: as Emperor and Guard the playouts' weak
rebels make the search overrate bold play.  In duplicate play against
``heuristic`` it scored 0.40 a game less than the hard level over 30 deals
(interval -0.81 to +0.01, ``bench/belief.md``): its searching copies defend well
against their own copy's solo, which carries the other bot's lone rebel.  The
expert level thinks for a fixed time measured by its own clock (never the
engine's), so its games are not reproducible move for move; ``expert-N`` is the
same bot with ``N`` milliseconds a move (the ladder of ``bench/levels.py`` runs
it scaled down on a busy machine).

>>> from baohuang.bots import make_bot
>>> [level.name for level in LEVELS]
['easy', 'normal', 'hard', 'expert']
>>> label("expert", "zh"), label("expert", "en")
('大师', 'Expert')
>>> make_bot("expert-50", seed=2)
<BeliefSearchBot seed=2 time_limit=0.05 play_roles=rebel>
>>> make_bot("hard", seed=2).name
'learned'
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from ..engine.actions import Action, ActionKind
from ..engine.state import Stage
from ..engine.views import View
from .base import Bot, is_bot, make_bot, register, register_budget
from .heuristic import HeuristicBot
from .search.belief_search import BeliefSearchBot

__all__ = ["EASY_SLIP", "EXPERT_ROLES", "EXPERT_THINK", "HARD_BOT", "LEVELS", "EasyBot",
           "Level", "label", "level_bot", "offered_levels", "think_time"]

#: Share of the easy level's plays made at random.
EASY_SLIP: Final = 1 / 3
#: The bot the hard level is, and the expert level's anchor (the entry point ``learned``
#: of ``baohuang.learn``, looked up by name: bots do not import it).
HARD_BOT: Final = "learned"
#: Think time of the expert level, seconds a move (its p99 stays under 1 s).
EXPERT_THINK: Final = 0.8
#: The roles whose play the expert level searches (in the others it is the hard level).
EXPERT_ROLES: Final = frozenset({"rebel"})


@dataclass(frozen=True, slots=True)
class Level:
    """One difficulty level: the bot's name, its labels and think time."""

    name: str
    zh: str
    en: str
    think: float        # seconds a move (0: no search)
    about_zh: str
    about_en: str

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "zh": self.zh, "en": self.en, "think": self.think,
                "about_zh": self.about_zh, "about_en": self.about_en}


LEVELS: Final = (
    Level("easy", "简单", "Easy", 0.0, "按常规出牌，但常有随手之着",
          "plays by rules of thumb, with frequent careless plays"),
    Level("normal", "普通", "Normal", 0.0, "按常规出牌，会猜保",
          "plays by rules of thumb and guesses the Guard"),
    Level("hard", "困难", "Hard", 0.0, "自我对弈训练的神经网络，在常规打法上择优而改",
          "a neural network trained by self-play, improving on the rules of thumb"),
    Level("expert", "大师", "Expert", EXPERT_THINK,
          f"困难级之上，做反贼时推断各家手牌并搜索，每步约 {EXPERT_THINK:g} 秒",
          f"the hard level; as a rebel it infers the hidden hands and searches, about "
          f"{EXPERT_THINK:g} s a move"),
)


def offered_levels() -> tuple[Level, ...]:
    """The bots a player chooses from, weakest level first: :data:`LEVELS`; those above
    ``normal`` only where the learned bot is installed (it is a dependency-light part
    of the package, registered by its entry point)."""
    return LEVELS if is_bot(HARD_BOT) else LEVELS[:2]


def think_time(bot: Bot | None) -> float:
    """How long ``bot`` may think a move, seconds: a search bot's ``time_limit``, 0 for
    a bot without one (it answers in about a millisecond).  The expert level thinks
    this long only as a rebel; a server shows its answer after as long in every role
    (``baohuang.server.table.turns``), so that nobody can time its role.

    >>> from baohuang.bots import make_bot
    >>> think_time(make_bot("expert", 1)), think_time(make_bot("normal", 1))
    (0.8, 0.0)
    """
    limit = getattr(bot, "time_limit", None)
    return float(limit) if isinstance(limit, int | float) else 0.0


def label(name: str, lang: str = "en") -> str:
    """A level's label in ``lang`` (``zh`` or ``en``); other names as they are."""
    for level in LEVELS:
        if level.name == name:
            return level.zh if lang == "zh" else level.en
    return name


@register("easy")
class EasyBot:
    """``heuristic`` with slips: in the play phase, with probability
    ``slip``, a legal play at random instead (never a pass when it could
    go out, never in the role phase)."""

    name = "easy"

    def __init__(self, seed: int = 0, *, slip: float = EASY_SLIP) -> None:
        self.seed = seed
        self.slip = slip
        self._rng = random.Random(f"easy/{seed}")
        self._heuristic = HeuristicBot(seed)

    def choose(self, view: View, legal: Sequence[Action]) -> Action:
        answer = self._heuristic.choose(view, legal)
        if view.stage is not Stage.PLAY or len(legal) == 1:
            return answer
        if answer.kind is ActionKind.PLAY and len(answer.cards) == len(view.hand):
            return answer                       # going out
        if self._rng.random() < self.slip:
            return legal[self._rng.randrange(len(legal))]
        return answer


@register("normal")
def normal(seed: int) -> Bot:
    return HeuristicBot(seed)


def level_bot(seed: int, think: float) -> BeliefSearchBot:
    """The belief search anchored on the hard level, thinking ``think`` seconds a move
    in the play of the roles :data:`EXPERT_ROLES`."""
    return BeliefSearchBot(seed, time_limit=think, anchor=HARD_BOT, play_roles=EXPERT_ROLES)


@register("hard")
def hard(seed: int) -> Bot:
    return make_bot(HARD_BOT, seed)


@register("expert")
def expert(seed: int) -> Bot:
    return level_bot(seed, EXPERT_THINK)


@register_budget("expert")
def expert_ms(seed: int, ms: int) -> Bot:
    """``expert-N``: the expert level thinking ``N`` ms a move."""
    return level_bot(seed, ms / 1000)
