// 亲友圈 (clubs): my clubs and a new one (#/clubs), an invitation (#/club-join/CODE), a
// club's page with its members, tables, ledger (战绩) and chat (#/club/ID), a member's
// page (#/club/ID/m/USER) and an evening's summary, 今晚战绩 (#/club/ID/evening[/DATE]),
// shareable as a link and as a picture drawn on a canvas. Everything a user wrote (names,
// descriptions, chat) is shown as text, never as HTML.
import { clear, free, h, retype, typed } from './dom.js';
import { t } from './i18n.js';
import { get, post } from './api.js';
import { errorText } from './errors.js';
import { DataScreen } from './screen.js';
import { reportButton } from './report.js';

const PERIODS = ['day', 'week', 'month', 'all'];
const ROLES = ['emperor', 'guard', 'rebel', 'solo'];
// the chat and the club's tables are read again this often while its page is open (ms)
const CLUB_POLL = 5000;
// the notices of a new club table are looked for this often (ms)
const NOTICE_POLL = 20000;

const tz = () => -new Date().getTimezoneOffset();
const pct = (x) => (x === null || x === undefined ? '–' : `${Math.round(100 * x)}%`);

function errorBox(error, testid = 'club-error') {
  return error ? h('p', { class: 'message bad', role: 'alert', testid }, error) : null;
}

// The ledger's table: rank, player, games, points, 头科 count, win rates by role.
function ledgerTable(players, clubId, testid = 'ledger') {
  if (!players.length) return h('p', { class: 'muted', testid: `${testid}-empty` }, t('club_ledger_empty'));
  return h('div', { class: 'table-scroll' }, h('table', { class: 'scores', testid },
    h('thead', {}, h('tr', {}, h('th', {}, t('col_rank')), h('th', {}, t('col_player')),
      h('th', {}, t('col_games')), h('th', {}, t('col_points')),
      h('th', { title: t('club_places_help') }, t('club_col_places')),
      ROLES.map((r) => h('th', {}, t(`club_role_${r}`))))),
    h('tbody', {}, players.map((p, i) => h('tr', { testid: 'ledger-row', 'data-user': p.user_id },
      h('td', { class: 'num' }, String(i + 1)),
      h('td', {}, h('a', { href: `#/club/${clubId}/m/${p.user_id}` }, free(p.name))),
      h('td', { class: 'num', testid: 'ledger-games' }, String(p.games)),
      h('td', { class: 'num', testid: 'ledger-points' }, String(p.points)),
      h('td', { class: 'num' }, p.places.join(' / ')),
      ROLES.map((r) => h('td', { class: 'num' },
        p.roles[r] ? `${pct(p.win_rate[r])} (${p.roles[r]})` : '–')))))));
}

// #/clubs: the clubs I am in, the open tables of my clubs, a new club, a code to join.
export class ClubsScreen extends DataScreen {
  constructor(app) {
    super(app);
    this.rules = null;
    this.createError = null;
  }

  async load() {
    if (!this.app.user) return null;
    const [data, rules] = await Promise.all([get('/api/clubs'), this.app.loadRules()]);
    this.rules = rules;
    return data;
  }

  async create(form) {
    const body = {
      name: form.elements.name.value,
      description: form.elements.description.value,
      preset: form.elements.preset.value,
      timeout: Number(form.elements.timeout.value),
      games: Number(form.elements.games.value),
      approval: form.elements.approval.checked,
      custom_rules: form.elements.custom_rules.checked,
      watchers: form.elements.watchers.checked,
    };
    try {
      const club = await post('/api/clubs', body);
      location.hash = `#/club/${club.id}`;
    } catch (err) {
      this.createError = errorText(err);
      this.render();
    }
  }

