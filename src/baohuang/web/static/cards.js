// Card notation (docs/rules.md §2), play shapes and the legality check of a selection.
// Legality itself is decided by the server's legal_actions; this module only
// compares a selection with them and explains why a selection is not legal.
import { get } from './api.js';
import { DICTS } from './i18n.js';

// What the engine says once (baohuang/engine/refusals.py), served by /api/rules: each
// deck's count of cards by rank (`decks`) and the texts of a refused selection
// (`refusals`: the keys checkSelection gives, {zh, en} each, put in the i18n tables).
let served = { decks: {}, deck: null };

export function useServedRules(rules) {
  const deck = rules.options && rules.options.deck;
  served = { decks: rules.decks || {}, deck: deck ? deck.default : null };
  for (const [key, texts] of Object.entries(rules.refusals || {})) {
    for (const [lang, text] of Object.entries(texts)) {
      if (DICTS[lang]) DICTS[lang][key] = text;
    }
  }
  return rules;
}

// Resolves once the served rules are read (or could not be: then the 记牌器 is empty).
export const servedRules = get('/api/rules').then(useServedRules, () => null);

export const SJ = 16;
export const BJ = 17;
// 特画 (小保): with called_card_high the Guard's copy of the called card, a joker
// above the big joker that nothing beats.
export const TH = 18;
const RANK_OF = {
  3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 8, 9: 9, 10: 10,
  J: 11, Q: 12, K: 13, A: 14, 2: 15, SJ: 16, BJ: 17, TH: 18,
};
const LABEL = { 11: 'J', 12: 'Q', 13: 'K', 14: 'A', 15: '2', 16: 'SJ', 17: 'BJ', 18: 'TH' };
const SUIT_ORDER = { s: 1, h: 2, d: 3, c: 4 };
export const SUIT_GLYPH = { s: '♠', h: '♥', d: '♦', c: '♣' };

// '10h' -> {text, rank: 10, suit: 'h', marked: false}; 'BJ*' -> {rank: 17, marked: true}
export function parseCard(text) {
  const marked = text.endsWith('*');
  let body = marked ? text.slice(0, -1) : text;
  let suit = null;
  const upper = body.toUpperCase();
  if (upper === 'SJ' || upper === 'BJ' || (upper === 'TH' && !marked)) {
    return { text, rank: RANK_OF[upper], suit: null, marked };
  }
  const last = body.slice(-1).toLowerCase();
  if ('shdc'.includes(last) && body.length > 1) {
    suit = last;
    body = body.slice(0, -1);
  }
  const rank = RANK_OF[body.toUpperCase()];
  if (!rank) throw new Error(`not a card: ${text}`);
  return { text, rank, suit, marked };
}

export function rankLabel(rank) {
  return LABEL[rank] || String(rank);
}

export function isRed(card) {
  return card.suit === 'h' || card.suit === 'd' || card.rank === BJ || card.rank === TH;
}

// Sort key: high rank first; within a rank, plain before marked, then suit.
export function compareDisplay(a, b) {
  return b.rank - a.rank || (b.marked - a.marked) || (SUIT_ORDER[a.suit] || 0) - (SUIT_ORDER[b.suit] || 0);
}

// The shape of a set of cards: {rank, n, sj, bj, th} or {mixed: true}.
export function shapeOf(cards) {
  let rank = 0;
  let n = 0;
  let sj = 0;
  let bj = 0;
  let th = 0;
  for (const c of cards) {
    if (c.rank === SJ) sj += 1;
    else if (c.rank === BJ) bj += 1;
    else if (c.rank === TH) th += 1;
    else if (rank && c.rank !== rank) return { mixed: true };
    else {
      rank = c.rank;
      n += 1;
    }
  }
  return { rank, n, sj, bj, th };
}

export function shapeKey(shape) {
  return `${shape.n ? shape.rank : 0}:${shape.n}:${shape.sj}:${shape.bj}:${shape.th || 0}`;
}

// A legal action as views send it ('play 9 9', 'pass', 'call 9h') -> the object
// an `act` message carries: {kind: 'play', cards: ['9', '9']}, {kind: 'pass'}.
export function parseAction(text) {
  const [kind, ...cards] = text.split(' ');
  return cards.length ? { kind, cards } : { kind };
}

// A view (or the fields of one that changed) as received -> with legal_actions as
// objects, which the rest of the client works with.
export function readView(view) {
  if (!Array.isArray(view.legal_actions)) return view;
  return { ...view, legal_actions: view.legal_actions.map(parseAction) };
}

export function playActions(view) {
  return (view.legal_actions || []).filter((a) => a.kind === 'play');
}

// The plays in the order the hint cycles through them: the server's ``hints`` (indexes
// into legal_actions, made by the engine's hint order, docs/protocol.md Views).
export function hintActions(view) {
  const legal = view.legal_actions || [];
  if (!Array.isArray(view.hints)) return playActions(view);
  return view.hints.map((i) => legal[i]).filter((a) => a && a.kind === 'play');
}

