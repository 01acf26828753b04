// Big moments (大场面): the Guard shown (明保, or his card played), a solo (明独, and a
// hidden solo, 暗独, when it comes out), a standing rebellion (造反), the 特画 played, a
// player going out (头科, 二科 …) and the game's result, each said large over the trick
// for a moment (MOMENT_MS), with motion where motion is on (style.css, html[data-motion])
// and a sound where sound is on (tableparts.js, eventSound).
//
// A moment is made from this seat's own events only, those the server sent it: the
// Guard's 暗保 carries no seat for the others, so no one learns who he is from here
// before the public event (明保, the reveal, 造反成功) that tells everyone.  The lines
// are the table log's (events.js); the screen reader hears them from announce.js, so the
// overlay itself is hidden from it (aria-hidden) and said once only.
//
// The overlay lies outside the table screen, which is drawn anew at every update (an
// element drawn anew would start its motion again), fixed over the trick area: it takes
// no room, catches no pointer, and nothing on the table moves when it comes or goes.
import { h } from './dom.js';
import { onLangChange, t } from './i18n.js';
import { describeEvent } from './events.js';
import { outcomeKey, outcomeOf } from './scoresheet.js';

const MOMENT_MS = 1600;     // how long a moment stays (its motion fades it before)
const TEHUA = 'TH';         // the 特画's card text

// This update's moments, in order: [{kind, title, line}] (title: a short headline, line:
// the event's log line, as events.js says it).
export function momentsOf(events, table, seat) {
  const out = [];
  const add = (kind, title, ev) => out.push({ kind, title, line: describeEvent(ev, table) });
  for (const ev of events) {
    switch (ev.type) {
      case 'guard':
        // (明保 only: 暗保 is the same to everyone, and shows no one)
        if (ev.open) add('guard', t('moment_guard_open'), ev);
        break;
      case 'reveal':
        add(ev.solo ? 'solo' : 'guard', t(ev.solo ? 'moment_solo_hidden' : 'moment_guard'), ev);
        break;
      case 'solo':
        add('solo', t('moment_solo_open'), ev);
        break;
      case 'rebellion_stands':
        add('rebellion', t('moment_rebellion'), ev);
        break;
      case 'play':
        if ((ev.cards || []).includes(TEHUA)) {
          add('tehua', t('moment_tehua'), ev);
        }
        break;
      case 'out':
        if (ev.place) add('out', t(`place_${ev.place}`), ev);
        break;
      case 'over':
        out.push({ kind: 'over', title: t(outcomeKey(ev)), line: overLine(ev, seat) });
        break;
      default:
        break;
    }
  }
  return out;
}

// The result's second line: this seat's own outcome, or "本局结束" for a watcher.
function overLine(result, seat) {
  if (seat === null || seat === undefined) return [t('ev_over')];
  return [t(`moment_${outcomeOf(result, seat)}`)];
}

let shown = null;       // {el, timer}

// Show an update's moments over the trick area of `root` (the table screen's).
export function showMoments(root, events, table, seat) {
  const moments = momentsOf(events, table, seat);
  if (!moments.length) return;
  clearMoments();
  const el = h('div', { class: 'moment', testid: 'moment', 'aria-hidden': 'true',
    'data-kind': moments[moments.length - 1].kind },
  moments.map((m) => h('div', { class: `moment-item moment-${m.kind}`, testid: 'moment-item',
    'data-kind': m.kind },
  h('strong', { class: 'moment-title' }, m.title),
  h('span', { class: 'moment-line' }, m.line))));
  document.body.appendChild(el);
  place(root, el);
  shown = { el, timer: setTimeout(clearMoments, MOMENT_MS) };
}

// Keep the moment over the trick area once the table has been drawn anew.
export function placeMoments(root) {
  if (shown) place(root, shown.el);
}

export function clearMoments() {
  if (!shown) return;
  clearTimeout(shown.timer);
  shown.el.remove();
  shown = null;
}
// (a moment is said in the language it came in: none stays when the language changes)
onLangChange(clearMoments);

// What a moment must leave uncovered: the score sheet's and a decision's buttons, the
// 准备 block, the play buttons and the turn line ("轮到你出牌"), a dialog's title with
// its stake (当前倍数 ×2) and timer, the score sheet's head (its title, who won, the
// stake and how the points came about, the match's line), the 记牌器, the 托管
// banner and the buttons of the table's head and information bar (离开, the switches,
// 查看结算, the log) ...
const KEEP_CLEAR = ['.score-sheet .choices', '.ready-block', '.decision-dialog .choices',
  '.controls .buttons', '[data-testid=status]', '.hosted-banner',
  '.decision-dialog h2', '.score-sheet h2', '.score-sheet .outcome', '.score-sheet .score-story',
  '.score-sheet .match-line', '.score-sheet .note', '.counter',
  '.table-head button', '.info-bar button', '.info-bar summary'];
