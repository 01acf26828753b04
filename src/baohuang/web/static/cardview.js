// Drawing cards: faces with a corner index, jokers, the two marked cards.
import { h, svg } from './dom.js';
import { t } from './i18n.js';
import { BJ, SJ, SUIT_GLYPH, TH, isRed, parseCard, rankLabel } from './cards.js';

export const CROWN = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M3 18h18l-1.5-10-4.5 4-3-7-3 7-4.5-4z" fill="#e5b53a" stroke="#8a6414" stroke-width="1.2" stroke-linejoin="round"/><circle cx="12" cy="5" r="1.6" fill="#c0392b"/></svg>';
export const SHIELD = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M12 2l8 3v6c0 5-3.5 9-8 11-4.5-2-8-6-8-11V5z" fill="#4a7fd0" stroke="#1d3f73" stroke-width="1.2"/><path d="M12 6v12M8 10h8" stroke="#fff" stroke-width="1.8"/></svg>';
export const HOE = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 20L16 8" stroke="#8a5a2b" stroke-width="2.4" stroke-linecap="round"/><path d="M13 4l7 7-3 1-5-5z" fill="#9aa3ab" stroke="#4b5258" stroke-width="1"/></svg>';
export const ROBOT = '<svg viewBox="0 0 24 24" aria-hidden="true"><rect x="5" y="8" width="14" height="11" rx="3" fill="#cfd8dc" stroke="#37474f" stroke-width="1.3"/><circle cx="9.5" cy="13" r="1.6" fill="#37474f"/><circle cx="14.5" cy="13" r="1.6" fill="#37474f"/><path d="M12 8V4" stroke="#37474f" stroke-width="1.3"/><circle cx="12" cy="3.5" r="1.3" fill="#e53935"/></svg>';

// In `call` mode (叫侍卫: 五人局 and the 联众 presets) the Guard is the holder of the
// called card's fourth copy: the marked small joker is no 侍卫牌 there, and is drawn
// and named as a small joker.  Set from the view's rules before a table is drawn.
let callMode = false;
export function setGuardMode(mode) {
  callMode = mode === 'call';
}

// Whether this card is shown with its mark (the Emperor card; the Guard card, but
// not in call mode).
function markShown(c) {
  return c.marked && !(callMode && c.rank === SJ);
}

export function cardName(text) {
  const c = parseCard(text);
  if (c.rank === BJ) return t(c.marked ? 'card_emperor' : 'card_bj');
  if (c.rank === SJ) return t(markShown(c) ? 'card_guard' : 'card_sj');
  if (c.rank === TH) return t('card_th');
  return `${c.suit ? SUIT_GLYPH[c.suit] : ''}${rankLabel(c.rank)}`;
}

const JOKER_CLASS = { [SJ]: 'small', [BJ]: 'big', [TH]: 'tehua' };

// One card.  opts: {mini, testid, index, selected, onclick}
export function cardEl(text, opts = {}) {
  const c = parseCard(text);
  const joker = c.rank >= SJ;
  const classes = ['card', isRed(c) ? 'red' : 'black'];
  if (opts.mini) classes.push('mini');
  if (joker) classes.push('joker', JOKER_CLASS[c.rank]);
  const marked = markShown(c);
  if (marked) classes.push('marked');
  if (opts.selected) classes.push('selected');
  const attrs = {
    class: classes.join(' '),
    title: cardName(text),
    'data-card': text,
  };
  if (opts.testid) attrs.testid = opts.testid;
  if (opts.index !== undefined) attrs['data-index'] = opts.index;
  if (opts.onclick) {
    attrs.onclick = opts.onclick;
    attrs.role = 'button';
    attrs['aria-pressed'] = opts.selected ? 'true' : 'false';
  }
  let corner;
  let pip;
  if (joker) {
    const label = t(`joker_${JOKER_CLASS[c.rank]}_${opts.mini ? 'mini' : 'face'}`);
    corner = h('span', { class: 'corner joker-corner' }, label);
    if (marked) pip = svg(c.rank === BJ ? CROWN : SHIELD, 'pip mark');
    else if (c.rank === TH) pip = h('span', { class: 'pip star' }, '✦');
    else pip = h('span', { class: 'pip star' }, '★');
  } else {
    corner = h('span', { class: 'corner' },
      h('span', { class: c.rank === 10 ? 'rk ten' : 'rk' }, rankLabel(c.rank)),
      h('span', { class: 'st' }, c.suit ? SUIT_GLYPH[c.suit] : ''));
    pip = h('span', { class: 'pip' }, c.suit ? SUIT_GLYPH[c.suit] : rankLabel(c.rank));
  }
  const el = h('div', attrs, corner, pip);
  if (marked) el.appendChild(svg(c.rank === BJ ? CROWN : SHIELD, 'corner-mark'));
  return el;
}

export function cardRow(cards, opts = {}) {
  return h('div', { class: `card-row ${opts.class || ''}`.trim() },
    cards.map((text) => cardEl(text, { mini: true, ...opts.card })));
}