// Is the selection (card strings) a legal play now?  Returns
// {ok: true, cards} or {ok: false, reason, params}: a reason is a key of the engine's
// refusals (engine/refusals.py Refusal, whose `refusal` gives the same for a view).
export function checkSelection(selected, view) {
  const legal = playActions(view);
  if (view.stage !== 'play' || view.to_act !== view.seat || view.seat === null) {
    return { ok: false, reason: 'why_not_turn' };
  }
  if (!selected.length) return { ok: false, reason: 'why_empty' };
  const cards = selected.map(parseCard);
  const shape = shapeOf(cards);
  if (shape.mixed) return { ok: false, reason: 'why_mixed' };
  const keys = new Set(legal.map((a) => shapeKey(shapeOf(a.cards.map(parseCard)))));
  if (keys.has(shapeKey(shape))) return { ok: true, cards: selected };
  const rules = view.rules || {};
  if (shape.rank === 15 && (shape.sj || shape.bj || shape.th) && !rules.jokers_with_twos) {
    return { ok: false, reason: 'why_joker_two' };
  }
  const total = shape.n + shape.sj + shape.bj + shape.th;
  if (rules.hold_sixes && shape.rank === 6 && shape.n && total < view.hand.length) {
    return { ok: false, reason: 'why_six' };
  }
  const last = view.last_play;
  if (last) {
    const need = last.cards.length;
    if (!rules.kaopai && total !== need) return { ok: false, reason: 'why_count', params: { n: need } };
    if (rules.kaopai && total < need) return { ok: false, reason: 'why_count', params: { n: need } };
    return { ok: false, reason: 'why_not_beat' };
  }
  return { ok: false, reason: 'why_illegal' };
}

// Pick hand indexes for the given cards (exact notation first, then same rank),
// never using an index in `taken`.
export function indexesFor(hand, cards, taken = new Set()) {
  const used = new Set(taken);
  const out = [];
  for (const want of cards) {
    let idx = hand.findIndex((c, i) => !used.has(i) && c === want);
    if (idx < 0) {
      const w = parseCard(want);
      idx = hand.findIndex((c, i) => !used.has(i) && parseCard(c).rank === w.rank);
    }
    if (idx < 0) return null;
    used.add(idx);
    out.push(idx);
  }
  return out;
}

// Keyboard: which rank a key selects ('0' and 't' are 10, 's' small joker, 'b' big joker,
// 'x' the 特画).
export function rankForKey(key) {
  const k = key.toLowerCase();
  if (k === '0' || k === 't') return 10;
  if (k >= '3' && k <= '9') return Number(k);
  return { j: 11, q: 12, k: 13, a: 14, 2: 15, s: SJ, b: BJ, x: TH }[k] || null;
}

// The next card of `rank` to add to a selection: plain copies before marked
// ones and before `avoid` (a card whose play would reveal the Guard).
export function nextOfRank(hand, selected, rank, avoid = null) {
  const candidates = [];
  hand.forEach((c, i) => {
    if (selected.has(i)) return;
    const card = parseCard(c);
    if (card.rank !== rank) return;
    const cost = (card.marked ? 2 : 0) + (avoid && c === avoid ? 1 : 0);
    candidates.push([cost, i]);
  });
  candidates.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return candidates.length ? candidates[0][1] : null;
}

// Group hand indexes by rank for display, high to low.
export function groupHand(hand) {
  const items = hand.map((text, index) => ({ index, card: parseCard(text) }));
  items.sort((a, b) => compareDisplay(a.card, b.card));
  const groups = [];
  for (const item of items) {
    const g = groups[groups.length - 1];
    if (g && g.rank === item.card.rank) g.items.push(item);
    else groups.push({ rank: item.card.rank, items: [item] });
  }
  return groups;
}

// How many cards of each rank the table's deck holds (docs/rules.md §2), as the engine
// counts them (/api/rules `decks`): rank -> count.
export function deckCounts(rules) {
  const deck = (rules && rules.deck) || served.deck;
  const counts = {};
  for (const [rank, n] of Object.entries(served.decks[deck] || {})) counts[Number(rank)] = n;
  return counts;
}

// 记牌器: for each rank, how many cards the viewer has not seen yet — the deck less the
// viewer's own hand less every card played (public information only).  Under
// called_card_high one copy of the called card became the 特画 once it was called.
// Returns [{rank, left}], high ranks first.
export function unseenCounts(view) {
  const counts = deckCounts(view.rules);
  const rules = view.rules || {};
  if (rules.called_card_high && view.called) {
    const called = parseCard(view.called).rank;
    if (counts[called]) counts[called] -= 1;
    counts[TH] = 1;
  }
  for (const text of [...(view.hand || []), ...(view.played || [])]) {
    const r = parseCard(text).rank;
    if (counts[r] !== undefined) counts[r] -= 1;
  }
  return Object.keys(counts).map(Number).sort((a, b) => b - a)
    .map((rank) => ({ rank, left: Math.max(0, counts[rank]) }));
}
