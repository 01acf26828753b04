// Drawing a table from a view: five seats, the current round, the hand, the
// controls, the decision dialog and the score sheet.  Used live and in replays.
import { free, h, svg } from './dom.js';
import { getLang, t, tNodes } from './i18n.js';
import { HOE, ROBOT, cardEl, cardName, cardRow, setGuardMode } from './cardview.js';
import {
  BJ, SJ, TH, checkSelection, groupHand, rankLabel, unseenCounts,
} from './cards.js';
import { decisionDialog } from './decisions.js';
import {
  botLevel, isRoleStage, placeOf, relPos, roleBadges, roundActions, seatInfo, seatLabel, tributes,
} from './model.js';
import { readyBlock, scoreSheet } from './scoresheet.js';
import { reportButton, reportable } from './report.js';
import { describeEvent } from './events.js';

const POS = ['bottom', 'right', 'top-right', 'top-left', 'left'];

export function renderTable(ctx) {
  const { view } = ctx;
  setGuardMode((view.rules || {}).guard_mode);
  const me = view.seat;
  const current = roundActions(view);
  const before = previousRound(view);
  // the won trick stays on the table (dimmed) until the next lead
  const keep = view.stage === 'play' && !Object.keys(current).length && before;
  const round = keep ? before.actions : current;
  ctx.staleRound = Boolean(keep);
  ctx.previous = before;
  ctx.freshPlay = freshPlay(view);
  const seats = [1, 2, 3, 4].map((rel) => {
    const seat = ((me ?? 0) + rel) % 5;
    return seatPanel(ctx, seat, round);
  });
  const felt = h('div', { class: `felt ${view.stage === 'over' ? 'over' : ''}` },
    seats,
    h('div', { class: 'center' }, centerArea(ctx, round)));
  const watching = me === null || me === undefined;
  const bottom = h('div', { class: 'bottom' },
    seatPanel(ctx, watching ? 0 : me, round),
    watching ? null : controls(ctx),
    watching ? null : handArea(ctx));
  return h('div', { class: 'table-view' }, hostedBanner(ctx), infoBar(ctx), counterStrip(ctx),
    felt, bottom, ctx.peekOpen && before ? lastRoundPeek(ctx, before) : null);
}

// The seat of a play not drawn before (its cards move in, where motion is on:
// style.css, html[data-motion]), or null.  A redraw of the same play moves nothing.
let drawnPlay = null;
function freshPlay(view) {
  const events = view.events || [];
  let i = events.length - 1;
  while (i >= 0 && events[i].type !== 'play') i -= 1;
  if (i < 0) return null;
  const key = `${view.game ?? ''}:${i}:${events[i].seat}:${(events[i].cards || []).join(' ')}`;
  if (key === drawnPlay) return null;
  drawnPlay = key;
  return events[i].seat;
}

// The round before the current one: each seat's last play or pass in it, the seats in
// the order they acted, and who won it ({actions, order, winner, cards}), or null.
export function previousRound(view) {
  let current = {};
  let order = [];
  let lastPlay = null;
  let prev = null;
  const acted = (seat, what) => {
    current[seat] = what;
    order = order.filter((s) => s !== seat).concat([seat]);
  };
  for (const ev of view.events || []) {
    if (ev.type === 'deal' || ev.type === 'play_starts') {
      current = {};
      order = [];
      lastPlay = null;
      prev = null;
    } else if (ev.type === 'lead') {
      if (Object.keys(current).length) {
        prev = { actions: current, order, winner: lastPlay ? lastPlay.seat : null,
          cards: lastPlay ? lastPlay.cards : [] };
      }
      current = {};
      order = [];
      lastPlay = null;
    } else if (ev.type === 'play' && ev.seat !== undefined) {
      acted(ev.seat, { kind: 'play', cards: ev.cards });
      lastPlay = { seat: ev.seat, cards: ev.cards };
    } else if ((ev.type === 'pass' || ev.type === 'ask_lead') && ev.seat !== undefined) {
      acted(ev.seat, { kind: ev.type });
    }
  }
  return prev;
}

