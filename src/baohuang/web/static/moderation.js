// The moderators' page (管理, #/mod): the open reports with their game's replay, a
// player's state and the actions on him (mute, suspend, ban, unban, a new password;
// roles for an admin), closing a table, a club's chat (亲友圈: read it, remove a line),
// and the audit log — who did what, when, why.
// Every action asks for a reason; the server refuses anyone without the role (403).
import { clear, free, h } from './dom.js';
import { getLang, t, tNodes } from './i18n.js';
import { get, post } from './api.js';
import { errorText } from './errors.js';
import { MAX_REASON } from './report.js';

function when(stamp) {
  return stamp ? new Date(stamp * 1000).toLocaleString(getLang() === 'en' ? 'en-GB' : 'zh-CN')
    : '–';
}

export class ModerationScreen {
  constructor(app) {
    this.app = app;
    this.reports = null;
    this.audit = null;
    this.user = null;           // the player being looked at (GET /api/mod/users/{id})
    this.error = null;
    this.notice = null;         // what the last action did (a new password, say)
    this.status = 'open';
    // what the moderator has typed: kept across the page's redraws
    this.reasonText = '';
    this.minutes = '60';
    this.tableKey = '';
    this.clubId = '';
    this.clubChat = null;       // a club's chat (GET /api/mod/clubs/{id}/chat)
  }

  async mount(root) {
    this.root = root;
    this.render();
    await this.load();
  }

  unmount() {}

  async load() {
    try {
      const [reports, audit] = await Promise.all([
        get(`/api/mod/reports?status=${this.status}`), get('/api/mod/audit?limit=50')]);
      this.reports = reports.reports;
      this.audit = audit.entries;
      this.error = null;
    } catch (err) {
      this.error = errorText(err);
    }
    this.render();
  }

  async lookUp(id) {
    try {
      this.user = await get(`/api/mod/users/${encodeURIComponent(id)}`);
      this.error = null;
    } catch (err) {
      this.user = null;
      this.error = errorText(err);
    }
    this.render();
  }

  async readClubChat(id) {
    try {
      this.clubId = String(id);
      this.clubChat = await get(`/api/mod/clubs/${encodeURIComponent(id)}/chat`);
      this.error = null;
    } catch (err) {
      this.clubChat = null;
      this.error = errorText(err);
    }
    this.render();
  }

  async act(path, body, done) {
    try {
      const answer = await post(path, body);
      this.error = null;
      this.notice = done(answer);
      this.reasonText = '';
      if (this.user) await this.lookUp(this.user.id);
      if (this.clubChat) await this.readClubChat(this.clubChat.club.id);
      await this.load();
    } catch (err) {
      this.notice = null;
      this.error = errorText(err);
      this.render();
    }
  }

  render() {
    if (!this.root) return;
    clear(this.root);
    const role = this.app.user && this.app.user.role;
    this.root.appendChild(h('section', { class: 'panel moderation', testid: 'moderation' },
      h('h1', {}, t('mod_title')),
      h('p', { class: 'muted' }, t('mod_lead', { role: role ? t(`role_name_${role}`) : '–' })),
      this.error ? h('p', { class: 'message bad', role: 'alert', testid: 'mod-error' }, this.error)
        : null,
      this.notice ? h('p', { class: 'message ok', role: 'status', testid: 'mod-notice' },
        this.notice) : null,
      this.reportsPart(), this.userPart(), this.tablePart(), this.clubPart(), this.auditPart(),
      h('a', { class: 'btn', href: '#/' }, t('btn_lobby'))));
  }

