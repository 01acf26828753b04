// The table's keyboard: number keys answer a decision (Enter its cautious answer), rank
// keys pick cards, Enter plays, Space passes, Esc clears, H hints, T takes 托管 back;
// Enter and Space on a focused button are that button's.
import { nextOfRank, parseCard, rankForKey } from './cards.js';
import { isRoleStage } from './model.js';

export function keydown(screen, ev) {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const target = ev.target;
  if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA'
    || target.tagName === 'SELECT')) return;
  const tag = target && target.tagName;
  if ((ev.key === 'Enter' || ev.key === ' ' || ev.key === 'Spacebar')
      && (tag === 'BUTTON' || tag === 'A' || tag === 'SUMMARY')) {
    // Enter / Space on a focused button or link does what it says and nothing else
    // (Space on a rank's button picks that rank, it does not pass the turn)
    return;
  }
  const v = screen.view;
  if (!v || v.seat === null || v.seat === undefined) return;
  if ((ev.key === 't' || ev.key === 'T') && v.stage !== 'over' && screen.myHosted()) {
    ev.preventDefault();
    screen.hosted();
    return;
  }
  if (isRoleStage(v.stage) && v.to_act === v.seat) {
    if (ev.key === 'Enter' && tag !== 'BUTTON') {
      // Enter anywhere but on a button takes the cautious answer (the focused one)
      const safe = screen.root.querySelector('[data-testid="decision"][data-cautious]');
      if (safe) {
        ev.preventDefault();
        safe.click();
      }
    } else if (/^[1-9]$/.test(ev.key)) {
      const btn = screen.root.querySelector(`[data-testid="decision"][data-key="${ev.key}"]`);
      if (btn) {
        ev.preventDefault();
        btn.click();
      }
    }
    return;
  }
  if (v.stage !== 'play') return;
  if (ev.key === 'Enter') {
    ev.preventDefault();
    screen.play();
  } else if (ev.key === ' ' || ev.key === 'Spacebar') {
    ev.preventDefault();
    screen.pass();
  } else if (ev.key === 'Escape' || ev.key === 'Backspace') {
    ev.preventDefault();
    screen.selection.clear();
    screen.render();
  } else if (ev.key === 'h' || ev.key === 'H' || ev.key === '?') {
    ev.preventDefault();
    screen.hint();
  } else {
    const rank = rankForKey(ev.key);
    if (rank === null) return;
    ev.preventDefault();
    const avoid = v.role === 'guard' ? v.called : null;
    const idx = nextOfRank(v.hand, screen.selection, rank, avoid);
    if (idx !== null) screen.selection.add(idx);
    else {
      // every card of that rank is selected already: typing it again clears them
      for (const i of [...screen.selection]) {
        if (parseCard(v.hand[i]).rank === rank) screen.selection.delete(i);
      }
    }
    screen.message = null;
    screen.render();
  }
}
