// 复盘: the review of one seat's game, drawn on its replay — a progress bar while the
// server computes it, markers on the timeline (inaccuracy / mistake / blunder), the
// seat's expected score through the game as an SVG chart, and at each of the seat's
// decisions the choice made, the best one (drawn on the cards) and the best with every
// hand open.  The review itself: docs/protocol.md §2 `Review`.
import { h } from './dom.js';
import { t } from './i18n.js';
import { get, post } from './api.js';
import { errorText } from './errors.js';
import { indexesFor } from './cards.js';

const POLL_MS = 1000;
const MARKS = ['inaccuracy', 'mistake', 'blunder'];

// Starts the review (POST) and polls it until it is done; `onChange` redraws.
export class ReviewLoader {
  constructor(gameId, seat, onChange) {
    this.gameId = gameId;
    this.seat = seat;
    this.onChange = onChange;
    this.review = null;
    this.progress = null;       // {done, total} while it runs
    this.error = null;
    this.timer = null;
    this.stopped = false;
  }

  path() {
    return `/api/games/${encodeURIComponent(this.gameId)}/review/${this.seat}`;
  }

  async start() {
    try {
      this.update(await post(this.path()));
    } catch (err) {
      this.fail(err);
    }
  }

  async poll() {
    this.timer = null;
    if (this.stopped) return;
    try {
      this.update(await get(this.path()));
    } catch (err) {
      // (in a cluster the poll may reach a node that is not computing it: ask there)
      if (err && err.code === 'not_started') this.start();
      else this.fail(err);
    }
  }

  update(res) {
    if (this.stopped) return;
    if (res.status === 'done') {
      this.review = res.review;
      this.progress = null;
    } else if (res.status === 'failed') {
      this.error = res.message || t('review_failed');
    } else {
      this.progress = { done: res.done || 0, total: res.total || 0 };
      this.timer = setTimeout(() => this.poll(), POLL_MS);
    }
    this.onChange();
  }