// 上一轮: every seat's play in the round before, in the order they played (the seats
// that did not act in it last), over the table until closed.
function lastRoundPeek(ctx, before) {
  const seats = before.order.concat([0, 1, 2, 3, 4].filter((s) => !before.order.includes(s)));
  const rows = seats.map((seat) => {
    const act = before.actions[seat];
    let what = h('span', { class: 'said' }, '–');
    if (act && act.kind === 'play') what = cardRow(act.cards);
    else if (act && act.kind === 'pass') what = h('span', { class: 'said pass' }, t('said_pass'));
    else if (act && act.kind === 'ask_lead') what = h('span', { class: 'said' }, t('said_ask_lead'));
    return h('li', { class: seat === before.winner ? 'won' : '', 'data-seat': seat },
      free(seatLabel(ctx.table, seat), 'peek-name'), what);
  });
  return h('div', { class: 'overlay', onclick: (e) => {
    if (e.target === e.currentTarget) ctx.on.peek(false);
  } }, h('div', { class: 'dialog peek', testid: 'last-round', role: 'dialog',
    'aria-labelledby': 'peek-title' },
  h('h2', { id: 'peek-title' }, t('last_round_title')),
  h('ol', { class: 'peek-rows' }, rows),
  h('div', { class: 'choices' }, h('button', { class: 'btn', testid: 'close-peek',
    onclick: () => ctx.on.peek(false) }, t('btn_close')))));
}

// 记牌器: each rank's cards not seen yet (deck less own hand less played cards).
function counterStrip(ctx) {
  const { view } = ctx;
  if (!ctx.counterOn || view.seat === null || view.seat === undefined
      || view.stage === 'over' || !(view.hand || []).length) return null;
  return h('div', { class: 'counter', testid: 'card-counter', 'aria-label': t('counter_label') },
    h('span', { class: 'counter-title' }, t('counter_label')),
    unseenCounts(view).map(({ rank, left }) => h('span', {
      class: `cc ${left ? '' : 'gone'}`, testid: 'counter-rank', 'data-rank': rank,
      'data-left': left,
    }, h('span', { class: 'cc-rank' }, rankName(rank)), h('b', {}, String(left)))));
}

function rankName(rank) {
  if (rank === SJ) return t('joker_small_mini');
  if (rank === BJ) return t('joker_big_mini');
  if (rank === TH) return t('joker_tehua_mini');
  return rankLabel(rank);
}

// A seated player on 托管 sees it at once, with one button to take it back (docs/rules.md §10).
function hostedBanner(ctx) {
  const { view } = ctx;
  if (ctx.readonly || view.seat === null || view.seat === undefined || view.stage === 'over') {
    return null;
  }
  const info = seatInfo(ctx.table, view.seat);
  if (!info.hosted) return null;
  const left = (view.left || []).includes(view.seat);
  const key = left ? 'hosted_banner_left' : info.hostedLocked ? 'hosted_banner_locked'
    : 'hosted_banner';
  return h('div', { class: 'hosted-banner', testid: 'hosted-banner', role: 'alert',
    'data-locked': info.hostedLocked ? 'true' : 'false' },
  h('span', { class: 'hosted-text' }, t(key)),
  info.hostedLocked ? null : h('button', { class: 'btn primary take-back', testid: 'take-back',
    onclick: ctx.on.hosted }, t('btn_take_back')),
  info.hostedLocked || !ctx.keyboard ? null : h('span', { class: 'key-help' }, t('hosted_keys')));
}

function eventLog(ctx) {
  const all = ctx.view.events || [];
  const events = all.slice(-40).reverse();
  if (!events.length) return null;
  return h('details', { class: 'log', testid: 'log', open: Boolean(ctx.logOpen),
    ontoggle: (e) => { if (ctx.on.logToggle) ctx.on.logToggle(e.target.open); } },
    h('summary', {}, t('log_title')),
    h('ol', { reversed: true, start: all.length }, events.map((ev) => h('li', {}, describeEvent(ev, ctx.table)))));
}