  render() {
    if (!this.root) return;
    const text = typed(this.root);     // (a name typed while the page was loading stays)
    clear(this.root);
    const user = this.app.user;
    if (!user || user.guest) {
      this.root.appendChild(h('section', { class: 'panel clubs', testid: 'clubs' },
        h('h1', {}, t('clubs_title')), h('p', { class: 'muted' }, t('clubs_lead')),
        h('p', { class: 'message bad', testid: 'clubs-registered' }, t('clubs_registered_only')),
        h('a', { class: 'btn', href: '#/' }, t('btn_lobby'))));
      return;
    }
    const d = this.data;
    const presets = this.rules ? Object.keys(this.rules.presets) : ['shandong'];
    this.root.appendChild(h('div', { class: 'clubs-page' },
      h('section', { class: 'panel clubs', testid: 'clubs' },
        h('h1', {}, t('clubs_title')), h('p', { class: 'muted' }, t('clubs_lead')),
        errorBox(this.error),
        d === null ? h('p', {}, t('loading')) : d.clubs.length
          ? h('ul', { class: 'club-list' }, d.clubs.map((c) => h('li', { testid: 'club-item' },
            c.role === 'pending'
              ? [free(c.name), ' ', h('span', { class: 'badge' }, t('club_role_pending'))]
              : h('a', { href: `#/club/${c.id}`, testid: 'club-link' }, free(c.name)),
            ' ', h('span', { class: 'muted' }, t('club_members_n', { n: c.members })))))
          : h('p', { class: 'muted', testid: 'clubs-empty' }, t('clubs_empty')),
        d && d.open_tables.length ? h('div', { testid: 'club-open-tables' },
          h('h2', {}, t('club_open_tables')),
          h('ul', {}, d.open_tables.map((tb) => h('li', {},
            free(tb.club_name), ' · ', h('a', { href: `#/t/${tb.id}` }, t('club_table_sit')))))) : null),
      h('section', { class: 'panel' },
        h('h2', {}, t('club_join_title')),
        h('form', { class: 'row', onsubmit: (e) => {
          e.preventDefault();
          location.hash = `#/club-join/${encodeURIComponent(e.target.elements.code.value.trim())}`;
        } },
        h('input', { name: 'code', testid: 'club-code-input', maxlength: 8, autocomplete: 'off',
          placeholder: t('club_code_placeholder'), 'aria-label': t('club_code_placeholder') }),
        h('button', { class: 'btn', type: 'submit', testid: 'club-code-go' }, t('club_btn_join')))),
      h('section', { class: 'panel create' },
        h('h2', {}, t('club_create_title')),
        h('form', { testid: 'club-create', onsubmit: (e) => { e.preventDefault(); this.create(e.target); } },
          h('label', {}, t('club_name'), ' ', h('input', { name: 'name', testid: 'club-name', maxlength: 24, required: true })),
          h('label', {}, t('club_description'), ' ',
            h('input', { name: 'description', testid: 'club-description', maxlength: 200 })),
          h('label', {}, t('preset_label'), ' ', h('select', { name: 'preset', testid: 'club-preset' },
            presets.map((p) => h('option', { value: p }, t(`preset_${p}`))))),
          h('label', {}, t('club_timeout'), ' ', h('input', { name: 'timeout', type: 'number', min: 5, max: 600, value: 30 })),
          h('label', {}, t('club_games'), ' ', h('input', { name: 'games', type: 'number', min: 1, max: 50, value: 1 })),
          h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'approval', testid: 'club-approval' }), ' ', t('club_approval')),
          h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'custom_rules' }), ' ', t('club_custom_rules')),
          h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'watchers', checked: true }), ' ', t('club_watchers')),
          h('button', { class: 'btn primary', type: 'submit', testid: 'club-create-go' }, t('club_btn_create')),
          errorBox(this.createError, 'club-create-error')))));
    retype(this.root, text);
  }
}

// #/club-join/CODE: what the invitation is to, and the button to join.
export class ClubJoinScreen extends DataScreen {
  constructor(app, code) {
    super(app);
    this.code = code;
    this.done = null;
  }

  async load() {
    if (!this.app.user || this.app.user.guest) return null;
    return get(`/api/clubs/invitation/${encodeURIComponent(this.code)}`);
  }

  async join() {
    try {
      const res = await post('/api/clubs/join', { code: this.code });
      if (res.role === 'pending') {
        this.done = t('club_join_pending');
        this.render();
      } else location.hash = `#/club/${res.id}`;
    } catch (err) {
      this.error = errorText(err);
      this.render();
    }
  }

  render() {
    if (!this.root) return;
    clear(this.root);
    const d = this.data;
    const registered = this.app.user && !this.app.user.guest;
    this.root.appendChild(h('section', { class: 'panel club-join', testid: 'club-join' },
      h('h1', {}, d ? free(d.name) : t('club_join_title')),
      d ? h('p', { class: 'muted' }, free(d.description)) : null,
      d ? h('p', {}, t('club_members_n', { n: d.members }), d.approval ? ` · ${t('club_approval')}` : '') : null,
      registered ? null : h('p', { class: 'message bad' }, t('clubs_registered_only')),
      errorBox(this.error),
      this.done ? h('p', { class: 'message ok', testid: 'club-join-done' }, this.done) : null,
      d && !this.done ? (d.role && d.role !== 'pending'
        ? h('a', { class: 'btn primary', href: `#/club/${d.id}` }, t('club_open'))
        : h('button', { class: 'btn primary', testid: 'club-join-go', onclick: () => this.join() },
          t('club_btn_join'))) : null,
      h('a', { class: 'btn', href: '#/clubs' }, t('clubs_title'))));
  }
}