  fail(err) {
    if (this.stopped) return;
    this.error = errorText(err);
    this.onChange();
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  // The decision taken at display step `step` (the state before record action `step`).
  decisionAt(step) {
    if (!this.review) return null;
    return this.review.decisions.find((d) => d.index === step) || null;
  }
}

// An action of a review as words: its kind, then its cards.
export function actionWords(action) {
  const kind = t(`review_kind_${action.kind}`);
  return action.cards && action.cards.length ? `${kind} ${action.cards.join(' ')}` : kind;
}

function signed(x) {
  const r = Math.round(x * 10) / 10;
  return r > 0 ? `+${r}` : String(r);
}

// The hand indexes of the best choice's cards at a decision (drawn selected).
export function bestSelection(loader, step, hand) {
  const d = loader && loader.decisionAt(step);
  if (!d || !d.best.action.cards || d.best.action.kind !== 'play' || !hand) return new Set();
  return new Set(indexesFor(hand, d.best.action.cards) || []);
}

// Everything the review adds to the replay, above the table.
export function reviewPanel(loader, step, steps, go) {
  if (loader.error) {
    return h('div', { class: 'review-panel', testid: 'review-panel' },
      h('p', { class: 'message bad', testid: 'review-error', role: 'alert' }, loader.error));
  }
  if (!loader.review) {
    const p = loader.progress || { done: 0, total: 0 };
    return h('div', { class: 'review-panel', testid: 'review-panel' },
      h('div', { class: 'review-progress', testid: 'review-progress' },
        h('progress', { max: Math.max(1, p.total), value: p.done,
          'aria-label': t('review_running_label') }),
        h('span', {}, p.total ? t('review_running', { done: p.done, total: p.total })
          : t('review_starting'))));
  }
  const review = loader.review;
  const d = loader.decisionAt(step);
  return h('div', { class: 'review-panel', testid: 'review-panel' },
    h('div', { class: 'review-head' },
      h('strong', {}, t('review_title', { n: review.seat + 1 })),
      h('span', { class: 'review-summary', testid: 'review-summary' },
        MARKS.map((m) => h('span', { class: `mark-chip ${m}` },
          `${t(`review_mark_${m}`)} ${review.marks[m]}`))),
      review.partial ? h('span', { class: 'muted' }, t('review_partial')) : null),
    markers(review, steps, step, go),
    chart(review, steps, step, go),
    d ? decisionBox(d) : h('p', { class: 'muted review-hint', testid: 'review-hint' },
      t('review_hint')));
}

// Markers on the timeline: one per marked decision, where it falls among the steps.
function markers(review, steps, step, go) {
  const span = Math.max(1, steps - 1);
  return h('div', { class: 'review-marks', testid: 'review-marks', role: 'group',
    'aria-label': t('review_marks_label') },
  review.decisions.filter((d) => d.mark).map((d) => h('button', {
    class: `review-mark ${d.mark} ${d.index === step ? 'current' : ''}`,
    testid: 'review-mark', 'data-mark': d.mark, 'data-index': d.index,
    style: { left: `${(d.index / span) * 100}%` },
    title: `${t(`review_mark_${d.mark}`)}: ${actionWords(d.made.action)}`,
    'aria-label': `${t(`review_mark_${d.mark}`)}: ${actionWords(d.made.action)}`,
    onclick: () => go(d.index),
  })));
}

// The seat's expected score after each decision (solid: the choice made; dashed: the
// best), over the steps of the game, with the current step and the marks.
function chart(review, steps, step, go) {
  const W = 300;
  const H = 90;
  const pad = 6;
  const span = Math.max(1, steps - 1);
  const values = review.series.flatMap((p) => [p.expected, p.best]).concat([0]);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const range = Math.max(1, hi - lo);
  const x = (i) => pad + ((W - 2 * pad) * i) / span;
  const y = (v) => pad + ((H - 2 * pad) * (hi - v)) / range;
  const line = (key) => review.series.map((p) => `${x(p.index).toFixed(1)},${y(p[key]).toFixed(1)}`).join(' ');
  const ns = 'http://www.w3.org/2000/svg';
  const el = (tag, attrs) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    return node;
  };
  const root = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'review-chart', role: 'img',
    preserveAspectRatio: 'none', 'data-testid': 'review-chart' });
  const label = el('title', {});
  label.textContent = t('review_chart_label', {
    from: review.series.length ? signed(review.series[0].expected) : '0',
    to: review.series.length ? signed(review.series[review.series.length - 1].expected) : '0',
    score: review.final_score });
  root.appendChild(label);
  root.appendChild(el('line', { x1: pad, x2: W - pad, y1: y(0), y2: y(0), class: 'zero' }));
  root.appendChild(el('line', { x1: x(step), x2: x(step), y1: 0, y2: H, class: 'now' }));
  if (review.series.length) {
    root.appendChild(el('polyline', { points: line('best'), class: 'best' }));
    root.appendChild(el('polyline', { points: line('expected'), class: 'made',
      'data-testid': 'review-line' }));
  }
  for (const d of review.decisions) {
    // (a line of no length with round ends: a round dot however the chart is stretched)
    const dot = el('line', { x1: x(d.index), x2: x(d.index), y1: y(d.made.expected),
      y2: y(d.made.expected), class: `dot ${d.mark || ''}`, 'data-index': d.index });
    dot.addEventListener('click', () => go(d.index));
    root.appendChild(dot);
  }
  return h('div', { class: 'review-chart-box' }, root,
    h('div', { class: 'review-legend' },
      h('span', { class: 'made' }, t('review_legend_made')),
      h('span', { class: 'best' }, t('review_legend_best'))));
}

// The decision at the current step: the choice made, the best, the loss and mark, and
// the full-information answer, labelled as such.
function decisionBox(d) {
  const same = d.best.action.kind === d.made.action.kind
    && (d.best.action.cards || []).join() === (d.made.action.cards || []).join();
  return h('div', { class: `review-decision ${d.mark || ''}`, testid: 'review-decision',
    'data-mark': d.mark || '' },
  h('p', {}, h('span', { class: 'label' }, t('review_made')), ' ',
    h('b', { testid: 'review-made' }, actionWords(d.made.action)), ' ',
    h('span', { class: 'num' }, t('review_expected', { v: signed(d.made.expected),
      e: Math.round(d.made.error * 10) / 10 })),
    d.mark ? h('span', { class: `mark-chip ${d.mark}`, testid: 'review-mark-label' },
      t(`review_mark_${d.mark}`)) : null),
  same ? h('p', { class: 'pos' }, t('review_was_best'))
    : h('p', {}, h('span', { class: 'label' }, t('review_best')), ' ',
      h('b', { testid: 'review-best' }, actionWords(d.best.action)), ' ',
      h('span', { class: 'num' }, t('review_expected', { v: signed(d.best.expected),
        e: Math.round(d.best.error * 10) / 10 })), ' ',
      h('span', { class: 'neg' }, t('review_loss', { v: Math.round(d.loss * 10) / 10 })),
      d.best.action.kind === 'play' ? h('span', { class: 'muted' }, ` ${t('review_on_cards')}`) : null),
  d.open_best ? h('p', { class: 'review-open', testid: 'review-open' },
    t('review_open_best', { a: actionWords(d.open_best.action) })) : null);
}
