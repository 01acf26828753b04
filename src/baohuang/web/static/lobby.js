// The lobby: play against bots, account, join by code, open tables, create a table.
import { clear, focusedId, free, h, refocus, retype, typed } from './dom.js';
import { getLang, t, tNodes } from './i18n.js';
import { get, post } from './api.js';
import { DEFAULT_BOT, botLevel, opponentBots } from './model.js';
import { levelProgress } from './progress.js';
import { challengeEntry } from './challenge.js';
import { errorText } from './errors.js';

// The client's version (the package's and its build's), as the server wrote it into the page.
export function appVersion() {
  const meta = document.querySelector('meta[name="baohuang-version"]');
  return (meta && meta.content) || 'dev';
}


// A server table's own defaults where they differ from the preset's rule text: leaving
// is played out by 托管 unless the table chooses 逃跑即结束 (docs/protocol.md §2).
const TABLE_DEFAULTS = { leave_ends_game: false };
// Options sent whatever their value (the server's default is not the preset's).
const ALWAYS_SENT = new Set(Object.keys(TABLE_DEFAULTS));

// Options that only make sense with another option's value (the server rejects
// the rest): option -> [the option it needs, its value, the value it must then take].
const NEEDS = {
  called_card_high: ['guard_mode', 'call', false],
  hold_back_emperor_card: ['deck', 'full', true],
};

// Show an option only where it applies; where it does not it takes the value the
// server accepts.
export function applyOptionNeeds(box) {
  for (const [name, [other, want, fallback]] of Object.entries(NEEDS)) {
    const row = box.querySelector(`[data-option="${name}"]`);
    const control = box.querySelector(`[name="opt_${other}"]`);
    const input = row && row.querySelector(`[name="opt_${name}"]`);
    if (!row || !control || !input) continue;
    const applies = control.value === want;
    row.hidden = !applies;
    input.disabled = !applies;
    if (!applies) input.checked = fallback;
  }
}

// Options as sent: switches back at their default first, so that each step the server
// applies in order is valid (特画 off before leaving call mode, the Emperor card held
// back before leaving the full deck).
export function orderOptions(options, specs) {
  const entries = Object.entries(options);
  const isDefault = ([name, value]) => {
    const spec = specs[name];
    return spec && spec.type === 'bool' && value === spec.default ? 0 : 1;
  };
  entries.sort((a, b) => isDefault(a) - isDefault(b));
  return Object.fromEntries(entries);
}

export class LobbyScreen {
  constructor(app) {
    this.app = app;
    this.tables = [];
    this.rules = null;
    this.notice = null;
    this.form = null;
    this.error = null;
    this.createError = null;
    this.formValues = null;
    this.busy = false;
    this.quickBot = null;
  }

  async mount(root) {
    this.root = root;
    this.render();
    try {
      const [tables, rules] = await Promise.all([get('/api/tables'), this.app.loadRules()]);
      this.tables = tables.tables || [];
      this.rules = rules;
    } catch (err) {
      this.error = errorText(err);
    }
    this.render();
  }

  unmount() {}

  async refreshTables() {
    try {
      this.tables = (await get('/api/tables')).tables || [];
    } catch (err) {
      this.error = errorText(err);
    }
    this.render();
  }

  async playVsBots() {
    if (this.busy) return;
    // (read the choice before the page redraws)
    const bot = this.root.querySelector('#quick-bot');
    if (bot && bot.value) this.quickBot = bot.value;
    this.busy = true;
    this.error = null;
    this.render();
    try {
      await this.app.ensureUser(this.guestName());
      const body = {};
      if (this.quickBot) body.bots = this.quickBot;
      const res = await post('/api/quickplay', body);
      location.hash = `#/t/${res.id}`;
    } catch (err) {
      this.error = errorText(err);
      this.busy = false;
      this.render();
    }
  }

  guestName() {
    const input = this.root.querySelector('#guest-name');
    return input && input.value.trim() ? input.value.trim() : null;
  }

