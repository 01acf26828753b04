"""Words of the terminal game: the language switch, seat names, the game's
terms in Chinese and English, and one line of text per game event.

Terms keep the Chinese word a player looks for (皇帝, 侍卫, 造反, 明保 …);
with ``--lang both`` (the default) a term shows both words.

>>> text = Text(Lang.BOTH, me=0)
>>> text.term("emperor"), Text(Lang.EN, me=0).term("emperor")
('皇帝 Emperor', 'Emperor')
>>> from baohuang.engine.events import seen_event
>>> plain(describe_event(seen_event({"type": "play", "seat": 2, "cards": ["SJ", "9", "9"]}),
...                      text))
'Seat 2 出 plays SJ 9 9'
>>> plain(describe_event(Seen(EventKind.PASS, 0), Text(Lang.ZH, me=0)))
'你 过'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, TypeVar

from rich.markup import escape
from rich.text import Text as RichText

from ..engine.cards import Card, Rank, parse_card
from ..engine.events import (
    Call,
    CardShown,
    CardsShown,
    EventKind,
    GuardChoice,
    Lead,
    Out,
    Payload,
    Play,
    RebellionStands,
    Redeal,
    Reveal,
    Seen,
    Solo,
    Tehua,
    Transfer,
)
from ..engine.events import EventKind as K

__all__ = [
    "EVENT_HANDLERS",
    "PLACE_NAMES",
    "TERMS",
    "Lang",
    "Text",
    "card_style",
    "cards_markup",
    "describe_event",
    "grouped_markup",
    "plain",
]


class Lang(StrEnum):
    """Language of the terminal game."""

    BOTH = "both"   # English sentences, terms in Chinese and English
    ZH = "zh"       # 中文
    EN = "en"       # English only


#: (Chinese, English) for every game term the terminal shows.
TERMS: Final[dict[str, tuple[str, str]]] = {
    "emperor": ("皇帝", "Emperor"),
    "guard": ("侍卫", "Guard"),
    "rebel": ("造反", "rebel"),
    "rebels_side": ("平民", "rebel side"),
    "royal_side": ("保皇派", "royal side"),
    "guard_open": ("明保", "open Guard"),
    "guard_hidden": ("暗保", "hidden Guard"),
    "solo_open": ("明独", "open solo"),
    "solo_hidden": ("暗独", "hidden solo"),
    "kick": ("踢", "kick"),
    "steal": ("抢独", "steal solo"),
    "accept": ("当皇帝", "accept"),
    "abdicate": ("让位", "abdicate"),
    "call": ("叫侍卫", "call the Guard"),
    "emperor_card": ("皇牌", "Emperor card"),
    "tehua": ("特画", "TH"),
    "solo_open_call": ("明独保", "open solo"),
    "guard_card": ("侍卫牌", "Guard card"),
    "tribute": ("进贡", "tribute"),
    "play": ("出", "plays"),
    "pass": ("过", "passes"),
    "out": ("走了", "is out"),
    "lead": ("先出", "leads"),
    "ask_lead": ("申请接风", "asks to lead"),
    "accepts": ("当皇帝", "accepts the throne"),
    "abdicates": ("让位", "abdicates"),
    "rebels": ("造反", "rebels"),
    "kicks": ("踢", "kicks"),
    "steals": ("抢独", "claims solo"),
    "stake": ("倍数", "stake"),
    "hand": ("手牌", "hand"),
    "hints": ("提示", "hints"),
    "to_beat": ("要压", "to beat"),
    "redeal": ("重新发牌", "redeal"),
    "forced": ("逼位", "must take the throne"),
    "leave": ("逃跑", "left the game"),
    "next": ("下家", "next"),
    "prev": ("上家", "previous"),
    "score": ("得分", "score"),
    "total": ("总分", "total"),
    "place": ("名次", "place"),
    "cards": ("牌数", "cards"),
    "role": ("身份", "role"),
    "player": ("玩家", "player"),
    "seat": ("座位", "seat"),
    "result": ("结果", "result"),
    "draw": ("平局", "draw"),
}

_FIRST_PERSON: Final = {
    "plays": "play", "passes": "pass", "is out": "are out", "leads": "lead",
"asks to lead": "ask to lead",
    "accepts the throne": "accept the throne", "abdicates": "abdicate",
    "rebels": "rebel", "kicks": "kick", "claims solo": "claim solo",
}

#: Finishing places 1st..5th: 头科, 二科, 三科, 二拉, 大拉 (as in the web client).
PLACE_NAMES: Final[dict[int, tuple[str, str]]] = {
    1: ("头科", "1st"), 2: ("二科", "2nd"), 3: ("三科", "3rd"), 4: ("二拉", "4th"),
    5: ("大拉", "5th"),
}


@dataclass(frozen=True, slots=True)
class Text:
    """Chooses words for one language; ``me`` is the player's seat."""

    lang: Lang
    me: int
    called: Card | None = None      # the called card (叫侍卫): shown with its suit
    emperor: int | None = None      # the Emperor, once public
    tehua: bool = False             # called_card_high: the Guard's copy becomes 特画 TH

    def __call__(self, zh: str, en: str) -> str:
        """A sentence: Chinese for ``zh``, otherwise the English one (whose
        terms come from :meth:`term` and so are bilingual with ``both``)."""
        return zh if self.lang is Lang.ZH else en

    def pair(self, zh: str, en: str) -> str:
        """A term given as its two words."""
        if self.lang is Lang.ZH:
            return zh
        if self.lang is Lang.EN:
            return en
        return f"{zh} {en}"

    def term(self, key: str, seat: int | None = None) -> str:
        """A term of :data:`TERMS`; a verb agrees with ``seat`` (You play,
        Seat 2 plays)."""
        zh, en = TERMS[key]
        if seat is not None and seat == self.me:
            en = _FIRST_PERSON.get(en, en)
        return self.pair(zh, en)

    def place(self, place: int) -> str:
        return self.pair(*PLACE_NAMES[place])

    def seat(self, seat: int | None) -> str:
        """A seat's name in a sentence: 你 / You for the player."""
        if seat is None:
            return self("有人", "Someone")
        if seat == self.me:
            return self("你", "You")
        return self(f"{seat}号", f"Seat {seat}")

    def where(self, seat: int) -> str:
        """Where ``seat`` sits from the player: 下家 (next) / 上家 (previous) / ''."""
        if seat == (self.me + 1) % 5:
            return self.pair("下家", "next")
        if seat == (self.me - 1) % 5:
            return self.pair("上家", "prev")
        return ""

    def cards(self, cards: Iterable[str | Card]) -> str:
        """Cards as markup: ranks only, except marked jokers and the called
        card, which keep their mark or suit."""
        return cards_markup(cards, self.called)