function infoBar(ctx) {
  const { view } = ctx;
  const items = [];
  items.push(h('span', { class: 'info-item stake', title: t('stake_help') },
    t('stake_label'), h('b', { testid: 'stake' }, `×${view.stake}`)));
  if (view.solo) {
    // (an open solo's doubling is in the stake, as the engine counts it)
    items.push(h('span', { class: 'info-item stake solo', testid: 'solo-factor',
      title: t('solo_factor_help') }, t(`solo_factor_${view.solo}`)));
  }
  if (view.called) {
    items.push(h('span', { class: 'info-item called' }, t('called_label'),
      cardEl(view.called, { mini: true })));
  }
  const trib = tributeGroups(tributes(view));
  if (trib.length) {
    items.push(h('span', { class: 'info-item tribute', testid: 'tribute' }, t('tribute_label'),
      trib.map((g) => h('span', { class: 'trib' },
        free(seatLabel(ctx.table, g.from)), '→', free(seatLabel(ctx.table, g.to)),
        g.cards.length ? cardRow(g.cards) : ` ${t('cards_n', { n: g.count })}`))));
  }
  if (ctx.extraInfo) items.push(...ctx.extraInfo);
  // (the log opens over the table, from the bar: nothing on the table moves)
  items.push(eventLog(ctx));
  return h('div', { class: 'info-bar' }, items);
}

// Tribute events grouped by giver and receiver: [{from, to, cards, count}].
function tributeGroups(events) {
  const groups = [];
  for (const ev of events) {
    let g = groups.find((x) => x.from === ev.seat && x.to === ev.to);
    if (!g) {
      g = { from: ev.seat, to: ev.to, cards: [], count: 0 };
      groups.push(g);
    }
    g.count += ev.count || 1;
    if (ev.card) g.cards.push(ev.card);
  }
  return groups;
}

function seatPanel(ctx, seat, round) {
  const { view, table } = ctx;
  const info = seatInfo(table, seat);
  const me = view.seat;
  const rel = relPos(seat, me);
  const place = placeOf(view, seat);
  const turn = view.to_act === seat && view.stage !== 'over';
  const classes = ['seat', `pos-${POS[rel]}`];
  if (turn) classes.push('turn');
  if (place) classes.push('out');
  if (seat === me) classes.push('me');
  const badges = roleBadges(view, seat).map((b) =>
    h('span', { class: `badge ${b.cls}`, 'data-badge': b.cls }, t(b.key)));
  if (seat === me && view.role === 'rebel' && !badges.some((b) => b.dataset.badge === 'rebel')) {
    badges.push(h('span', { class: 'badge rebel', 'data-badge': 'rebel' }, t('badge_rebel')));
  }
  if ((view.rebels || []).includes(seat)) {
    badges.push(h('span', { class: 'badge hoe', 'data-badge': 'hoe', title: t('hoe_help') },
      svg(HOE), t('badge_hoe')));
  }
  if (info.hosted) {
    badges.push(h('span', { class: 'badge hosted', 'data-badge': 'hosted', testid: 'hosted-mark' },
      t('badge_hosted')));
  }
  const ready = ctx.table && ctx.table.ready;
  if (ready && !info.bot && ready.seats.includes(seat)) {
    badges.push(h('span', { class: 'badge ready', 'data-badge': 'ready', testid: 'ready-mark' },
      t('ready_mark')));
  }
  if (info.bot && info.bot !== 'hosted') {
    badges.push(h('span', { class: 'badge botlevel', 'data-badge': 'level', testid: 'bot-level' },
      botLevel(info.bot)));
  }
  if ((view.left || []).includes(seat)) {
    badges.push(h('span', { class: 'badge left' }, t('badge_left')));
  }
  if (!info.connected && !info.bot) {
    badges.push(h('span', { class: 'badge offline' }, t('badge_offline')));
  }
  if (place) {
    badges.push(h('span', { class: 'badge place', 'data-badge': 'place', 'data-place': place },
      t(`place_${place}`)));
  }
  const count = (view.hand_counts || [])[seat] ?? 0;
  const timer = turn && ctx.timerLeft ? ctx.timerLeft(seat) : null;
  const act = round[seat];
  let action = null;
  if (act && act.kind === 'play') {
    action = cardRow(act.cards, { class: ctx.staleRound ? 'stale'
      : ctx.freshPlay === seat ? 'enter' : '' });
  }
  else if (act && act.kind === 'pass') action = h('span', { class: 'said pass' }, t('said_pass'));
  else if (act && act.kind === 'ask_lead') action = h('span', { class: 'said' }, t('said_ask_lead'));
  const open = ctx.openHands && ctx.openHands[seat];
  if (open && seat !== me) classes.push('shown-hand');
  const bubble = ctx.bubbles && ctx.bubbles[seat];
  const totals = table && table.games > 1 ? table.totals : null;
  const points = totals && typeof totals[seat] === 'number' ? totals[seat] : null;
  return h('div', { class: classes.join(' '), testid: 'seat', 'data-seat': seat,
    'data-count': count },
  h('div', { class: 'seat-head' },
    info.bot ? svg(ROBOT, 'bot-icon') : null,
    free(seatLabel(table, seat), 'seat-name'),
    view.dealer === seat ? h('span', { class: 'dealer', title: t('dealer_help') }, t('dealer_mark')) : null,
    points !== null ? h('span', { class: `seat-points ${points > 0 ? 'pos' : points < 0 ? 'neg' : ''}`,
      testid: 'seat-points', title: t('points_help') }, points > 0 ? `+${points}` : `${points}`)
      : null),
  h('div', { class: 'badges' }, badges),
  h('div', { class: 'seat-stats' },
    h('span', { class: 'count', testid: 'cards-left', title: t('cards_left_help') },
      h('span', { class: 'back' }), String(count)),
    timer !== null ? h('span', { class: `timer ${timer <= 5 ? 'urgent' : ''}`, testid: 'timer' },
      t('seconds', { n: timer })) : null),
  open && seat !== me ? cardRow(open, { class: 'open-hand' })
    : seat !== me && count ? h('div', { class: 'backs', 'aria-hidden': 'true' },
      Array.from({ length: Math.min(count, 16) }, () => h('span', { class: 'b' }))) : null,
  h('div', { class: 'seat-action' }, action),
  bubble ? h('div', { class: `bubble ${bubble.id ? '' : 'chat'}`, testid: 'bubble',
    'data-emote': bubble.id, role: 'status' },
  bubble.id ? t(`emote_${bubble.id}`) : free(bubble.text)) : null);
}