// #/club/ID: the club's page.
export class ClubScreen {
  constructor(app, clubId) {
    this.app = app;
    this.clubId = clubId;
    this.club = null;
    this.ledger = null;
    this.period = 'week';
    this.messages = [];
    this.error = null;
    this.actionError = null;
    this.chatError = null;
    this.timer = null;
  }

  async mount(root) {
    this.root = root;
    this.render();
    await this.refresh();
    this.timer = setInterval(() => this.poll(), CLUB_POLL);
  }

  unmount() {
    clearInterval(this.timer);
    this.timer = null;
  }

  async refresh() {
    try {
      [this.club, this.ledger] = await Promise.all([
        get(`/api/clubs/${encodeURIComponent(this.clubId)}`),
        get(`/api/clubs/${encodeURIComponent(this.clubId)}/ledger?period=${this.period}&tz=${tz()}`)]);
      await this.readChat();
      this.error = null;
    } catch (err) {
      this.error = errorText(err);
    }
    this.render();
  }

  async poll() {
    if (!this.timer || !this.club) return;
    try {
      const before = this.messages.length;
      const club = await get(`/api/clubs/${encodeURIComponent(this.clubId)}`);
      await this.readChat();
      const changed = JSON.stringify(club.tables) !== JSON.stringify(this.club.tables)
        || JSON.stringify(club.members) !== JSON.stringify(this.club.members);
      this.club = club;
      if (changed || this.messages.length !== before) this.render();
    } catch { /* the next poll tries again */ }
  }

  async readChat() {
    const after = this.messages.length ? this.messages[this.messages.length - 1].id : 0;
    const res = await get(`/api/clubs/${encodeURIComponent(this.clubId)}/chat?after=${after}`);
    this.messages = this.messages.concat(res.messages).slice(-100);
  }

  async act(fn) {
    try {
      await fn();
      this.actionError = null;
      await this.refresh();
    } catch (err) {
      this.actionError = errorText(err);
      this.render();
    }
  }

  async openTable() {
    const fill = this.root.querySelector('[name=club_fill]');
    const body = fill && fill.checked ? { fill_bots: 'heuristic' } : {};
    // (a club whose members may change its rules: this table's time and games)
    for (const name of ['timeout', 'games']) {
      const el = this.root.querySelector(`[name=club_${name}]`);
      if (el && el.value && Number(el.value) !== this.club[name]) body[name] = Number(el.value);
    }
    try {
      const res = await post(`/api/clubs/${encodeURIComponent(this.clubId)}/tables`, body);
      location.hash = `#/t/${res.id}`;
    } catch (err) {
      this.actionError = errorText(err);
      this.render();
    }
  }

  async say(form) {
    const text = form.elements.text.value;
    try {
      await post(`/api/clubs/${encodeURIComponent(this.clubId)}/chat`, { text });
      form.elements.text.value = '';
      this.chatError = null;
      await this.readChat();
    } catch (err) {
      this.chatError = errorText(err);
    }
    this.render();
    const input = this.root.querySelector('[data-testid=club-chat-input]');
    if (input) input.focus();
  }

  async setPeriod(period) {
    this.period = period;
    await this.refresh();
  }

