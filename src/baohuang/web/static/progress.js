// A player's progress: the level title with the way to the next (等级与称号), the
// leaderboard (排行榜) and a player's page. Levels come from points (docs/protocol.md §6).
import { clear, free, h } from './dom.js';
import { getLang, t } from './i18n.js';
import { get, post } from './api.js';
import { DataScreen } from './screen.js';
import { errorText } from './errors.js';

// The level's title, and a bar from the level's floor to the next level's threshold
// with the points still needed ("距举人还差 18 分").
export function levelProgress(user) {
  const lang = getLang();
  const title = user.title ? user.title[lang] || '' : '';
  const points = user.points ?? 0;
  const next = user.next_level_at;
  const parts = [h('span', { class: 'badge level', testid: 'level-title' }, title)];
  if (next === null || next === undefined) {
    parts.push(h('span', { class: 'muted', testid: 'level-next' }, t('level_top')));
  } else {
    const from = user.level_from ?? 0;
    const done = Math.max(0, Math.min(next - from, points - from));
    const nextTitle = user.next_title ? user.next_title[lang] || '' : '';
    const label = t('level_to_next', { title: nextTitle, n: next - points });
    parts.push(h('progress', { max: String(next - from), value: String(done),
      testid: 'level-bar', 'aria-label': label }));
    parts.push(h('span', { class: 'muted', testid: 'level-next' }, label));
  }
  return h('div', { class: 'level-progress', testid: 'level-progress' }, parts);
}

function winRate(user) {
  return user.games ? `${Math.round((100 * (user.wins || 0)) / user.games)}%` : '–';
}

// 排行榜: registered players by points, the signed-in player's row marked.
export class LeaderboardScreen extends DataScreen {
  async load() {
    return (await get('/api/leaderboard')).users || [];
  }

  render() {
    clear(this.root);
    const me = this.app.user && this.app.user.id;
    const lang = getLang();
    const rows = (this.data || []).map((u, i) => h('tr',
      { class: u.id === me ? 'me' : '', testid: 'leader-row', 'data-user': u.id },
      h('td', { class: 'num' }, String(i + 1)),
      h('td', {}, h('a', { href: `#/u/${u.id}`, testid: 'leader-name' }, free(u.name))),
      h('td', {}, u.title ? u.title[lang] : ''),
      h('td', { class: 'num', testid: 'leader-points' }, String(u.points)),
      h('td', { class: 'num' }, String(u.games)),
      h('td', { class: 'num' }, winRate(u)),
      h('td', { class: 'num' }, u.rating ? u.rating.ordinal.toFixed(1) : '–')));
    this.root.appendChild(h('section', { class: 'panel history leaderboard', testid: 'leaderboard' },
      h('h1', {}, t('leaderboard_title')),
      h('p', { class: 'muted' }, t('leaderboard_lead')),
      this.error ? h('p', { class: 'message bad', role: 'alert' }, this.error) : null,
      this.data === null ? h('p', {}, t('loading'))
        : this.data.length ? h('div', { class: 'table-scroll' }, h('table', { class: 'scores' },
          h('thead', {}, h('tr', {}, h('th', {}, t('col_rank')), h('th', {}, t('col_player')),
            h('th', {}, t('col_title')), h('th', {}, t('col_points')), h('th', {}, t('col_games')),
            h('th', {}, t('col_win_rate')), h('th', { title: t('rating_help') }, t('col_rating')))),
          h('tbody', {}, rows)))
          : h('p', { class: 'muted', testid: 'leaderboard-empty' }, t('leaderboard_empty')),
      h('a', { class: 'btn', href: '#/' }, t('btn_lobby'))));
  }
}

// A player's page: title and progress, points, games, wins, rating; on his own page,
// his data (数据与隐私): download it as JSON, or delete the account.
export class ProfileScreen extends DataScreen {
  constructor(app, userId) {
    super(app);
    this.userId = userId;
    this.deleteError = null;
  }

  yourData(u) {
    const password = u.guest ? null : h('input', { type: 'password', testid: 'delete-password',
      autocomplete: 'current-password', placeholder: t('delete_password'),
      'aria-label': t('delete_password') });
    const remove = async (ev) => {
      ev.preventDefault();
      if (!window.confirm(t('delete_confirm'))) return;
      try {
        await post('/api/me/delete', u.guest ? { confirm: true } : { password: password.value });
        this.app.setUser(null);
        location.hash = '#/';
      } catch (err) {
        this.deleteError = errorText(err);
        this.render();
      }
    };
    return h('section', { class: 'your-data', testid: 'your-data' },
      h('h2', {}, t('data_title')),
      h('p', { class: 'muted' }, t('data_lead')),
      h('a', { class: 'btn', href: '/api/me/export', download: `baohuang-${u.id}.json`,
        testid: 'data-export' }, t('btn_data_export')),
      h('form', { class: 'row delete-account', onsubmit: remove },
        password,
        h('button', { class: 'btn danger', type: 'submit', testid: 'delete-account' },
          t('btn_delete_account'))),
      this.deleteError ? h('p', { class: 'message bad', role: 'alert', testid: 'delete-error' },
        this.deleteError) : null);
  }

  load() {
    return get(`/api/users/${encodeURIComponent(this.userId)}`);
  }

  render() {
    clear(this.root);
    const u = this.data;
    const mine = u && this.app.user && this.app.user.id === u.id;
    this.root.appendChild(h('section', { class: 'panel profile', testid: 'profile' },
      h('h1', {}, u ? free(u.name) : t('profile_title')),
      this.error ? h('p', { class: 'message bad', role: 'alert' }, this.error) : null,
      u ? [
        levelProgress(u),
        h('dl', { class: 'stats', testid: 'profile-stats' },
          h('dt', {}, t('col_points')), h('dd', {}, String(u.points)),
          h('dt', {}, t('col_games')), h('dd', {}, String(u.games)),
          h('dt', {}, t('col_wins')), h('dd', {}, String(u.wins)),
          h('dt', {}, t('col_win_rate')), h('dd', {}, winRate(u)),
          h('dt', { title: t('rating_help') }, t('col_rating')),
          h('dd', {}, u.rating ? u.rating.ordinal.toFixed(1) : '–')),
      ] : this.error ? null : h('p', {}, t('loading')),
      mine ? this.yourData(u) : null,
      h('div', { class: 'row' },
        mine ? h('a', { class: 'btn', href: '#/history' }, t('nav_history')) : null,
        h('a', { class: 'btn', href: '#/leaderboard', testid: 'leaderboard-link' },
          t('nav_leaderboard')),
        h('a', { class: 'btn', href: '#/' }, t('btn_lobby')))));
  }
}
