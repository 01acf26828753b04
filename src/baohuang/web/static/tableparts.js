// The table screen's parts around the table itself: the header, the waiting room,
// the match's extra information, the last game's score sheet; the keyboard test and
// the chime.
import { free, h } from './dom.js';
import { t } from './i18n.js';
import { previousRound } from './tableview.js';
import { opponentBots, seatInfo, seatLabel } from './model.js';
import { scoreSheet } from './scoresheet.js';
import * as prefs from './prefs.js';
import { momentsOf } from './moments.js';

export function extraInfo(screen) {
  const items = [];
  const dissolved = screen.table && screen.table.status === 'dissolved' && screen.table.dissolved;
  if (dissolved && dissolved.reason === 'closed') {
    // (a moderator closed the table: everyone sees why)
    items.push(h('span', { class: 'info-item bad', testid: 'table-closed', role: 'alert' },
      t('table_closed', { note: dissolved.note || '' })));
  } else if (screen.table && screen.table.status === 'dissolved') {
    items.push(h('span', { class: 'info-item bad', testid: 'match-status' },
      t('match_dissolved_short')));
  } else if (screen.table && screen.table.games > 1) {
    items.push(h('span', { class: 'info-item', testid: 'match-status' }, t('match_game', {
      i: (screen.game ?? 0) + 1, n: screen.table.games })));
  }
  if (screen.table && screen.table.games > 1) {
    items.push(h('span', { class: 'info-item totals', testid: 'totals' }, t('totals_label'),
      (screen.table.totals || []).map((v, s) => h('span', { class: 'tot' },
        free(seatLabel(screen.table, s)), h('b', {}, `${v}`)))));
  }
  const v = screen.view;
  if (v && v.stage === 'play' && previousRound(v)) {
    items.push(h('button', { class: 'btn small', testid: 'peek-last',
      onclick: () => { screen.peekOpen = true; screen.render(); } }, t('btn_last_round')));
  }
  if (screen.lastGameOver) {
    items.push(h('button', { class: 'btn small', testid: 'last-score',
      onclick: () => { screen.showLast = true; screen.render(); } }, t('btn_last_score')));
  }
  if (screen.view && screen.view.stage === 'over' && screen.scoreHidden) {
    items.push(h('button', { class: 'btn small', testid: 'show-score',
      onclick: () => { screen.scoreHidden = false; screen.render(); } }, t('btn_show_score')));
  }
  return items;
}

export function tableHeader(screen) {
  const tbl = screen.table;
  return h('div', { class: 'table-head' },
    h('button', { class: 'btn small', testid: 'leave', onclick: () => screen.leave() },
      t('btn_leave')),
    // (the page's heading: the table and its code)
    h('h1', { class: 'table-code' }, tbl ? [t('table_code'), free(tbl.code, 'code')]
      : t('app_name')),
    tbl ? h('span', { class: 'preset' }, t(tbl.preset ? `preset_${tbl.preset}` : 'preset_custom')) : null,
    tbl && tbl.challenge ? h('a', { class: 'badge challenge', testid: 'challenge-badge',
      href: `#/challenge/${tbl.challenge.day}` },
    t('challenge_badge', { i: tbl.challenge.deal, n: tbl.challenge.deals })) : null,
    screen.you.watcher ? h('span', { class: 'badge watcher' }, t('watching')) : null,
    tbl && tbl.private ? h('span', { class: 'badge', testid: 'private-badge',
      title: t('private_help') }, t('private_badge')) : null,
    h('button', { class: 'btn small sound-toggle', testid: 'sound-toggle',
      'aria-pressed': screen.soundOn() ? 'true' : 'false',
      title: t(screen.soundOn() ? 'sound_off_help' : 'sound_on_help'),
      'aria-label': t(screen.soundOn() ? 'sound_off_help' : 'sound_on_help'),
      onclick: () => screen.toggleSound() }, screen.soundOn() ? '🔊' : '🔇'),
    // an icon like the sound switch (a word would wrap the header on a small phone)
    h('button', { class: 'btn small motion-toggle', testid: 'motion-toggle',
      'aria-pressed': prefs.motionOn() ? 'true' : 'false', title: t('motion_help'),
      'aria-label': t(prefs.motionOn() ? 'btn_motion_on' : 'btn_motion_off'),
      onclick: () => { prefs.toggleMotion(); screen.render(); } },
    prefs.motionOn() ? '✨' : '⏸'),
    // auto-pass: a turn where nothing beats the play passes by itself (on by default)
    h('button', { class: `btn small autopass-toggle ${prefs.autoPassOn() ? 'on' : ''}`,
      testid: 'autopass-toggle', 'aria-pressed': prefs.autoPassOn() ? 'true' : 'false',
      title: t('autopass_help'),
      'aria-label': t(prefs.autoPassOn() ? 'btn_autopass_on' : 'btn_autopass_off'),
      onclick: () => screen.toggleAutoPass() }, t('autopass_short')),
    tbl && tbl.watchers ? h('span', { class: 'watchers' }, t('watchers_n', { n: tbl.watchers }))
      : null);
}