_JOKER_STYLES: Final = {Rank.BIG_JOKER: "bold red", Rank.SMALL_JOKER: "bold magenta",
                        Rank.TEHUA: "bold red on bright_yellow"}


def card_style(card: Card | Rank, marked: bool = False) -> str:
    """The Rich style of a card or rank: jokers red/magenta, the 特画 TH red on
    bright yellow, marked jokers (BJ*, SJ*) reversed gold, 2s cyan, aces green."""
    rank = card if isinstance(card, Rank) else card.rank
    if marked or (isinstance(card, Card) and card.marked):
        return "bold black on yellow"
    if rank in _JOKER_STYLES:
        return _JOKER_STYLES[rank]
    if rank == Rank.TWO:
        return "bold cyan"
    if rank == Rank.ACE:
        return "bold green"
    return "bold"


def cards_markup(tokens: Iterable[str | Card], suits: Card | bool | None = True) -> str:
    """Cards as Rich markup, coloured by :func:`card_style`.  ``suits``:
    show every suit (True), or only on copies of that card (a Card).

    >>> plain(cards_markup(["BJ*", "9h", "9s"], suits=parse_card("9h")))
    'BJ* 9h 9'
    """
    parts = []
    for token in tokens:
        card = token if isinstance(token, Card) else parse_card(str(token))
        label = str(card) if suits is True or card == suits or card.marked else card.rank.symbol
        style = card_style(card)
        if isinstance(suits, Card) and card == suits:
            style += " underline"
        parts.append(f"[{style}]{escape(label)}[/]")
    return " ".join(parts)


def grouped_markup(cards: Iterable[Card]) -> str:
    """Cards grouped by rank, high to low, as ``K×3`` (markup).

    >>> from baohuang import parse_cards
    >>> plain(grouped_markup(parse_cards("9 9 BJ* K K K 9 6")))
    'BJ* K×3 9×3 6'
    """
    groups: dict[str, tuple[Card, int]] = {}
    for card in sorted(cards, reverse=True):
        label = str(card) if card.marked else card.rank.symbol
        first, n = groups.get(label, (card, 0))
        groups[label] = (first, n + 1)
    return " ".join(f"[{card_style(card)}]{escape(label)}{'' if n == 1 else f'×{n}'}[/]"
                    for label, (card, n) in groups.items())


def plain(markup: str | None) -> str | None:
    """``markup`` without its Rich styles (for tests and logs)."""
    return None if markup is None else RichText.from_markup(markup).plain


