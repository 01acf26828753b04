// What happens at the table, said to screen readers: every game event's line (plays and
// passes, the Guard's reveal, 明独, 造反, who goes out, the game's end) and "轮到你出牌" when
// the turn comes, through a polite live region (index.html's #announce).  The region lies
// outside the screens, which are drawn anew at every update: a region drawn anew would
// not be heard.  Each line is a new element, so that the same words twice are said twice.
import { onLangChange, t } from './i18n.js';
import { describeEvent } from './events.js';
import { isRoleStage } from './model.js';

const KEEP = 6;   // lines kept in the region (older ones have been said)

// Empty the region (its lines have been said): on leaving a screen, and when the language
// changes (no line stays in the other one).
export function clearAnnouncements() {
  const region = document.getElementById('announce');
  if (region) region.replaceChildren();
}
onLangChange(clearAnnouncements);

// Say one line through the live region: a string, or a list of strings and nodes (the
// players' names, kept as the nodes they are drawn as: their own text, never translated).
export function announce(parts) {
  const region = document.getElementById('announce');
  const list = (Array.isArray(parts) ? parts : [parts]).filter((part) => part !== '');
  if (!region || !list.length) return;
  const line = document.createElement('p');
  line.append(...list);
  region.appendChild(line);
  while (region.childElementCount > KEEP) region.firstElementChild.remove();
}

// Say an update's events, and the turn when it has just come to this seat (`wasMine`:
// whether it was this seat's turn before the update).
export function announceEvents(screen, events, wasMine) {
  for (const ev of events) announce(describeEvent(ev, screen.table));
  const v = screen.view;
  if (!v || v.seat === null || v.seat === undefined) return;
  if (!wasMine && v.to_act === v.seat && v.stage !== 'over' && (v.legal_actions || []).length) {
    announce(t(isRoleStage(v.stage) ? 'status_you_decide' : 'status_your_turn'));
  }
}