function statusText(ctx) {
  const { view, table } = ctx;
  const name = (s) => free(seatLabel(table, s));
  if (view.stage === 'over') return t('status_over');
  if (view.to_act === null || view.to_act === undefined) {
    return view.stage === 'guard' ? t('status_guard_deciding') : t('status_waiting');
  }
  if (view.to_act === view.seat) {
    if (ctx.answered && isRoleStage(view.stage)) return t('status_answered');
    return isRoleStage(view.stage) ? t('status_you_decide') : t('status_your_turn');
  }
  return tNodes(`status_stage_${view.stage}`, { name: name(view.to_act) });
}

function centerArea(ctx) {
  const { view } = ctx;
  const parts = [];
  const myDecision = !ctx.readonly && view.seat !== null && view.to_act === view.seat
    && isRoleStage(view.stage) && (view.legal_actions || []).length;
  if (view.stage === 'over' && view.result && !ctx.hideScore) {
    parts.push(scoreSheet(ctx));
  } else if (view.stage === 'over' && ctx.table && ctx.table.ready) {
    parts.push(h('div', { class: 'panel' }, readyBlock(ctx)));   // (the sheet closed)
  } else if (myDecision && ctx.answered) {
    parts.push(h('div', { class: 'panel answered', testid: 'answered' }, t('status_answered')));
  } else if (myDecision) {
    parts.push(decisionDialog(view, ctx.on.decide, ctx.keyboard,
      ctx.timerLeft ? ctx.timerLeft(view.seat) : null));
  } else {
    if (view.last_play) {
      parts.push(h('div', { class: 'last-play', testid: 'last-play' },
        h('div', { class: 'last-by' }, free(seatLabel(ctx.table, view.last_play.seat))),
        h('div', { class: `last-cards ${ctx.freshPlay === view.last_play.seat ? 'enter' : ''}` },
          view.last_play.cards.map((c) => cardEl(c)))));
    } else if (ctx.staleRound && ctx.previous && ctx.previous.cards.length) {
      const prev = ctx.previous;
      parts.push(h('div', { class: 'last-play won', testid: 'last-trick' },
        h('div', { class: 'last-by' }, tNodes('trick_won_by', {
          name: free(seatLabel(ctx.table, prev.winner)) })),
        h('div', { class: 'last-cards' }, prev.cards.map((c) => cardEl(c)))));
    } else if (view.stage === 'play' && view.leader !== null && view.leader !== undefined
      && view.leader !== view.seat) {
      parts.push(h('div', { class: 'last-play empty' },
        tNodes('leads_now', { name: free(seatLabel(ctx.table, view.leader)) })));
    }
  }
  parts.push(h('div', { class: 'status', testid: 'status' }, statusText(ctx)));
  return parts;
}