  reportsPart() {
    const tabs = ['open', 'closed', 'all'].map((s) => h('button', {
      class: `btn small ${s === this.status ? 'on' : ''}`, type: 'button', testid: `mod-status-${s}`,
      'aria-pressed': s === this.status ? 'true' : 'false',
      onclick: () => { this.status = s; this.load(); } }, t(`mod_status_${s}`)));
    const rows = (this.reports || []).map((r) => h('li', { class: 'mod-report', testid: 'mod-report',
      'data-report': r.id },
    h('div', {}, h('strong', {}, `#${r.id} `), when(r.created), ' · ', t(`report_place_${r.place}`)),
    h('div', {}, tNodes('mod_report_line', { reporter: free(r.reporter_name),
      reported: free(r.reported_name, 'strong') })),
    h('blockquote', { class: 'free', testid: 'mod-report-reason' }, r.reason),
    r.place === 'club' ? h('p', { testid: 'mod-report-club-line' }, t('mod_reported_line'), ' ',
      r.line ? free(r.line.text, 'chat-text') : h('span', { class: 'muted' }, t('mod_line_gone'))) : null,
    h('div', { class: 'row' },
      r.club_id ? h('button', { class: 'btn small', type: 'button', testid: 'mod-report-club',
        onclick: () => this.readClubChat(r.club_id) }, t('mod_read_club_chat')) : null,
      r.replay ? h('a', { class: 'btn small', href: r.replay, testid: 'mod-replay' },
        t('btn_replay')) : r.club_id ? null : h('span', { class: 'muted' }, t('mod_no_game')),
      h('button', { class: 'btn small', type: 'button', testid: 'mod-look',
        onclick: () => this.lookUp(r.reported) }, t('mod_look_at')),
      r.status === 'open' ? h('button', { class: 'btn small', type: 'button', testid: 'mod-close-report',
        onclick: () => {
          const reason = this.reason();
          if (reason) this.act(`/api/mod/reports/${r.id}/close`, { reason }, () => t('mod_done'));
        } }, t('mod_close_report')) : h('span', { class: 'muted' }, t('mod_status_closed')))));
    return h('section', { class: 'mod-part', testid: 'mod-reports' },
      h('h2', {}, t('mod_reports')), h('div', { class: 'row' }, tabs),
      this.reports === null ? h('p', {}, t('loading'))
        : rows.length ? h('ul', { class: 'mod-list' }, rows)
          : h('p', { class: 'muted', testid: 'mod-no-reports' }, t('mod_no_reports')));
  }

  // The reason field every action reads (and checks: 1–500 characters).
  reason() {
    const text = this.reasonText.trim();
    if (!text) {
      this.error = t('mod_reason_needed');
      this.render();
      return null;
    }
    return text;
  }

  userPart() {
    const idField = h('input', { type: 'text', inputmode: 'numeric', testid: 'mod-user-id',
      placeholder: t('mod_user_id'), 'aria-label': t('mod_user_id'),
      value: this.user ? String(this.user.id) : '' });
    const reasonField = h('textarea', { testid: 'mod-reason', rows: 2, maxlength: MAX_REASON,
      placeholder: t('mod_reason'), 'aria-label': t('mod_reason'),
      oninput: (ev) => { this.reasonText = ev.target.value; } });
    reasonField.value = this.reasonText;
    const minutes = h('input', { type: 'number', min: 1, value: this.minutes, testid: 'mod-minutes',
      'aria-label': t('mod_minutes'), oninput: (ev) => { this.minutes = ev.target.value; } });
    const u = this.user;
    const action = (name, extra, done) => h('button', { class: 'btn small', type: 'button',
      testid: `mod-${name}`, onclick: () => {
        const reason = this.reason();
        if (reason && u) {
          this.act(`/api/mod/users/${u.id}/${name}`, { reason, ...(extra ? extra() : {}) },
            done || (() => t('mod_done')));
        }
      } }, t(`mod_action_${name}`));
    const timed = () => ({ minutes: Number.parseInt(this.minutes, 10) });
    const isAdmin = this.app.user && this.app.user.role === 'admin';
    const rolePick = h('select', { testid: 'mod-role-pick', 'aria-label': t('mod_role') },
      ['player', 'moderator', 'admin'].map((r) => h('option', { value: r,
        selected: u && u.role === r }, t(`role_name_${r}`))));
    return h('section', { class: 'mod-part', testid: 'mod-user' },
      h('h2', {}, t('mod_player')),
      h('form', { class: 'row', onsubmit: (ev) => { ev.preventDefault(); this.lookUp(idField.value.trim()); } },
        idField, h('button', { class: 'btn small', type: 'submit', testid: 'mod-user-load' },
          t('mod_look_up'))),
      u ? h('dl', { class: 'stats', testid: 'mod-user-state' },
        h('dt', {}, t('col_player')), h('dd', {}, free(u.name), ` #${u.id}`),
        h('dt', {}, t('mod_role')), h('dd', { testid: 'mod-user-role' }, t(`role_name_${u.role}`)),
        h('dt', {}, t('mod_muted_until')), h('dd', { testid: 'mod-user-muted' }, when(u.muted_until)),
        h('dt', {}, t('mod_suspended_until')), h('dd', {}, when(u.suspended_until)),
        h('dt', {}, t('mod_banned')), h('dd', { testid: 'mod-user-banned' },
          t(u.banned ? 'mod_yes' : 'mod_no'))) : null,
      h('label', { class: 'mod-label' }, t('mod_reason'), reasonField),
      h('label', { class: 'mod-label' }, t('mod_minutes'), ' ', minutes),
      u ? h('div', { class: 'row mod-actions' },
        action('mute', timed), action('unmute'), action('suspend', timed), action('ban'),
        action('unban'),
        u.guest ? null : action('password', null, (a) => t('mod_new_password', { password: a.password })),
        isAdmin ? [rolePick, action('role', () => ({ role: rolePick.value }))] : null) : null);
  }

