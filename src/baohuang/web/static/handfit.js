// Fitting a hand to the width it has: the cards overlap (each shows a strip of
// --card-step px, as in every card app) so that the whole hand is on screen in one row,
// or in two (then three) rows of whole ranks when one row would show too little of each
// card.  The step is computed from the hand's own width, so a phone in portrait or
// landscape and a desktop all show every card without scrolling.

// (the least of a card that must show: its corner's rank and suit, 11 px on a phone)
const MIN_SHOWN = 0.27;

function px(style, name, fallback) {
  const value = parseFloat(style.getPropertyValue(name));
  return Number.isFinite(value) ? value : fallback;
}

// Every way to cut the groups (ranks) into `rows` rows in order, never splitting a
// rank (a hand has at most 16 ranks: at most 105 ways for three rows).
function cuts(n, rows, from = 0) {
  if (rows === 1) return [[Array.from({ length: n - from }, (_, i) => from + i)]];
  const out = [];
  for (let end = from + 1; end <= n - rows + 1; end += 1) {
    const first = Array.from({ length: end - from }, (_, i) => from + i);
    for (const rest of cuts(n, rows - 1, end)) out.push([first, ...rest]);
  }
  return out;
}

// The step that fits every row of `rows` (lists of group indexes) into `width`.
function stepFor(rows, counts, width, cardW, gap) {
  let step = Infinity;
  for (const row of rows) {
    const cards = row.reduce((n, g) => n + counts[g], 0);
    if (cards <= 1) continue;
    step = Math.min(step, (width - cardW - (row.length - 1) * gap) / (cards - 1));
  }
  return step;
}

export function fitHand(hand) {
  // (a hand drawn before and kept, at the width it was fitted to, is fitted already)
  const fitted = `${hand.clientWidth}`;
  if (hand.dataset.fitted === fitted) return;
  for (const br of hand.querySelectorAll('.hand-break')) br.remove();
  const groups = [...hand.querySelectorAll(':scope > .group')];
  const card = hand.querySelector('.card');
  if (!groups.length || !card) return;
  hand.style.removeProperty('--card-step');
  const style = getComputedStyle(hand);
  const cardW = card.offsetWidth || px(style, '--card-w', 58);
  const comfortable = px(style, '--card-step', cardW / 2);
  const gap = px(style, '--group-gap', 8);
  // (the hand's padding on the left holds the first rank's negative margin: what is
  // left for the cards is its width less 8 px, its right padding and one group gap)
  const width = hand.clientWidth - px(style, 'padding-right', 8) - 8 - gap - 1;
  const counts = groups.map((g) => g.querySelectorAll('.card').length);
  let rows = [groups.map((_, i) => i)];
  let step = stepFor(rows, counts, width, cardW, gap);
  for (let n = 2; n <= 3 && step < cardW * MIN_SHOWN; n += 1) {
    if (groups.length < n) break;
    let best = null;
    let bestStep = -Infinity;
    for (const more of cuts(groups.length, n)) {
      const moreStep = stepFor(more, counts, width, cardW, gap);
      if (moreStep > bestStep) {
        best = more;
        bestStep = moreStep;
      }
    }
    if (bestStep <= step) break;
    rows = best;
    step = bestStep;
  }
  step = Math.max(4, Math.floor(Math.min(step, comfortable) * 10) / 10);
  hand.style.setProperty('--card-step', `${step}px`);
  hand.dataset.rows = String(rows.length);
  for (const row of rows.slice(1)) {
    const br = document.createElement('div');
    br.className = 'hand-break';
    br.setAttribute('aria-hidden', 'true');
    hand.insertBefore(br, groups[row[0]]);
  }
  fitLabels(hand, step);
  hand.dataset.fitted = fitted;
}

// Every rank label whole: a card's corner (rank and suit, or a joker's name) shrinks to
// the strip of the card that shows, and a rank button too narrow for "K×3" drops the
// count (its accessible name keeps it), then shrinks.
function fitLabels(hand, step) {
  hand.style.removeProperty('--corner-scale');
  // (what a corner needs: from its card's left edge to the right of its ink, as drawn)
  let need = 0;
  const range = document.createRange();
  for (const corner of hand.querySelectorAll('.card .corner')) {
    range.selectNodeContents(corner);
    need = Math.max(need, range.getBoundingClientRect().right
      - corner.parentElement.getBoundingClientRect().left);
  }
  if (need > step - 0.5) {
    const scale = Math.max(0.5, Math.floor(((step - 1) / need) * 100) / 100);
    hand.style.setProperty('--corner-scale', String(scale));
  }
  // (all the buttons read, then all written, twice: one layout each time, not one a button)
  const picks = [...hand.querySelectorAll('.rank-pick')];
  for (const pick of picks) pick.classList.remove('narrow', 'narrower');
  for (const cls of ['narrow', 'narrower']) {
    const over = picks.filter((pick) => pick.scrollWidth > pick.clientWidth + 0.5);
    for (const pick of over) pick.classList.add(cls);
  }
}

export function fitHands(root) {
  if (!root) return;
  for (const hand of root.querySelectorAll('.hand')) fitHand(hand);
}