def describe_event(ev: Seen, text: Text) -> str | None:
    """One line of Rich markup for an event as the player's view shows it (typed:
    :meth:`View.seen`, :func:`~baohuang.engine.events.seen_event`), or ``None`` for
    events that need no line (``deal``, ``over``: the terminal shows them as
    headings and score sheets)."""
    handler = EVENT_HANDLERS.get(ev.kind)
    if handler is None:
        return None
    return handler(ev, text.seat(ev.seat), text)


_P = TypeVar("_P", bound=Payload)


def _data(ev: Seen, cls: type[_P]) -> _P:
    """The event's public payload, of the class its kind has (``PAYLOADS``)."""
    data = ev.data
    if not isinstance(data, cls):
        raise ValueError(f"a {ev.kind} event without its {cls.__name__}: {ev!r}")
    return data


def _play(ev: Seen, who: str, t: Text) -> str:
    return f"{who} {t.term('play', ev.seat)} {t.cards(_data(ev, Play).cards)}"


def _pass(ev: Seen, who: str, t: Text) -> str:
    return f"[dim]{who} {t.term('pass', ev.seat)}[/]"


def _out(ev: Seen, who: str, t: Text) -> str:
    place = _data(ev, Out).place
    return f"[bold green]{who} {t.term('out', ev.seat)} — {t.place(place)}[/]"


def _lead(ev: Seen, who: str, t: Text) -> str:
    reason = _data(ev, Lead).reason
    leads = t.term("lead", ev.seat)
    if reason == "lead_after_out":
        return f"[cyan]{who} {leads} ({t.pair('接风', 'after a player went out')})[/]"
    if reason == "ask_lead":
        return f"[cyan]{who} {leads} ({t.pair('申请接风', 'asked to lead')})[/]"
    return f"[dim]── {t('都过了', 'all passed')}; {who} {leads} ──[/]"


def _candidate(ev: Seen, who: str, t: Text) -> str:
    return t(f"{who}拿到{t.term('emperor_card')} BJ*",
             f"{who} {'hold' if ev.seat == t.me else 'holds'} the "
             f"{t.term('emperor_card')} BJ*")


def _accept(ev: Seen, who: str, t: Text) -> str:
    return f"{who} {t.term('accepts', ev.seat)}"


def _abdicate(ev: Seen, who: str, t: Text) -> str:
    passed = _data(ev, Transfer)
    to = t.seat(passed.to)
    n = passed.count
    mine = ev.mine
    shown = (f": {t.cards(mine.cards)}" if isinstance(mine, CardsShown) and mine.cards
             else t(f"（{n}张）", f" ({n} card{'s' * (n != 1)})"))
    return f"{who} {t.term('abdicates', ev.seat)} → {to}{shown}"


def _emperor(ev: Seen, who: str, t: Text) -> str:
    verb = t("是", "are" if ev.seat == t.me else "is")
    return f"[bold yellow]{who} {verb} {t.term('emperor')}[/]"


def _solo(ev: Seen, who: str, t: Text) -> str:
    stolen = t(" (抢独)", f" ({t.term('steal')})") if _data(ev, Solo).stolen else ""
    return (f"[bold yellow]{who} {t.term('solo_open')}{stolen}: "
            f"{t('一个人打四个', 'alone against four')}[/]")


def _guard(ev: Seen, who: str, t: Text) -> str:
    if _data(ev, GuardChoice).open:
        return (f"[bold yellow]{who} {t.term('guard_open')}: "
                f"{t('是侍卫', 'is the Guard' if ev.seat != t.me else 'are the Guard')} "
                f"({t.term('stake')} ×2)[/]")
    if ev.seat == t.me:
        what = "solo_hidden" if t.emperor == t.me else "guard_hidden"
        return f"{who} {t('选择', 'chose')} {t.term(what)}"
    return t(f"侍卫{t.term('guard_hidden')}（身份不明）",
             f"The {t.term('guard')} stays hidden: {t.term('guard_hidden')}")


def _call(ev: Seen, who: str, t: Text) -> str:
    card = cards_markup([_data(ev, Call).card])
    th = cards_markup(["TH"])
    if isinstance(ev.mine, Tehua):
        # only the Guard's view says it: his copy became the 特画
        return t(f"{who}{t.term('call')}：{card}。[bold]你是侍卫[/]，你的{card}变成了特画 {th}"
                 "（比大王还大）",
                 f"{who} {t.term('call')}: {card}. [bold]You are the {t.term('guard')}[/]: "
                 f"your {card} became the {t.pair('特画', 'tehua')} {th}, a joker above BJ")
    if t.tehua:
        return t(f"{who}{t.term('call')}：{card}（第四张的主人是侍卫，那张变成特画 {th}）",
                 f"{who} {t.term('call')}: {card} — the holder of the fourth {card} is the "
                 f"{t.term('guard')}, and it becomes the {t.pair('特画', 'tehua')} {th}")
    return t(f"{who}{t.term('call')}：{card}（第四张的主人是侍卫）",
             f"{who} {t.term('call')}: {card} — the holder of the fourth {card} is the "
             f"{t.term('guard')}")