  render() {
    if (!this.root) return;
    const draft = this.root.querySelector('[data-testid=club-chat-input]');
    const kept = draft ? draft.value : '';
    clear(this.root);
    const c = this.club;
    if (!c) {
      this.root.appendChild(h('section', { class: 'panel', testid: 'club' },
        h('h1', {}, t('clubs_title')), errorBox(this.error) || h('p', {}, t('loading')),
        h('a', { class: 'btn', href: '#/clubs' }, t('clubs_title'))));
      return;
    }
    const id = encodeURIComponent(this.clubId);
    const mod = c.role === 'owner' || c.role === 'admin';
    const link = `${location.origin}${location.pathname}#/club-join/${c.code}`;
    const me = this.app.user && this.app.user.id;
    const member = (m) => h('li', { testid: 'club-member', 'data-user': m.user_id },
      h('span', { class: m.online ? 'dot online' : 'dot', title: t(m.online ? 'club_online' : 'club_offline') }),
      ' ', h('a', { href: `#/club/${id}/m/${m.user_id}` }, free(m.name)), ' ',
      h('span', { class: 'badge', testid: 'club-member-role' }, t(`club_role_${m.role}`)),
      mod && m.user_id !== me && m.role === 'pending' ? h('button', { class: 'btn small', testid: 'club-approve',
        onclick: () => this.act(() => post(`/api/clubs/${id}/members/${m.user_id}`, { action: 'approve' })) }, t('club_btn_approve')) : null,
      mod && m.user_id !== me && m.role !== 'owner' && (c.role === 'owner' || m.role !== 'admin')
        ? h('button', { class: 'btn small', testid: 'club-remove',
          onclick: () => this.act(() => post(`/api/clubs/${id}/members/${m.user_id}`, { action: 'remove' })) }, t('club_btn_remove')) : null,
      c.role === 'owner' && m.role === 'member' ? h('button', { class: 'btn small',
        onclick: () => this.act(() => post(`/api/clubs/${id}/members/${m.user_id}`, { action: 'admin' })) }, t('club_btn_admin')) : null);
    this.root.appendChild(h('div', { class: 'club-page', testid: 'club' },
      h('section', { class: 'panel' },
        h('h1', { testid: 'club-title' }, free(c.name)),
        c.description ? h('p', { class: 'muted' }, free(c.description)) : null,
        h('p', {}, t('club_rules_line', { preset: t(`preset_${c.preset}`), timeout: c.timeout, games: c.games })),
        h('div', { class: 'row wrap' }, t('club_code'), ' ', h('code', { testid: 'club-code', translate: 'no' }, c.code),
          h('input', { readonly: true, value: link, testid: 'club-link-text', 'aria-label': t('club_invite_link') }),
          mod ? h('button', { class: 'btn small', testid: 'club-new-code',
            onclick: () => this.act(() => post(`/api/clubs/${id}/code`)) }, t('club_btn_new_code')) : null),
        errorBox(this.error), errorBox(this.actionError, 'club-action-error')),
      h('section', { class: 'panel' },
        h('h2', {}, t('club_tables')),
        c.tables.length ? h('ul', { testid: 'club-tables' }, c.tables.map((tb) => h('li', { testid: 'club-table' },
          h('span', { class: 'badge' }, t(`table_status_${tb.status}`)), ' ',
          tb.seats.map((s) => (s ? free(s.bot ? t(`bot_${s.bot}`) : s.name, 'seat-name') : h('span', { class: 'muted' }, t('club_seat_empty'))))
            .flatMap((x, i) => (i ? [' · ', x] : [x])),
          ' ', h('a', { class: 'btn small', href: `#/t/${tb.id}`, testid: 'club-table-go' },
            tb.status === 'open' ? t('club_table_sit') : t('btn_watch')))))
          : h('p', { class: 'muted', testid: 'club-tables-empty' }, t('club_tables_empty')),
        h('div', { class: 'row wrap' },
          h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'club_fill', testid: 'club-fill' }), ' ', t('club_fill_bots')),
          c.custom_rules ? [
            h('label', {}, t('club_timeout'), ' ', h('input', { name: 'club_timeout', type: 'number', min: 5, max: 600, value: c.timeout, testid: 'club-table-timeout' })),
            h('label', {}, t('club_games'), ' ', h('input', { name: 'club_games', type: 'number', min: 1, max: 50, value: c.games, testid: 'club-table-games' })),
          ] : null,
          h('button', { class: 'btn primary', testid: 'club-open-table', onclick: () => this.openTable() }, t('club_btn_open_table')))),
      h('section', { class: 'panel' },
        h('h2', {}, t('club_ledger'), ' ', h('a', { class: 'btn small', href: `#/club/${id}/evening`, testid: 'club-evening-link' }, t('club_evening'))),
        h('div', { class: 'row wrap', role: 'tablist' }, PERIODS.map((p) => h('button', {
          class: `btn small${p === this.period ? ' primary' : ''}`, role: 'tab', testid: `club-period-${p}`,
          'aria-selected': p === this.period ? 'true' : 'false', onclick: () => this.setPeriod(p) }, t(`club_period_${p}`)))),
        this.ledger ? ledgerTable(this.ledger.players, id) : h('p', {}, t('loading'))),
      h('section', { class: 'panel club-chat' },
        h('h2', {}, t('club_chat')),
        h('ul', { class: 'chat-lines', testid: 'club-chat', 'aria-live': 'polite' }, this.messages.map((m) => h('li', { testid: 'club-chat-line' },
          free(m.name, 'chat-name'), ': ', free(m.text, 'chat-text'),
          // 举报: another member's line goes to the moderators with the report
          m.user_id !== me ? [' ', reportButton([{ id: m.user_id, name: m.name }],
            { place: 'club', club_id: Number(this.clubId), message_id: m.id })] : null))),
        h('form', { class: 'row', onsubmit: (e) => { e.preventDefault(); this.say(e.target); } },
          h('input', { name: 'text', maxlength: 120, testid: 'club-chat-input', autocomplete: 'off',
            value: kept, 'aria-label': t('club_chat_placeholder'), placeholder: t('club_chat_placeholder') }),
          h('button', { class: 'btn', type: 'submit', testid: 'club-chat-send' }, t('club_btn_say'))),
        errorBox(this.chatError, 'club-chat-error')),
      h('section', { class: 'panel' },
        h('h2', {}, t('club_members')),
        h('ul', { class: 'club-members', testid: 'club-members' }, c.members.map(member)),
        c.role !== 'owner' ? h('button', { class: 'btn', testid: 'club-leave',
          onclick: () => this.act(async () => {
            await post(`/api/clubs/${id}/leave`);
            location.hash = '#/clubs';
          }) }, t('club_btn_leave')) : null,
        h('a', { class: 'btn', href: '#/clubs' }, t('clubs_title')))));
    const again = this.root.querySelector('[data-testid=club-chat-input]');
    if (again && kept) again.value = kept;
  }
}