  tablePart() {
    const key = h('input', { type: 'text', testid: 'mod-table-key', placeholder: t('mod_table_key'),
      'aria-label': t('mod_table_key'), value: this.tableKey,
      oninput: (ev) => { this.tableKey = ev.target.value; } });
    return h('section', { class: 'mod-part', testid: 'mod-table' },
      h('h2', {}, t('mod_close_table')),
      h('p', { class: 'muted' }, t('mod_close_table_help')),
      h('form', { class: 'row', onsubmit: (ev) => {
        ev.preventDefault();
        const reason = this.reason();
        const table = key.value.trim();
        if (reason && table) {
          this.act(`/api/mod/tables/${encodeURIComponent(table)}/close`, { reason },
            () => t('mod_table_closed'));
        }
      } }, key, h('button', { class: 'btn small', type: 'submit', testid: 'mod-table-close' },
        t('mod_close_table'))));
  }

  clubPart() {
    const idField = h('input', { type: 'text', inputmode: 'numeric', testid: 'mod-club-id',
      placeholder: t('mod_club_id'), 'aria-label': t('mod_club_id'), value: this.clubId,
      oninput: (ev) => { this.clubId = ev.target.value; } });
    const chat = this.clubChat;
    const line = (m) => h('li', { testid: 'mod-club-line', 'data-message': m.id },
      when(m.at), ' ', free(m.name, 'chat-name'), ` #${m.user_id}: `, free(m.text, 'chat-text'), ' ',
      h('button', { class: 'btn small', type: 'button', testid: 'mod-club-line-remove',
        onclick: () => {
          const reason = this.reason();
          if (reason) {
            this.act(`/api/mod/clubs/${chat.club.id}/chat/${m.id}/remove`, { reason },
              () => t('mod_line_removed'));
          }
        } }, t('mod_remove_line')));
    return h('section', { class: 'mod-part', testid: 'mod-club' },
      h('h2', {}, t('mod_club_chat')),
      h('p', { class: 'muted' }, t('mod_club_chat_help')),
      h('form', { class: 'row', onsubmit: (ev) => {
        ev.preventDefault();
        if (idField.value.trim()) this.readClubChat(idField.value.trim());
      } }, idField, h('button', { class: 'btn small', type: 'submit', testid: 'mod-club-load' },
        t('mod_read_club_chat'))),
      chat ? [h('h3', {}, free(chat.club.name), ` #${chat.club.id}`),
        chat.messages.length ? h('ul', { class: 'mod-list chat-lines', testid: 'mod-club-chat' },
          chat.messages.map(line))
          : h('p', { class: 'muted', testid: 'mod-club-chat-empty' }, t('mod_club_chat_empty'))]
        : null);
  }

  auditPart() {
    const rows = (this.audit || []).map((e) => h('tr', { testid: 'mod-audit-row' },
      h('td', {}, when(e.at)),
      h('td', {}, e.moderator === null ? t('mod_shell') : free(e.moderator_name)),
      h('td', { testid: 'mod-audit-action' }, t(`mod_log_${e.action}`)),
      h('td', {}, e.target_user !== null ? free(`${e.target_name} #${e.target_user}`)
        : e.target_table || '–'),
      h('td', { class: 'free' }, e.reason)));
    return h('section', { class: 'mod-part', testid: 'mod-audit' },
      h('h2', {}, t('mod_audit')),
      this.audit === null ? h('p', {}, t('loading'))
        // (the scrolling box takes the focus: a keyboard scrolls it too)
        : rows.length ? h('div', { class: 'table-scroll', tabindex: 0, role: 'region',
          'aria-label': t('mod_audit') }, h('table', { class: 'scores' },
          h('thead', {}, h('tr', {}, h('th', {}, t('col_time')), h('th', {}, t('mod_by')),
            h('th', {}, t('mod_what')), h('th', {}, t('mod_whom')), h('th', {}, t('mod_why')))),
          h('tbody', {}, rows))) : h('p', { class: 'muted' }, t('mod_audit_empty')));
  }
}
