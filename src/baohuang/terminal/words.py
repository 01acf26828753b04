"""The words of the terminal game's decisions: the question each role
decision asks, how each choice is named, which words pick it, and the help
of the play prompt.

>>> import baohuang as bh
>>> from baohuang.terminal.text import Lang, Text, plain
>>> game = bh.Game.new(seed=0)
>>> view = game.view(game.to_act)
>>> [plain(choice_label(a, view, Text(Lang.EN, view.seat))) for a in view.legal_actions]
['accept']
"""

from __future__ import annotations

from rich.markup import escape

from ..engine.actions import Action, ActionKind
from ..engine.cards import Rank
from ..engine.events import EventKind
from ..engine.rules import OPTION_HELP, PLAY_OPTIONS
from ..engine.state import Stage
from ..engine.views import View
from .text import TERMS, Text, cards_markup
from .view import PublicMarks, grid

__all__ = ["HELP_KEYS", "abdicate_target", "choice_aliases", "choice_label", "help_lines",
           "question"]

A = ActionKind

#: What can be typed at the play prompt: (keys, English, Chinese).
HELP_KEYS = (
    ("9 9 9", "play cards; suits optional (10h); jokers bj sj, marked BJ* SJ*, 特画 th",
     "出牌"),
    ("9x3", "the same as 9 9 9", "同 9 9 9"),
    ("bj 8 8", "a big joker with two 8s", "王挂牌"),
    ("1 … 5", "play that hint", "按提示出"),
    ("play 2", "a lone card whose rank is also a hint number", "出一张2"),
    ("p, pass", "pass", "过"),
    ("Enter", "what the prompt names: hint 1 (or pass when nothing beats)",
     "提示符里写的：第一个提示（压不过就不要）"),
    ("ask", "ask to lead (when offered)", "申请接风"),
    ("s", "show your hand with suits", "看花色"),
    ("?", "this help", "帮助"),
    ("quit", "leave the program", "退出"),
)


def help_lines(view: View, t: Text) -> list[str]:
    """The help of the play prompt (markup), with the value of each rule option that
    changes what may be played (``rules.PLAY_OPTIONS``, in ``rules.OPTION_HELP``'s words).

    >>> import baohuang as bh
    >>> from baohuang.terminal.text import Lang, Text, plain
    >>> view = bh.Game.new(bh.RuleSet(kaopai=True), seed=0).view(0)
    >>> plain(help_lines(view, Text(Lang.EN, 0))[-3])
    'kaopai: beat joker plays with extra jokers (kaopai): on'
    """
    rows = [[f"  [bold cyan]{escape(keys)}[/]", t(zh, f"{en} [dim]{zh}[/]")]
            for keys, en, zh in HELP_KEYS]
    lines = [grid(rows, "ll"),
             t("[bold]压牌[/]：张数相同，从大到小每一张都比对方大：8888 > 7777，SJ 888 > 7777，"
               "BJ BJ JJJ > SJ SJ 999；带大王的牌没人压得住。",
               "[bold]Beating 压牌[/]: as many cards, and sorted high to low each card "
               "ranks higher: 8888 > 7777, SJ 888 > 7777, BJ BJ JJJ > SJ SJ 999; nothing "
               "beats a play holding a BJ."),
             t("大小：BJ > SJ > 2 > A > K > Q > J > 10 > … > 3。过了以后这一轮还可以再出。",
               "Ranks: BJ > SJ > 2 > A > K > Q > J > 10 > … > 3.  After a pass you may "
               "still play later in the same round.")]
    # the options that change what may be played, each with its value, in the engine's
    # words (rules.OPTION_HELP)
    rules = view.rules
    for name in PLAY_OPTIONS:
        zh, en = OPTION_HELP[name]
        on = bool(rules.get(name))
        lines.append(t(f"{escape(zh)}：{'开' if on else '关'}",
                       f"{escape(en)} [dim]({name})[/]: [bold]{'on' if on else 'off'}[/]"))
    return lines


