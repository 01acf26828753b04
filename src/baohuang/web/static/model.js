// Reading the server's table info and a seat's view (Game.view(seat).to_dict()).
import { t } from './i18n.js';

// Seat info from the table message, tolerant of a missing table.
export function seatInfo(table, seat) {
  const seats = (table && table.seats) || [];
  const raw = seats.find((s) => s && s.seat === seat) || seats[seat] || {};
  return {
    seat,
    name: raw.name || null,
    bot: raw.bot || null,
    hosted: Boolean(raw.hosted),
    hostedLocked: Boolean(raw.locked),
    hostedCount: raw.hosted_count || 0,
    connected: raw.connected !== false,
    invited: Boolean(raw.invited),
    empty: !raw.name && !raw.bot,
    userId: raw.user_id ?? raw.user ?? null,
  };
}

// The bots offered as opponents: the difficulty levels the server offers (/api/rules
// `bot_levels`, from baohuang.bots.levels), weakest first, as names or as the served
// objects; the pass-only 托管 policy (bot "hosted") plays for absent people and is
// never offered.
export const DEFAULT_BOT = 'normal';

export function opponentBots(levels) {
  return (levels || []).map((level) => (typeof level === 'string' ? level : level.name))
    .filter((name) => name !== 'hosted');
}

export function botLevel(name) {
  const key = `bot_${name}`;
  const text = t(key);
  return text === key ? name : text;
}

export function seatLabel(table, seat) {
  const info = seatInfo(table, seat);
  if (info.bot) return t('bot_name', { n: seat + 1 });
  if (info.name) return info.name;
  return t('seat_n', { n: seat + 1 });
}

// Where a seat sits on screen relative to the viewer: 0 bottom, 1 right,
// 2 top-right, 3 top-left, 4 left (play passes seat -> seat+1, counter-clockwise).
export function relPos(seat, me) {
  return (seat - (me ?? 0) + 5) % 5;
}

// The current round (一轮): each seat's latest play or pass since the last lead.
export function roundActions(view) {
  const round = {};
  for (const ev of view.events || []) {
    if (ev.type === 'lead' || ev.type === 'play_starts' || ev.type === 'deal') {
      for (const k of Object.keys(round)) delete round[k];
    } else if (ev.type === 'play' && ev.seat !== undefined) {
      round[ev.seat] = { kind: 'play', cards: ev.cards };
    } else if ((ev.type === 'pass' || ev.type === 'ask_lead') && ev.seat !== undefined) {
      round[ev.seat] = { kind: ev.type };
    }
  }
  return round;
}

// 1-based finishing place of a seat, or null.
export function placeOf(view, seat) {
  if (view.result && view.result.places && view.result.places[seat]) {
    return view.result.places[seat];
  }
  const i = (view.out || []).indexOf(seat);
  return i >= 0 ? i + 1 : null;
}

// Public (or own) role badges of a seat: list of {key, cls}.
export function roleBadges(view, seat) {
  const out = [];
  const result = view.stage === 'over' ? view.result : null;
  const emperor = result && result.emperor !== null && result.emperor !== undefined
    ? result.emperor : view.emperor;
  const guard = result && result.guard !== null && result.guard !== undefined
    ? result.guard : view.guard;
  const solo = result ? result.solo : view.solo;
  if (view.stage === 'emperor' && view.candidate === seat) {
    out.push({ key: 'badge_candidate', cls: 'candidate' });
  }
  if (emperor === seat) {
    out.push({ key: 'badge_emperor', cls: 'emperor' });
    if (solo === 'open') out.push({ key: 'badge_solo_open', cls: 'solo' });
    if (solo === 'hidden') out.push({ key: 'badge_solo_hidden', cls: 'solo' });
  } else if (guard === seat) {
    const hidden = !view.guard_open && !isGuardPublic(view) && view.stage !== 'over';
    out.push({ key: hidden ? 'badge_guard_hidden' : 'badge_guard', cls: 'guard' });
  } else if (emperor !== null && emperor !== undefined && (guard !== null && guard !== undefined)
             && view.stage !== 'emperor') {
    out.push({ key: 'badge_rebel', cls: 'rebel' });
  }
  return out;
}

// Has the Guard become public (明保, a standing 造反, or playing the Guard card)?
export function isGuardPublic(view) {
  for (const ev of view.events || []) {
    if (ev.type === 'reveal' || ev.type === 'rebellion_stands') return true;
    if (ev.type === 'guard' && ev.open) return true;
    if (ev.type === 'solo' && ev.open) return true;
  }
  return false;
}

export function isRoleStage(stage) {
  return ['emperor', 'emperor_solo', 'steal', 'call', 'guard', 'rebellion', 'kick'].includes(stage);
}

// Tribute (进贡) given at the start of this game.
export function tributes(view) {
  return (view.events || []).filter((ev) => ev.type === 'tribute');
}