function controls(ctx) {
  const { view } = ctx;
  const legal = view.legal_actions || [];
  const myTurn = !ctx.readonly && view.stage === 'play' && view.to_act === view.seat;
  const canPass = myTurn && legal.some((a) => a.kind === 'pass');
  const canAsk = myTurn && legal.some((a) => a.kind === 'ask_lead');
  const hosted = seatInfo(ctx.table, view.seat).hosted;
  const buttons = [];
  if (!ctx.readonly) {
    buttons.push(
      h('button', { class: 'btn hint', testid: 'hint', disabled: !myTurn, onclick: ctx.on.hint,
        title: t('hint_help') }, t('btn_hint')),
      h('button', { class: 'btn pass', testid: 'pass', disabled: !canPass, onclick: ctx.on.pass,
        title: t('pass_help') }, t('btn_pass')),
      canAsk ? h('button', { class: 'btn ask-lead', testid: 'ask-lead', onclick: ctx.on.askLead },
        t('btn_ask_lead')) : null,
      h('button', { class: 'btn play primary', testid: 'play', disabled: !myTurn,
        onclick: ctx.on.play, title: t('play_help') }, t('btn_play')),
      h('button', { class: `btn hosted-toggle ${hosted ? 'on' : ''}`, testid: 'hosted-toggle',
        'aria-pressed': hosted ? 'true' : 'false', onclick: ctx.on.hosted,
        disabled: view.stage === 'over', title: t('hosted_help') },
      hosted ? t('btn_hosted_off') : t('btn_hosted_on')),
      h('button', { class: `btn emote-open ${ctx.emoteOpen ? 'on' : ''}`, testid: 'emote-open',
        'aria-expanded': ctx.emoteOpen ? 'true' : 'false', onclick: ctx.on.emoteToggle,
        title: t('emote_title') }, t('btn_emote')));
    if (hosted && seatInfo(ctx.table, view.seat).hostedLocked) {
      buttons[buttons.length - 1].disabled = true;
    }
  }
  let message = null;
  if (ctx.message) {
    message = h('div', { class: `message ${ctx.message.cls || ''}`, testid: 'message',
      role: 'status' }, t(ctx.message.key, ctx.message.params));
  } else if (myTurn && ctx.selection.size) {
    const sel = [...ctx.selection].map((i) => view.hand[i]);
    const check = checkSelection(sel, view);
    message = check.ok
      ? h('div', { class: 'message ok', testid: 'message' },
        t('sel_ok', { cards: sel.map(cardName).join(' ') }))
      : h('div', { class: 'message bad', testid: 'message' }, t(check.reason, check.params));
  } else if (myTurn && ctx.keyboard) {
    message = h('div', { class: 'message', testid: 'message' }, t('keys_play'));
  } else if (myTurn) {
    message = h('div', { class: 'message', testid: 'message' }, t('taps_play'));
  }
  // (an empty line when there is nothing to say: the hand below does not move)
  return h('div', { class: 'controls' }, h('div', { class: 'buttons' }, buttons),
    ctx.emoteOpen && !ctx.readonly ? emotePanel(ctx) : null,
    message || h('div', { class: 'message', 'aria-hidden': 'true' }));
}