def choice_label(action: Action, view: View, t: Text) -> str:
    """How a decision is named in a numbered list or a prompt (markup)."""
    kind = action.kind
    if kind is A.PLAY:
        return t.cards(action.cards)
    if kind is A.PASS:
        return t.term("pass", t.me)
    if kind is A.ASK_LEAD:
        return t.term("ask_lead", t.me)
    if kind is A.ABDICATE:
        return f"{t.term('abdicate')} → {t.seat(abdicate_target(view, t.me))}"
    if kind is A.SOLO_OPEN and view.stage is Stage.CALL:
        return (f"{t.term('solo_open_call')} "
                f"({t('不叫侍卫，一个人打四家', 'call no Guard: alone against four')})")
    if kind is A.CALL:
        card = action.cards[0]
        n = view.hand.count(card)
        solo = t("，暗独保", ", hidden solo") if n >= 4 else ""
        held = f"{t('你有', 'you hold')} {n}{solo}"
        return f"{t.pair('叫', 'call')} {cards_markup((card,))} ({held})"
    if kind is A.DECLINE:
        what = {Stage.STEAL: "steal", Stage.EMPEROR_SOLO: "solo_open",
                Stage.REBELLION: "rebel", Stage.KICK: "kick"}.get(view.stage, "steal")
        zh, en = TERMS[what]
        return t(f"不{zh}", f"no {t.pair(zh, en)}")
    labels = {
        A.ACCEPT: t.term("accept"),
        A.STEAL: t.term("steal"),
        A.SOLO_OPEN: f"{t.term('solo_open')} ({t('独保，翻倍', 'alone, stake ×2')})",
        A.SOLO_HIDDEN: t.term("solo_hidden"),
        A.GUARD_OPEN: f"{t.term('guard_open')} ({t.term('stake')} ×2)",
        A.GUARD_HIDDEN: t.term("guard_hidden"),
        A.REBEL: t.term("rebel"),
        A.KICK: f"{t.term('kick')} ({t.term('stake')} ×2)",
    }
    return labels.get(kind, kind.value)


def choice_aliases(action: Action) -> list[str]:
    """Words that pick a decision besides its number.

    >>> choice_aliases(Action(ActionKind.DECLINE))
    ['decline', '不', 'no', 'n']
    """
    names = [action.kind.value]
    zh = {A.ACCEPT: "当皇帝", A.ABDICATE: "让位", A.STEAL: "抢独", A.SOLO_OPEN: "明独",
          A.SOLO_HIDDEN: "暗独", A.GUARD_OPEN: "明保", A.GUARD_HIDDEN: "暗保",
          A.REBEL: "造反", A.KICK: "踢", A.DECLINE: "不"}.get(action.kind)
    if zh:
        names.append(zh)
    if action.kind is A.SOLO_OPEN:
        names.append("明独保")
    if action.kind is A.DECLINE:
        names += ["no", "n"]
    if action.kind in (A.ACCEPT, A.REBEL, A.KICK, A.STEAL):
        names += ["yes", "y"]
    if action.cards:
        names.append(" ".join(str(c) for c in action.cards))
    return names


def abdicate_target(view: View, me: int) -> int:
    """Who receives the Emperor card when ``me`` abdicates (让位)."""
    mode = view.rules.get("abdication")
    if mode == "skip_two_if_solo":
        return (me + 2) % 5
    if mode in ("clockwise_with_two", "clockwise_then_two"):
        return (me + 1) % 5
    return (me - 1) % 5


def _passed_on(view: View) -> int:
    """How often the Emperor card was passed on in this deal."""
    count = 0
    for ev in view.seen():
        if ev.kind is EventKind.DEAL:
            count = 0
        elif ev.kind is EventKind.ABDICATE:
            count += 1
    return count