def _steal(ev: Seen, who: str, t: Text) -> str:
    return f"[bold yellow]{who} {t.term('steals', ev.seat)}![/]"


EventLine = Callable[[Seen, str, "Text"], str]


def _declined(what: str) -> EventLine:
    def line(ev: Seen, who: str, t: Text) -> str:
        zh, en = TERMS[what]
        return f"[dim]{who}{t(f' 不{zh}', f': no {t.pair(zh, en)}')}[/]"
    return line


def _rebel(ev: Seen, who: str, t: Text) -> str:
    return f"[bold red]{who} {t.term('rebels', ev.seat)}![/]"


def _kick(ev: Seen, who: str, t: Text) -> str:
    return f"[bold red]{who} {t.term('kicks', ev.seat)}![/]"


def _rebellion_stands(ev: Seen, who: str, t: Text) -> str:
    stands = _data(ev, RebellionStands)
    if stands.solo:
        shown = t(f"皇帝{t.term('solo_hidden')}", f"the {t.term('emperor')} plays "
                  f"{t.term('solo_hidden')}")
    else:
        guard = t.seat(stands.guard)
        shown = t(f"侍卫是{guard}", f"the {t.term('guard')} is {guard}")
    return (f"[bold red]{t('造反成功', 'The rebellion stands')} ({t.term('rebel')}): "
            f"{shown}; {t.term('stake')} ×2[/]")


def _kick_stands(ev: Seen, who: str, t: Text) -> str:
    return f"[bold red]{t('踢成立', 'The kick stands')} ({t.term('kick')}): {t.term('stake')} ×2[/]"


def _play_starts(ev: Seen, who: str, t: Text) -> str:
    return f"[bold]── {t('开始出牌', 'Play begins')}: {who} {t.term('lead', ev.seat)} ──[/]"


def _reveal(ev: Seen, who: str, t: Text) -> str:
    if _data(ev, Reveal).solo:
        return f"[bold yellow]{who} {t('亮出', 'revealed')}: {t.term('solo_hidden')}![/]"
    verb = t("是", "are" if ev.seat == t.me else "is")
    return f"[bold yellow]{who} {verb} {t.term('guard')}! ({t('亮出身份', 'revealed')})[/]"


def _ask_lead(ev: Seen, who: str, t: Text) -> str:
    return f"[cyan]{who} {t.term('ask_lead', ev.seat)}[/]"


def _tribute(ev: Seen, who: str, t: Text) -> str:
    to = t.seat(_data(ev, Transfer).to)
    mine = ev.mine
    card = f": {t.cards([mine.card])}" if isinstance(mine, CardShown) else ""
    return f"[magenta]{who} {t.term('tribute')} → {to}{card}[/]"


def _forced(ev: Seen, who: str, t: Text) -> str:
    return f"[bold yellow]{who} {t.term('forced')}[/]"


def _redeal(ev: Seen, who: str, t: Text) -> str:
    return f"[bold]{t.term('redeal')}: {escape(_data(ev, Redeal).reason)}[/]"


def _leave(ev: Seen, who: str, t: Text) -> str:
    return f"[bold red]{who} {t.term('leave')}[/]"


#: The line-maker of every event kind (``deal`` and ``over`` have none: a heading
#: and the score sheet show them).
EVENT_HANDLERS: Final[dict[EventKind, EventLine]] = {
    K.PLAY: _play, K.PASS: _pass, K.OUT: _out, K.LEAD: _lead, K.CANDIDATE: _candidate,
    K.ACCEPT: _accept, K.ABDICATE: _abdicate, K.EMPEROR: _emperor, K.SOLO: _solo,
    K.GUARD: _guard, K.CALL: _call, K.STEAL: _steal,
    K.DECLINE_STEAL: _declined("steal"), K.DECLINE_SOLO: _declined("solo_open"),
    K.REBEL: _rebel, K.NO_REBEL: _declined("rebel"), K.KICK: _kick,
    K.NO_KICK: _declined("kick"), K.REBELLION_STANDS: _rebellion_stands,
    K.KICK_STANDS: _kick_stands, K.PLAY_STARTS: _play_starts, K.REVEAL: _reveal,
    K.ASK_LEAD: _ask_lead, K.TRIBUTE: _tribute, K.FORCED: _forced, K.REDEAL: _redeal,
    K.LEAVE: _leave,
}