// #/club/ID/m/USER: a member's figures for each period and his last games.
export class ClubMemberScreen extends DataScreen {
  constructor(app, clubId, userId) {
    super(app);
    this.clubId = clubId;
    this.userId = userId;
  }

  load() {
    return get(`/api/clubs/${encodeURIComponent(this.clubId)}/members/${encodeURIComponent(this.userId)}?tz=${tz()}`);
  }

  render() {
    if (!this.root) return;
    clear(this.root);
    const d = this.data;
    const id = encodeURIComponent(this.clubId);
    this.root.appendChild(h('section', { class: 'panel club-member', testid: 'club-member-page' },
      h('h1', {}, d ? free(d.name) : t('club_member_title')),
      errorBox(this.error),
      d ? [
        d.role ? h('p', {}, h('span', { class: 'badge' }, t(`club_role_${d.role}`))) : null,
        h('div', { class: 'table-scroll' }, h('table', { class: 'scores', testid: 'club-member-periods' },
          h('thead', {}, h('tr', {}, h('th', {}, ''), h('th', {}, t('col_games')), h('th', {}, t('col_points')),
            h('th', { title: t('club_places_help') }, t('club_col_places')), ROLES.map((r) => h('th', {}, t(`club_role_${r}`))))),
          h('tbody', {}, PERIODS.map((p) => {
            const e = d.periods[p];
            return h('tr', { testid: `club-member-${p}` }, h('th', {}, t(`club_period_${p}`)),
              h('td', { class: 'num' }, e ? String(e.games) : '0'),
              h('td', { class: 'num' }, e ? String(e.points) : '0'),
              h('td', { class: 'num' }, e ? e.places.join(' / ') : '–'),
              ROLES.map((r) => h('td', { class: 'num' }, e && e.roles[r] ? `${pct(e.win_rate[r])} (${e.roles[r]})` : '–')));
          })))),
        h('h2', {}, t('club_recent_games')),
        d.games.length ? h('ul', {}, d.games.map((g) => {
          const mine = g.players.find((p) => p.user_id === d.user_id);
          return h('li', {}, new Date(g.finished * 1000).toLocaleString(), ' · ',
            mine && mine.role ? t(`club_role_${mine.role}`) : '', ' · ',
            mine ? `${mine.score > 0 ? '+' : ''}${mine.score}` : '', ' ',
            h('a', { href: `#/replay/${g.game_id}` }, t('btn_replay')));
        })) : h('p', { class: 'muted' }, t('club_ledger_empty')),
      ] : this.error ? null : h('p', {}, t('loading')),
      h('a', { class: 'btn', href: `#/club/${id}` }, t('club_back'))));
  }
}

