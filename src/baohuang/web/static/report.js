// 举报: a player reports another to the moderators (docs/protocol.md §2, Moderation),
// from the table, the score sheet or the history. The button opens a small form: the
// player (when there is a choice), a reason (500 characters at most), send.
import { clear, free, h } from './dom.js';
import { t } from './i18n.js';
import { post } from './api.js';
import { errorText } from './errors.js';

export const MAX_REASON = 500;

// A report button for `players` ([{id, name}], the people one may report here).
// `where`: {place: 'table'|'scoresheet'|'history', table_id?, game_id?}.
export function reportButton(players, where, label = 'btn_report') {
  if (!players.length) return null;
  return h('button', { class: 'btn small report', type: 'button', testid: 'report-open',
    title: t('report_help'), onclick: (ev) => {
      ev.stopPropagation();
      openReport(players, where);
    } }, t(label));
}

// The form, over the page; it closes itself when sent or cancelled.
export function openReport(players, where) {
  document.querySelector('[data-testid="report-dialog"]')?.remove();
  const reason = h('textarea', { class: 'report-reason', testid: 'report-reason',
    maxlength: MAX_REASON, rows: 3, required: true, placeholder: t('report_reason') });
  const pick = h('select', { testid: 'report-player', 'aria-label': t('report_player') },
    players.map((p) => h('option', { value: String(p.id) }, p.name)));
  const message = h('p', { class: 'message', testid: 'report-message', role: 'status' });
  const close = () => box.remove();
  const send = h('button', { class: 'btn primary', type: 'submit', testid: 'report-send' },
    t('btn_report_send'));
  const form = h('form', { class: 'report-form', onsubmit: async (ev) => {
    ev.preventDefault();
    send.disabled = true;
    try {
      await post('/api/reports', { ...where, user_id: Number(pick.value),
        reason: reason.value });
      clear(form);
      form.appendChild(h('p', { class: 'message ok', testid: 'report-done', role: 'status' },
        t('report_sent')));
      form.appendChild(h('div', { class: 'choices' }, h('button', { class: 'btn', type: 'button',
        testid: 'report-close', onclick: close }, t('btn_close'))));
    } catch (err) {
      send.disabled = false;
      message.className = 'message bad';
      message.textContent = errorText(err);
    }
  } },
  players.length > 1 ? h('label', {}, t('report_player'), ' ', pick)
    : h('p', { class: 'report-who' }, t('report_who'), ' ', free(players[0].name, 'strong')),
  h('label', { class: 'report-label' }, t('report_reason'), reason),
  message,
  h('div', { class: 'choices' }, send,
    h('button', { class: 'btn', type: 'button', testid: 'report-cancel', onclick: close },
      t('btn_cancel'))));
  if (players.length === 1) {
    pick.hidden = true;
    form.appendChild(pick);
  }
  const box = h('div', { class: 'report-overlay', testid: 'report-dialog' },
    h('div', { class: 'dialog report', role: 'dialog', 'aria-labelledby': 'report-title' },
      h('h2', { id: 'report-title' }, t('report_title')),
      h('p', { class: 'dialog-text' }, t('report_lead')), form));
  document.body.appendChild(box);
  reason.focus();
}

// The people of a TableState one may report: seated, not a bot, not at `mySeat`.
export function reportable(table, mySeat) {
  return ((table && table.seats) || []).filter((s, i) => s && !s.bot && s.user_id !== null
    && s.user_id !== undefined && i !== mySeat).map((s) => ({ id: s.user_id, name: s.name }));
}