// The fixed quick phrases and emotes (docs/protocol.md, emote), and the mute switch.
export const EMOTES = ['hello', 'hurry', 'nice', 'thanks', 'sorry', 'well_played', 'again',
  'bye', 'laugh', 'cry', 'angry', 'thumbs_up', 'flower', 'tea'];

function emotePanel(ctx) {
  return h('div', { class: 'emote-panel', testid: 'emote-panel', role: 'group',
    'aria-label': t('emote_title') },
  EMOTES.map((id) => h('button', { class: 'btn small emote', testid: 'emote', 'data-id': id,
    onclick: () => ctx.on.emote(id) }, t(`emote_${id}`))),
  ctx.chatAllowed ? chatForm(ctx) : null,
  h('button', { class: 'btn small mute', testid: 'emote-mute',
    'aria-pressed': ctx.chatMuted ? 'true' : 'false', onclick: ctx.on.muteChat },
  t(ctx.chatMuted ? 'btn_unmute_chat' : 'btn_mute_chat')),
  // 举报 a player at this table
  ctx.table ? reportButton(reportable(ctx.table, ctx.view.seat),
    { place: 'table', table_id: ctx.table.id }, 'btn_report_player') : null);
}

// Free chat, at a private table only (docs/protocol.md, chat): 120 characters.
export const CHAT_MAX = 120;

function chatForm(ctx) {
  const input = h('input', { class: 'chat-input', testid: 'chat-input', maxlength: CHAT_MAX,
    placeholder: t('chat_placeholder'), 'aria-label': t('chat_placeholder'),
    autocomplete: 'off', enterkeyhint: 'send', value: ctx.chatDraft || '',
    oninput: (ev) => ctx.on.chatDraft(ev.target.value) });
  return h('form', { class: 'chat-form', testid: 'chat-form', onsubmit: (ev) => {
    ev.preventDefault();
    // (the line as it is in the form now: a redraw may have put a new one in it)
    const text = ev.currentTarget.querySelector('.chat-input').value.trim();
    if (text) ctx.on.chat(text.slice(0, CHAT_MAX));
  } }, input, h('button', { class: 'btn small', type: 'submit', testid: 'chat-send' },
    t('btn_chat_send')));
}

// The hand last drawn and what it was drawn from: a redraw for a message that leaves
// this seat's hand and selection as they were (most are other seats' moves) keeps the
// element, its cards and its fitting (handfit.js), instead of making 44 cards anew.
// (Its handlers call ctx.on's, which act on the table screen, and read only the card
// indexes the key holds.)
let keptHand = null;

function handArea(ctx) {
  const { view } = ctx;
  const key = JSON.stringify([view.hand, [...ctx.selection], Boolean(ctx.readonly),
    Boolean(ctx.on.swipeStart), getLang()]);
  if (keptHand && keptHand.key === key) return keptHand.el;
  const el = drawHand(ctx);
  keptHand = { key, el };
  return el;
}

function drawHand(ctx) {
  const { view } = ctx;
  const groups = groupHand(view.hand || []);
  const clickable = !ctx.readonly;
  return h('div', { class: `hand ${view.hand.length > 24 ? 'many' : ''}`, testid: 'hand',
    role: 'group', 'aria-label': t('hand_label'),
    onpointerdown: clickable && ctx.on.swipeStart ? ctx.on.swipeStart : undefined },
  groups.map((g) => h('div', { class: 'group', 'data-rank': g.rank },
    clickable ? h('button', { class: 'rank-pick', testid: 'rank-pick', 'data-rank': g.rank,
      'aria-label': t('pick_rank', { rank: rankName(g.rank), n: g.items.length }),
      onclick: () => ctx.on.pickRank(g.items.map((it) => it.index)) },
    h('span', { class: 'rp-rank' }, rankName(g.rank)),
    h('span', { class: 'rp-n', testid: 'rank-count' }, `×${g.items.length}`)) : null,
    h('div', { class: 'group-cards' }, g.items.map(({ index }) => cardEl(view.hand[index], {
      testid: 'card',
      index,
      selected: ctx.selection.has(index),
      onclick: clickable ? () => ctx.on.toggleCard(index) : undefined,
    }))))));
}