// The evening's summary drawn on a canvas, for saving or sending as a picture.
function drawEvening(d) {
  const rows = d.players;
  const canvas = document.createElement('canvas');
  const scale = 2;
  const width = 360;
  const height = 96 + 28 * Math.max(1, rows.length);
  canvas.width = width * scale;
  canvas.height = height * scale;
  const g = canvas.getContext('2d');
  g.scale(scale, scale);
  g.fillStyle = '#1f5130';
  g.fillRect(0, 0, width, height);
  g.fillStyle = '#f3c650';
  g.font = 'bold 20px sans-serif';
  g.fillText(`${d.club.name} · ${t('club_evening')}`, 16, 34);
  g.fillStyle = '#f4f1e4';
  g.font = '14px sans-serif';
  g.fillText(`${d.date} · ${t('club_games_n', { n: d.games.length })}`, 16, 58);
  rows.forEach((p, i) => {
    const y = 92 + 28 * i;
    g.fillText(`${i + 1}. ${p.name}`, 16, y);
    g.fillText(`${p.points > 0 ? '+' : ''}${p.points}`, 220, y);
    g.fillText(`${t('club_col_places')} ${p.places[0]}`, 280, y);
  });
  return canvas;
}

// #/club/ID/evening[/DATE]: 今晚战绩.
export class ClubEveningScreen extends DataScreen {
  constructor(app, clubId, date) {
    super(app);
    this.clubId = clubId;
    this.date = date || null;
    this.image = null;
  }

  load() {
    const when = this.date ? `&date=${encodeURIComponent(this.date)}` : '';
    return get(`/api/clubs/${encodeURIComponent(this.clubId)}/evening?tz=${tz()}${when}`);
  }

  render() {
    if (!this.root) return;
    clear(this.root);
    const d = this.data;
    const id = encodeURIComponent(this.clubId);
    const link = d ? `${location.origin}${location.pathname}#/club/${id}/evening/${d.date}` : '';
    this.root.appendChild(h('section', { class: 'panel club-evening', testid: 'club-evening' },
      h('h1', {}, d ? [free(d.club.name), ' · ', t('club_evening')] : t('club_evening')),
      errorBox(this.error),
      d ? [
        h('p', { class: 'muted', testid: 'club-evening-date' }, `${d.date} · ${t('club_games_n', { n: d.games.length })}`),
        ledgerTable(d.players, id, 'club-evening-table'),
        h('div', { class: 'row wrap' },
          h('input', { readonly: true, value: link, testid: 'club-evening-share', 'aria-label': t('club_share_link') }),
          h('button', { class: 'btn small', testid: 'club-evening-image', onclick: () => {
            this.image = drawEvening(d).toDataURL('image/png');
            this.render();
          } }, t('club_btn_image'))),
        this.image ? h('a', { href: this.image, download: `club-${d.club.id}-${d.date}.png`, testid: 'club-evening-download' },
          h('img', { src: this.image, alt: t('club_evening'), class: 'evening-image' })) : null,
      ] : this.error ? null : h('p', {}, t('loading')),
      h('a', { class: 'btn', href: `#/club/${id}` }, t('club_back'))));
  }
}

// The in-app notice of a new table in one of my clubs: the open tables of my clubs are
// looked for now and then; one not seen before, opened by someone else, is announced.
// Returns what it has seen (`seen`: the ids of the open tables at the last look, null
// before the first).
export function startClubNotices(app) {
  const state = { seen: null, timer: null };
  const box = h('div', { class: 'club-notice', testid: 'club-notice', role: 'status', hidden: true });
  document.body.appendChild(box);
  const look = async () => {
    const user = app.user;
    if (!user || user.guest) return;
    let res;
    try {
      res = await get('/api/clubs');
    } catch {
      return;
    }
    const fresh = res.open_tables.filter((tb) => state.seen && !state.seen.has(tb.id) && tb.owner !== user.id);
    state.seen = new Set(res.open_tables.map((tb) => tb.id));
    if (!fresh.length) return;
    const tb = fresh[0];
    clear(box);
    box.hidden = false;
    box.appendChild(h('span', {}, t('club_notice', { club: tb.club_name })));
    box.appendChild(h('a', { class: 'btn small primary', href: `#/t/${tb.id}`, testid: 'club-notice-go',
      onclick: () => { box.hidden = true; } }, t('club_table_sit')));
    box.appendChild(h('button', { class: 'btn small', 'aria-label': t('club_notice_close'),
      onclick: () => { box.hidden = true; } }, '×'));
  };
  look();
  state.timer = setInterval(look, NOTICE_POLL);
  return state;
}