export function waitingRoom(screen) {
  const tbl = screen.table;
  const link = `${location.origin}${location.pathname}#/t/${tbl.code}`;
  const mySeat = screen.you.seat;
  const seats = [0, 1, 2, 3, 4].map((s) => {
    const info = seatInfo(tbl, s);
    const buttons = [];
    if (info.empty && tbl.status === 'open') {
      if (screen.app.user) {
        buttons.push(h('button', { class: 'btn small', testid: 'sit',
          onclick: () => screen.send({ type: 'sit', seat: s }) }, t('btn_sit')));
      }
      buttons.push(h('select', { class: 'bot-pick', 'aria-label': t('bot_pick'),
        onchange: (e) => {
          if (e.target.value) screen.send({ type: 'add_bot', seat: s, bot: e.target.value });
        } }, h('option', { value: '' }, t('btn_add_bot')),
      opponentBots(screen.app.bots).map((b) => h('option', { value: b }, botName(b)))));
    } else if (info.bot && tbl.status === 'open') {
      buttons.push(h('button', { class: 'btn small',
        onclick: () => screen.send({ type: 'remove_bot', seat: s }) }, t('btn_remove_bot')));
    }
    return h('li', { class: `wait-seat ${s === mySeat ? 'me' : ''}`, testid: 'wait-seat',
      'data-seat': s },
    h('span', { class: 'seat-no' }, t('seat_n', { n: s + 1 })),
    info.empty ? h('span', { class: 'empty' }, t('seat_empty'))
      : info.bot ? h('span', {}, `${seatLabel(tbl, s)} · ${botName(info.bot)}`)
        : info.invited ? h('span', { class: 'invited', testid: 'seat-invited' }, free(info.name),
          ` · ${t('seat_invited')}`) : free(info.name),
    buttons);
  });
  const full = [0, 1, 2, 3, 4].every((s) => !seatInfo(tbl, s).empty);
  // 空位由电脑补齐: the host starts with the seats still empty given to bots
  const me = screen.app.user;
  const fills = Boolean(tbl.fill_bots) && !full && me && me.id === tbl.owner;
  return h('div', { class: 'panel waiting' },
    h('h2', {}, t(`table_status_${tbl.status}`)),
    h('p', {}, t('share_link'), ' ', h('input', { class: 'share', readonly: true, value: link,
      testid: 'share-link', onclick: (e) => e.target.select() })),
    h('p', {}, t('table_code'), free(tbl.code, 'code big')),
    h('ul', { class: 'wait-seats' }, seats),
    mySeat !== null && mySeat !== undefined && tbl.status === 'open'
      ? h('button', { class: 'btn', onclick: () => screen.send({ type: 'stand' }) }, t('btn_stand'))
      : null,
    ((!tbl.autostart && full) || fills) && tbl.status === 'open'
      ? h('button', { class: 'btn primary', testid: 'start',
        onclick: () => screen.send({ type: 'start' }) },
      t(fills ? 'btn_start_fill' : 'btn_start')) : null,
    fills && tbl.status === 'open' ? h('p', { class: 'opt-help' }, t('fill_bots_help')) : null,
    screen.message ? h('div', { class: 'message bad' }, t(screen.message.key)) : null);
}

// Is there a fine pointer (a mouse, so most likely a keyboard too)?  Keyboard help
// is shown only then.
export function hasKeyboard() {
  return !window.matchMedia || window.matchMedia('(pointer: fine)').matches;
}

// A short two-note chime (going on 托管); silent where audio is not allowed yet.
let audio = null;
export function chime(freqs = [660, 440]) {
  if (!prefs.soundOn()) return;
  window.baohuangChimes = (window.baohuangChimes || 0) + 1;
  try {
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    audio = audio || new Ctx();
    if (audio.state === 'suspended') audio.resume().catch(() => {});
    freqs.forEach((f, i) => {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      const start = audio.currentTime + i * 0.14;
      osc.frequency.value = f;
      gain.gain.setValueAtTime(0.08, start);
      gain.gain.exponentialRampToValueAtTime(0.001, start + 0.13);
      osc.connect(gain).connect(audio.destination);
      osc.start(start);
      osc.stop(start + 0.14);
    });
  } catch { /* no sound then */ }
}

function botName(name) {
  const key = `bot_${name}`;
  const text = t(key);
  return text === key ? name : text;
}

export function renderLastScore(screen) {
  const last = screen.lastGameOver;
  const view = { ...(last.view || {}), result: last.result, stage: 'over' };
  return scoreSheet({
    view, table: screen.table, gameOver: last, past: true,
    on: { closeScore: () => { screen.showLast = false; screen.render(); } },
  });
}

// Short sounds for an update's events: a play, a big moment (moments.js), going out or
// the game's end (the most notable of them), and our turn coming (not while 托管 plays for us); switched off
// with the 🔊 button (remembered in this browser).
export function eventSound(screen, events, wasMine) {
  const v = screen.view;
  if (!v || v.seat === null || v.seat === undefined) return;
  const kinds = new Set(events.map((ev) => ev.type));
  if (kinds.has('over')) chime([523, 659, 784]);
  else if (kinds.has('out')) chime([784, 988]);
  else if (momentsOf(events, screen.table, v.seat).length) chime([587, 784, 1175]);
  else if (kinds.has('play')) chime([330]);
  if (!wasMine && v.to_act === v.seat && v.stage !== 'over'
      && (v.legal_actions || []).length && !screen.myHosted()) {
    chime([880]);
  }
}
