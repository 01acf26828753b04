// One line for a game event (the table's log and the replay): a list of strings and
// name nodes (names are the players' own text and are never translated).
import { has, t, tNodes } from './i18n.js';
import { free } from './dom.js';
import { seatLabel } from './model.js';
import { cardName } from './cardview.js';

export function describeEvent(ev, table) {
  const who = (seat) => (seat === undefined || seat === null
    ? t('someone') : free(seatLabel(table, seat)));
  const p = { name: who(ev.seat) };
  const line = (key, params = p) => tNodes(key, params);
  switch (ev.type) {
    case 'play':
      return line('ev_play', { ...p, cards: (ev.cards || []).map(cardName).join(' ') });
    case 'call': {
      // 特画: only the Guard's view carries `tehua`; the rules tell everyone else
      const high = table && table.rules && table.rules.called_card_high;
      const key = ev.tehua ? 'ev_call_tehua' : high ? 'ev_call_high' : 'ev_call';
      return line(key, { ...p, card: ev.card ? cardName(ev.card) : '' });
    }
    case 'abdicate':
      return line('ev_abdicate', { ...p, to: who(ev.to) });
    case 'tribute':
      return line('ev_tribute', { ...p, to: who(ev.to),
        card: ev.card ? cardName(ev.card) : t('cards_n', { n: ev.count || 1 }) });
    case 'guard':
      if (ev.action === 'solo_hidden') return line('ev_solo_hidden');
      return line(ev.open ? 'ev_guard_open' : 'ev_guard_hidden');
    case 'solo':
      return line(ev.stolen ? 'ev_solo_stolen' : 'ev_solo_open');
    case 'out':
      return line('ev_out', { ...p, place: ev.place ? t(`place_${ev.place}`) : '' });
    case 'lead':
      return line(ev.reason === 'round' ? 'ev_lead' : 'ev_lead_after_out');
    case 'rebellion_stands':
      return line('ev_rebellion_stands', { guard: who(ev.guard) });
    case 'reveal':
      return line(ev.solo ? 'ev_reveal_solo' : 'ev_reveal');
    case 'deal':
      return line('ev_deal', { dealer: who(ev.dealer ?? 0) });
    default:
      return line(has(`ev_${ev.type}`) ? `ev_${ev.type}` : 'ev_other');
  }
}