def question(view: View, t: Text, marks: PublicMarks) -> str:
    """The question a role decision asks, with what the answers mean."""
    stage = view.stage
    if stage is Stage.EMPEROR:
        if view.rules.get("abdication") == "skip_two_if_solo":
            return t("你有皇牌和侍卫牌：当皇帝就要独保；让位则皇牌给下家的下家，你做他的侍卫。",
                     f"You hold the {t.term('emperor_card')} and the {t.term('guard_card')}: "
                     f"as {t.term('emperor')} you play alone; {t.term('abdicate')} gives the "
                     f"{t.term('emperor_card')} to {t.seat(abdicate_target(view, t.me))}, and "
                     "you are his Guard.")
        extra = ""
        if str(view.rules.get("abdication")).endswith("_two") and _passed_on(view):
            extra = t("（让位要加一张2）", " (passing it on adds one 2 from your hand)")
        return t(f"你拿到皇牌，当皇帝吗？{extra}",
                 f"You hold the {t.term('emperor_card')}. Be {t.term('emperor')}?{extra}")
    if stage is Stage.EMPEROR_SOLO:
        return t("你是皇帝。要明独（一个人打四个）吗？",
                 f"You are {t.term('emperor')}. Declare {t.term('solo_open')} "
                 "(alone against four) before anyone may claim it?")
    if stage is Stage.STEAL:
        return t(f"{t.seat(view.emperor)}是皇帝。要抢独吗（你当皇帝，一个人打四个）？",
                 f"{t.seat(view.emperor)} is {t.term('emperor')}. {t.term('steal')}: "
                 f"become {t.term('emperor')} and play alone against four?")
    if stage is Stage.CALL:
        high = view.rules.get("called_card_high")
        return t("叫侍卫：叫一张你有三张的牌，第四张的主人是你的侍卫"
                 + ("，他那张变成特画（比大王大）" if high else "")
                 + "（四张都在你手里就暗独保）；也可以不叫，直接明独保。",
                 f"{t.term('call')}: name a card you hold three of; whoever holds the "
                 "fourth copy is your Guard"
                 + (f" and it becomes the {t.term('tehua')}, a joker above BJ" if high else "")
                 + " (all four: a hidden solo). Or call no Guard: "
                 f"{t.term('solo_open_call')}, alone against four.")
    if stage is Stage.GUARD:
        if view.role == "emperor" and all(a.kind is A.SOLO_HIDDEN for a in view.legal_actions):
            return t("你叫的牌四张都在你手里：暗独保，一个人打四家。",
                     f"You hold all four copies of the called card: {t.term('solo_hidden')}, "
                     "alone against four.")
        if view.role == "emperor":
            return t("你是皇帝也是侍卫：独保。明独还是暗独？",
                     f"You are {t.term('emperor')} and your own {t.term('guard')}: "
                     f"you play alone. {t.term('solo_open')} or {t.term('solo_hidden')}?")
        tehua = ""
        if any(c.rank is Rank.TEHUA for c in view.hand):
            tehua = t("你那张被叫的牌变成了特画 TH（比大王大）。",
                      f"Your copy of the called card became the {t.term('tehua')}, above BJ. ")
        return t(f"{tehua}你是{t.seat(view.emperor)}的侍卫。明保还是暗保？",
                 f"{tehua}You are the {t.term('guard')} of {t.seat(view.emperor)}. "
                 f"{t.term('guard_open')} (show yourself, stake ×2) or "
                 f"{t.term('guard_hidden')}?")
    if stage is Stage.REBELLION:
        return t("造反吗？两人以上造反：侍卫亮出，翻倍；只有一人：只有他的得分加倍。",
                 f"{t.term('rebel')}? If two or more rebel, the {t.term('guard')} is shown "
                 "and the stake doubles; if only one does, only his own score doubles.")
    if stage is Stage.KICK:
        if view.role in ("emperor", "guard") and len(marks.rebels) >= 2:
            return t("造反成功。要踢吗（再翻倍）？",
                     f"The rebellion stands. {t.term('kick')} (double the stake again)?")
        return t("要踢吗？两人以上踢就翻倍。",
                 f"{t.term('kick')}? If two or more rebels kick, the stake doubles.")
    return t("你的选择：", "Your choice:")