  async account(kind) {
    const name = this.root.querySelector('#acct-name').value.trim();
    const password = this.root.querySelector('#acct-password').value;
    this.error = null;
    try {
      const res = await post(`/api/${kind}`, { name, password });
      this.app.setUser(res.user);
    } catch (err) {
      this.error = errorText(err);
    }
    this.render();
  }

  async guest() {
    this.error = null;
    try {
      await this.app.ensureUser(this.guestName(), true);
    } catch (err) {
      this.error = errorText(err);
    }
    this.render();
  }

  async changePassword() {
    const password = this.root.querySelector('#pw-old').value;
    const fresh = this.root.querySelector('#pw-new').value;
    this.error = null;
    this.notice = null;
    try {
      await post('/api/password', { password, new_password: fresh });
      this.notice = t('password_changed');
    } catch (err) {
      this.error = errorText(err);
    }
    this.render();
  }

  async logout() {
    try {
      await post('/api/logout');
    } catch { /* already out */ }
    this.app.setUser(null);
    this.render();
  }

  joinCode(role) {
    const code = this.root.querySelector('#join-code').value.trim();
    if (!code) {
      this.error = t('err_code_empty');
      this.render();
      return;
    }
    const m = code.match(/#\/[tw]\/([^/?#\s]+)/);
    location.hash = `#/${role === 'watcher' ? 'w' : 't'}/${encodeURIComponent(m ? m[1] : code)}`;
  }

  async createTable(ev) {
    ev.preventDefault();
    const f = ev.target;
    const preset = f.elements.preset.value;
    const options = {};
    const base = { ...(this.rules.presets[preset] || {}), ...TABLE_DEFAULTS };
    for (const [name, spec] of Object.entries(this.rules.options)) {
      const el = f.elements[`opt_${name}`];
      if (!el) continue;
      let value;
      if (spec.type === 'bool') value = el.checked;
      else if (spec.type === 'int') value = Number(el.value);
      else value = el.value;
      if (value !== base[name] || ALWAYS_SENT.has(name)) options[name] = value;
    }
    // 空位由电脑补齐: the seats still empty when the host starts, not every seat now (so
    // that friends invited meanwhile keep theirs); alone, the host starts at once
    const fill = f.elements.fill_bots.checked ? f.elements.bot_kind.value : null;
    const readyWait = Number(f.elements.ready_wait.value) || 0;
    const body = {
      preset, options: orderOptions(options, this.rules.options),
      timeout: Number(f.elements.timeout.value),
      games: Number(f.elements.games.value),
      autostart: f.elements.autostart.checked,
      counter: f.elements.counter.checked,
      private: f.elements.private.checked,
    };
    if (fill) body.fill_bots = fill;
    if (readyWait > 0) body.ready_wait = readyWait;
    this.error = null;
    this.createError = null;
    try {
      await this.app.ensureUser(this.guestName());
      const res = await post('/api/tables', body);
      location.hash = `#/t/${res.id}`;
    } catch (err) {
      this.createError = errorText(err);
      this.render();
    }
  }

  render() {
    if (!this.root) return;
    const focused = focusedId(this.root);
    const text = typed(this.root);
    this.formValues = readForm(this.root) || this.formValues;
    clear(this.root);
    const user = this.app.user;
    const bots = opponentBots((this.rules && this.rules.bot_levels) || this.app.bots);
    this.root.appendChild(h('div', { class: 'lobby' },
      h('section', { class: 'panel hero' },
        h('h1', {}, t('lobby_title')),
        h('p', { class: 'lead' }, t('lobby_lead')),
        h('button', { class: 'btn huge primary', testid: 'play-vs-bots', disabled: this.busy,
          onclick: () => this.playVsBots() }, t('btn_play_vs_bots')),
        h('label', { class: 'inline' }, t('quick_bots'), ' ',
          h('select', { id: 'quick-bot', testid: 'quick-bot',
            onchange: (e) => { this.quickBot = e.target.value; } }, bots.map((b) => h('option',
            { value: b, selected: b === (this.quickBot || DEFAULT_BOT) }, botLabel(b))))),
        this.error ? h('p', { class: 'message bad', testid: 'lobby-error', role: 'alert' }, this.error) : null),
      challengeEntry(this),
      h('section', { class: 'panel account', testid: 'account' },
        h('h2', {}, t('account_title')),
        user ? this.userBox(user) : this.loginBox()),
      h('section', { class: 'panel join' },
        h('h2', {}, t('join_title')),
        h('div', { class: 'row' },
          h('input', { id: 'join-code', placeholder: t('join_placeholder'), testid: 'join-code',
            autocomplete: 'off', 'aria-label': t('join_placeholder') }),
          h('button', { class: 'btn', testid: 'join', onclick: () => this.joinCode('player') },
            t('btn_join')),
          h('button', { class: 'btn', testid: 'watch', onclick: () => this.joinCode('watcher') },
            t('btn_watch')))),
      h('section', { class: 'panel tables' },
        h('h2', {}, t('tables_title'),
          h('button', { class: 'btn small', onclick: () => this.refreshTables() }, t('btn_refresh'))),
        this.tablesList()),
      h('section', { class: 'panel create' },
        h('h2', {}, t('create_title')),
        this.rules ? this.createForm() : h('p', {}, t('loading'))),
      h('p', { class: 'app-version', testid: 'app-version' },
        tNodes('app_version', { version: h('span', { translate: 'no' }, appVersion()) }))));
    retype(this.root, text);
    refocus(this.root, focused);
  }

  userBox(user) {
    return h('div', { class: 'user-box' },
      h('p', {}, t('hello_user'), ' ', free(user.name, 'strong'),
        user.guest ? h('span', { class: 'badge' }, t('guest')) : null),
      levelProgress(user),
      h('p', {}, t('user_stats', { points: user.points ?? 0, games: user.games ?? 0,
        wins: user.wins ?? 0 })),
      h('div', { class: 'row' },
        h('a', { class: 'btn', href: '#/history', testid: 'history-link' }, t('nav_history')),
        h('a', { class: 'btn', href: '#/leaderboard', testid: 'leaderboard-link' },
          t('nav_leaderboard')),
        user.guest ? null : h('a', { class: 'btn', href: `#/u/${user.id}`, testid: 'profile-link' },
          t('nav_profile')),
        user.guest ? null : h('a', { class: 'btn', href: '#/clubs', testid: 'clubs-link' },
          t('nav_clubs')),
        h('button', { class: 'btn', testid: 'logout', onclick: () => this.logout() }, t('btn_logout'))),
      user.guest ? null : this.passwordBox());
  }

  // A registered user changes the password (the old one given); the server logs out
  // every other session.
  passwordBox() {
    return h('div', { class: 'password-box' },
      h('details', { testid: 'password-change' },
        h('summary', {}, t('password_change')),
        h('div', { class: 'row' },
          h('input', { id: 'pw-old', type: 'password', placeholder: t('password_old'),
            autocomplete: 'current-password', 'aria-label': t('password_old'), testid: 'pw-old' }),
          h('input', { id: 'pw-new', type: 'password', placeholder: t('password_new'),
            autocomplete: 'new-password', 'aria-label': t('password_new'), testid: 'pw-new',
            onkeydown: (e) => { if (e.key === 'Enter') { e.preventDefault(); this.changePassword(); } } }),
          h('button', { class: 'btn', testid: 'pw-change', onclick: () => this.changePassword() },
            t('btn_change_password')))),
      this.notice ? h('p', { class: 'message ok', testid: 'pw-changed', role: 'status' },
        this.notice) : null);
  }

  loginBox() {
    return h('div', { class: 'login-box' },
      h('div', { class: 'row' },
        h('input', { id: 'guest-name', placeholder: t('guest_placeholder'), maxlength: 24,
          'aria-label': t('guest_placeholder'), testid: 'guest-name',
          onkeydown: (e) => { if (e.key === 'Enter') { e.preventDefault(); this.guest(); } } }),
        h('button', { class: 'btn', testid: 'guest', onclick: () => this.guest() }, t('btn_guest'))),
      h('p', { class: 'muted' }, t('or_account')),
      h('div', { class: 'row' },
        h('input', { id: 'acct-name', placeholder: t('name_placeholder'), maxlength: 24,
          autocomplete: 'username', 'aria-label': t('name_placeholder'), testid: 'acct-name' }),
        h('input', { id: 'acct-password', type: 'password', placeholder: t('password_placeholder'),
          autocomplete: 'current-password', 'aria-label': t('password_placeholder'),
          testid: 'acct-password',
          // Enter in the password field logs in
          onkeydown: (e) => { if (e.key === 'Enter') { e.preventDefault(); this.account('login'); } },
        })),
      h('div', { class: 'row' },
        h('button', { class: 'btn', testid: 'login', onclick: () => this.account('login') },
          t('btn_login')),
        h('button', { class: 'btn', testid: 'register', onclick: () => this.account('register') },
          t('btn_register'))));
  }

  tablesList() {
    const open = this.tables.filter((tb) => tb.status === 'open' || tb.status === 'playing');
    if (!open.length) return h('p', { class: 'muted' }, t('no_tables'));
    return h('ul', { class: 'table-list' }, open.map((tb) => {
      const seated = (tb.seats || []).filter((s) => s && (s.name || s.bot)).length;
      return h('li', { testid: 'table-row', 'data-code': tb.code },
        free(tb.code, 'code'),
        h('span', {}, t(tb.preset ? `preset_${tb.preset}` : 'preset_custom')),
        h('span', {}, t('seated_n', { n: seated })),
        h('span', { class: 'muted' }, t(`table_status_${tb.status}`)),
        tb.status === 'open' ? h('a', { class: 'btn small', href: `#/t/${tb.id}` }, t('btn_join')) : null,
        h('a', { class: 'btn small', href: `#/w/${tb.id}` }, t('btn_watch')));
    }));
  }

  createForm() {
    const rules = this.rules;
    const presetNames = Object.keys(rules.presets);
    const lang = getLang();
    const kept = this.formValues;
    const startPreset = kept && rules.presets[kept.preset] ? kept.preset : presetNames[0] || 'shandong';
    const optionRows = (preset, values = null) => Object.entries(rules.options).map(([name, spec]) => {
      const given = values ? values[`opt_${name}`] : undefined;
      const value = given !== undefined ? given : TABLE_DEFAULTS[name]
        ?? (rules.presets[preset] || {})[name] ?? spec.default;
      let control;
      if (spec.type === 'bool') {
        control = h('input', { type: 'checkbox', name: `opt_${name}`, checked: Boolean(value) });
      } else if (spec.type === 'int') {
        control = h('input', { type: 'number', name: `opt_${name}`, min: 0, value, class: 'num' });
      } else {
        control = h('select', { name: `opt_${name}` }, (spec.values || []).map((v) =>
          h('option', { value: v, selected: v === value }, valueLabel(name, v))));
      }
      return h('div', { class: `opt ${spec.type === 'enum' ? 'enum' : ''}`, 'data-option': name },
        h('label', {}, h('span', { class: 'opt-name' }, optionLabel(name, spec)), control),
        h('p', { class: 'opt-help' }, optionHelp(name, spec, lang)));
    });
    const optionsBox = h('div', { class: 'options', onchange: () => applyOptionNeeds(optionsBox) },
      optionRows(startPreset, kept));
    applyOptionNeeds(optionsBox);
    const bots = opponentBots(rules.bot_levels);
    const v = kept || {};
    return h('form', { class: 'create-form', testid: 'create-form',
      onsubmit: (ev) => this.createTable(ev) },
    h('label', {}, t('preset_label'), ' ',
      h('select', { name: 'preset', testid: 'preset',
        onchange: (ev) => {
          clear(optionsBox);
          for (const row of optionRows(ev.target.value)) optionsBox.appendChild(row);
          applyOptionNeeds(optionsBox);
        } },
      presetNames.map((p) => h('option', { value: p, selected: p === startPreset },
        t(`preset_${p}`))))),
    h('p', { class: 'opt-help' }, t('preset_help')),
    h('details', { class: 'all-options', open: Boolean(v.optionsOpen) },
      h('summary', {}, t('options_title')), optionsBox),
    h('div', { class: 'row wrap' },
      h('label', {}, t('timeout_label'), ' ',
        h('input', { type: 'number', name: 'timeout', min: 1, max: 600, value: v.timeout ?? 30,
          class: 'num' })),
      h('label', {}, t('games_label'), ' ',
        h('input', { type: 'number', name: 'games', min: 1, max: 50, value: v.games ?? 1,
          class: 'num' })),
      h('label', {}, h('input', { type: 'checkbox', name: 'autostart',
        checked: v.autostart ?? true }), t('autostart_label')),
      h('label', { title: t('counter_help') }, h('input', { type: 'checkbox', name: 'counter',
        testid: 'counter-option', checked: v.counter ?? true }), t('counter_option_label')),
      h('label', { title: t('private_help') }, h('input', { type: 'checkbox', name: 'private',
        testid: 'private-option', checked: Boolean(v.private) }), t('private_label'))),
    h('div', { class: 'opt' },
      h('label', {}, t('ready_wait_label'), ' ',
        h('input', { type: 'number', name: 'ready_wait', testid: 'ready-wait-option', min: 0,
          max: 600, value: v.ready_wait ?? 0, class: 'num' })),
      h('p', { class: 'opt-help' }, t('ready_wait_help'))),
    h('div', { class: 'row wrap' },
      h('label', {}, h('input', { type: 'checkbox', name: 'fill_bots',
        checked: Boolean(v.fill_bots) }), t('fill_bots_label')),
      h('select', { name: 'bot_kind', 'aria-label': t('bot_pick') },
        bots.map((b) => h('option', { value: b,
          selected: b === (v.bot_kind || DEFAULT_BOT) }, botLabel(b))))),
    h('p', { class: 'opt-help' }, t('fill_bots_help')),
    this.createError ? h('p', { class: 'message bad', testid: 'create-error', role: 'alert' },
      this.createError) : null,
    h('button', { class: 'btn primary', type: 'submit', testid: 'create-table' },
      t('btn_create')));
  }
}

// What the create-table form holds now (kept when the lobby redraws), or null.
function readForm(root) {
  const f = root.querySelector('form.create-form');
  if (!f) return null;
  const out = {
    preset: f.elements.preset.value,
    timeout: f.elements.timeout.value,
    games: f.elements.games.value,
    autostart: f.elements.autostart.checked,
    counter: f.elements.counter.checked,
    private: f.elements.private.checked,
    fill_bots: f.elements.fill_bots.checked,
    ready_wait: f.elements.ready_wait.value,
    bot_kind: f.elements.bot_kind.value,
    optionsOpen: f.querySelector('details.all-options').open,
  };
  for (const el of f.querySelectorAll('[name^="opt_"]')) {
    if (el.type === 'checkbox') out[el.name] = el.checked;
    else if (el.type === 'number') out[el.name] = Number(el.value);
    else out[el.name] = el.value;
  }
  return out;
}

export const botLabel = botLevel;

function optionLabel(name, spec) {
  const key = `opt_${name}`;
  const text = t(key);
  return text === key ? spec[getLang()] || name : text;
}

function optionHelp(name, spec, lang) {
  const key = `opt_help_${name}`;
  const text = t(key);
  return text === key ? spec[lang] || '' : text;
}

function valueLabel(option, value) {
  const key = `val_${option}_${value}`;
  const text = t(key);
  return text === key ? String(value) : text;
}