// ... and, where the window has room for that too, the rest of what is read: a dialog's
// text, the scores, every seat's name, roles and count and its hand shown after the
// game, the stake chip's bar.
const KEEP_READABLE = ['.decision-dialog', '.score-sheet table', '.seat-head', '.seat-stats',
  '.seat .badges', '.seat .open-hand', '.info-bar'];
const MARGIN = 6;       // px around the moment (its pop-in grows it by 8 %)

// Over the trick area when that covers nothing of KEEP_CLEAR and KEEP_READABLE, else at
// the nearest place that does (first up and down, then sideways too), inside the
// window; where no place does, the nearest that leaves KEEP_CLEAR alone.
function place(root, el) {
  const center = root && root.querySelector('.felt .center');
  const box = (center || root || document.body).getBoundingClientRect();
  const w = el.offsetWidth * 1.08 + 2 * MARGIN;
  const hgt = el.offsetHeight * 1.08 + 2 * MARGIN;
  const must = shownRects(root, KEEP_CLEAR);
  const x = box.left + box.width / 2;
  const y = box.top + box.height / 2;
  const spot = clearSpot(x, y, w, hgt, must.concat(shownRects(root, KEEP_READABLE)),
    window.innerWidth, window.innerHeight, true)
    || clearSpot(x, y, w, hgt, must, window.innerWidth, window.innerHeight);
  el.style.left = `${spot.x}px`;
  el.style.top = `${spot.y}px`;
}

// The rectangles of the elements of `selectors` inside `root`, as far as they are shown:
// each cut to the boxes that scroll or clip it up to the first fixed one (the score
// sheet's rows below its fold are not on screen), those left empty dropped, and those
// under something else (the turn line under a phone's score sheet) too.
function shownRects(root, selectors) {
  if (!root) return [];
  return selectors.flatMap((sel) => [...root.querySelectorAll(sel)]).filter(onTop).map((e) => {
    const b = e.getBoundingClientRect();
    let r = { left: b.left, top: b.top, right: b.right, bottom: b.bottom };
    let up = e;
    while (getComputedStyle(up).position !== 'fixed' && up.parentElement
           && up.parentElement !== document.body) {
      up = up.parentElement;
      if (getComputedStyle(up).overflow === 'visible') continue;
      const c = up.getBoundingClientRect();
      r = { left: Math.max(r.left, c.left), top: Math.max(r.top, c.top),
        right: Math.min(r.right, c.right), bottom: Math.min(r.bottom, c.bottom) };
    }
    return r;
  }).filter((r) => r.right > r.left && r.bottom > r.top);
}

// Is some of `el` on top where it is (its centre or a point near a corner)?  (The moment
// itself catches no pointer, so it is not in the way of this.)
function onTop(el) {
  const r = el.getBoundingClientRect();
  if (!r.width || !r.height) return false;
  const dx = Math.min(4, r.width / 4);
  const dy = Math.min(4, r.height / 4);
  return [[r.left + r.width / 2, r.top + r.height / 2], [r.left + dx, r.top + dy],
    [r.right - dx, r.top + dy], [r.left + dx, r.bottom - dy], [r.right - dx, r.bottom - dy]]
    .some(([x, y]) => {
      const hit = document.elementFromPoint(x, y);
      return hit !== null && (hit === el || el.contains(hit));
    });
}

// The centre nearest (x, y) of a w×h box inside the window that meets none of `keep`
// (x, y itself when no place is clear, or null if `strict`).
export function clearSpot(x, y, w, hgt, keep, width, height, strict = false) {
  const clear = (cx, cy) => {
    const left = cx - w / 2;
    const top = cy - hgt / 2;
    if (left < 0 || top < 0 || left + w > width || top + hgt > height) return false;
    return keep.every((r) => left >= r.right || left + w <= r.left
      || top >= r.bottom || top + hgt <= r.top);
  };
  if (clear(x, y)) return { x, y };
  const step = 8;
  let best = null;
  for (let cy = hgt / 2; cy <= height - hgt / 2; cy += step) {
    for (let cx = w / 2; cx <= width - w / 2; cx += step) {
      const d = (cx - x) ** 2 * 4 + (cy - y) ** 2;    // (moving sideways costs more)
      if ((!best || d < best.d) && clear(cx, cy)) best = { x: cx, y: cy, d };
    }
  }
  if (best) return { x: best.x, y: best.y };
  return strict ? null : { x, y };
}
