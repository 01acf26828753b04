// 每日挑战, the daily duplicate challenge (docs/challenge.md): the lobby's entry with
// today's progress, a day's page (its deals, the ranking, and for each deal played
// everyone's scores and their distribution), past days, and one deal's replays side
// by side from the deal's seat.
import { clear, free, h } from './dom.js';
import { t } from './i18n.js';
import { get, post } from './api.js';
import { errorText } from './errors.js';
import { DataScreen } from './screen.js';
import { ReplayScreen } from './replay.js';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function percent(mp) {
  return `${(100 * mp).toFixed(1)}%`;
}

function signed(n) {
  const text = Number.isInteger(n) ? String(n) : n.toFixed(1);
  return n > 0 ? `+${text}` : text;
}

// The lobby's panel: today's progress (deals played of how many, rank, streak) and the
// way in. Its data is kept on the lobby screen, which draws it again when it comes.
export function challengeEntry(lobby) {
  const user = lobby.app.user;
  if (user && lobby.challenge === undefined) {
    lobby.challenge = null;
    get('/api/challenge').then((data) => { lobby.challenge = data; lobby.render(); },
      () => { lobby.challenge = false; });
  }
  const data = lobby.challenge;
  let line = t('challenge_lead');
  if (data) {
    line = t('challenge_progress', { k: data.played, n: data.count });
    if (data.you) line += ` · ${t('challenge_rank', { rank: data.you.rank, n: data.ranking.length })}`;
    if (data.streak) line += ` · ${t('challenge_streak', { n: data.streak })}`;
  }
  return h('section', { class: 'panel challenge-entry', testid: 'challenge-entry' },
    h('h2', {}, t('challenge_title')),
    h('p', { class: 'muted', testid: 'challenge-progress' }, line),
    h('a', { class: 'btn primary', href: '#/challenge', testid: 'challenge-link' },
      data && data.played === data.count ? t('challenge_results') : t('challenge_play')));
}

// A day's page: #/challenge (today) or #/challenge/YYYY-MM-DD.
export class ChallengeScreen extends DataScreen {
  constructor(app, day) {
    super(app);
    this.day = day && DAY.test(day) ? day : null;
    this.busy = false;
  }

  async load() {
    if (!this.app.user) await this.app.ensureUser();
    return get(this.day ? `/api/challenge/${this.day}` : '/api/challenge');
  }

  async play(deal) {
    if (this.busy) return;
    this.busy = true;
    this.render();
    try {
      const res = await post(`/api/challenge/${this.data.day}/deals/${deal.deal}`);
      location.hash = `#/t/${res.table_id}`;
    } catch (err) {
      this.error = errorText(err);
      this.busy = false;
      this.render();
    }
  }

  dealCard(d, data) {
    const title = t('challenge_deal_of', { i: d.deal, n: data.count });
    const seat = t('seat_n', { n: d.seat + 1 });
    let action = null;
    if (data.today && (d.status === 'new' || d.status === 'starting')) {
      action = h('button', { class: 'btn primary', testid: 'challenge-start', disabled: this.busy,
        onclick: () => this.play(d) }, t('challenge_start'));
    } else if (data.today && d.status === 'playing') {
      action = h('button', { class: 'btn primary', testid: 'challenge-resume', disabled: this.busy,
        onclick: () => this.play(d) }, t('challenge_resume'));
    }
    const mine = d.score !== undefined && d.score !== null
      ? h('p', { class: 'deal-score', testid: 'challenge-score' },
        t('challenge_your_score', { score: signed(d.score) }),
        (d.results || []).filter((r) => r.game_id === d.game_id).map((r) =>
          ` · ${t('challenge_mp', { mp: percent(r.matchpoints) })} · ${t('challenge_diff', { d: signed(r.difference) })}`))
      : null;
    return h('li', { class: `challenge-deal ${d.status}`, testid: 'challenge-deal',
      'data-deal': d.deal, 'data-status': d.status },
    h('h2', {}, title),
    h('p', { class: 'muted' }, seat, ' · ', t(`challenge_status_${d.status}`),
      ' · ', t('challenge_players_n', { n: d.players })),
    mine,
    d.results ? this.dealResults(d, data) : d.status === 'new' || d.status === 'playing'
      ? h('p', { class: 'muted small' }, t('challenge_hidden')) : null,
    action);
  }

  // Everyone's result on a deal (shown once the player has played it): the
  // distribution of scores as bars, and each player's line with his replay.
  dealResults(d, data) {
    const most = Math.max(1, ...d.distribution.map((b) => b.count));
    const bars = h('div', { class: 'distribution', testid: 'challenge-distribution',
      role: 'img', 'aria-label': t('challenge_distribution_label',
        { list: d.distribution.map((b) => `${signed(b.score)}×${b.count}`).join(', ') }) },
    d.distribution.map((b) => h('div', { class: `bar ${b.score === d.score ? 'mine' : ''}` },
      h('span', { class: 'bar-score' }, signed(b.score)),
      h('span', { class: 'bar-fill', style: { width: `${(100 * b.count) / most}%` } }),
      h('span', { class: 'bar-count' }, String(b.count)))));
    const rows = [...d.results].sort((a, b) => b.score - a.score).map((r) => h('tr',
      { class: r.game_id === d.game_id ? 'me' : '', testid: 'challenge-result' },
      h('td', {}, free(r.name)),
      h('td', { class: 'num' }, signed(r.score)),
      h('td', { class: 'num' }, percent(r.matchpoints)),
      h('td', { class: 'num' }, signed(r.difference)),
      h('td', {}, r.game_id ? h('a', { class: 'btn small', testid: 'challenge-compare',
        href: d.game_id && r.game_id !== d.game_id
          ? `#/challenge/${data.day}/${d.deal}/${d.game_id}/${r.game_id}`
          : `#/challenge/${data.day}/${d.deal}/${r.game_id}` },
      t(d.game_id && r.game_id !== d.game_id ? 'challenge_compare' : 'btn_replay')) : null)));
    return h('div', { class: 'deal-results' },
      h('h3', {}, t('challenge_distribution')), bars,
      h('details', { testid: 'challenge-results' },
        h('summary', {}, t('challenge_everyone', { n: d.results.length })),
        h('div', { class: 'table-scroll' }, h('table', { class: 'scores' },
          h('thead', {}, h('tr', {}, h('th', {}, t('col_player')), h('th', {}, t('col_score')),
            h('th', {}, t('challenge_col_mp')), h('th', {}, t('challenge_col_diff')),
            h('th', {}, h('span', { class: 'sr-only' }, t('btn_replay'))))),
          h('tbody', {}, rows)))));
  }

  ranking(data) {
    const me = this.app.user && this.app.user.id;
    if (!data.ranking.length) return h('p', { class: 'muted', testid: 'challenge-nobody' }, t('challenge_nobody'));
    return h('div', { class: 'table-scroll' }, h('table', { class: 'scores', testid: 'challenge-ranking' },
      h('thead', {}, h('tr', {}, h('th', {}, t('col_rank')), h('th', {}, t('col_player')),
        h('th', {}, t('challenge_col_played')), h('th', {}, t('challenge_col_mp')),
        h('th', {}, t('challenge_col_diff')))),
      h('tbody', {}, data.ranking.map((s) => h('tr', { class: s.user_id === me ? 'me' : '',
        testid: 'challenge-rank-row' },
      h('td', { class: 'num' }, String(s.rank)), h('td', {}, free(s.name)),
      h('td', { class: 'num' }, `${s.played}/${data.count}`),
      h('td', { class: 'num' }, percent(s.matchpoints)),
      h('td', { class: 'num' }, signed(s.difference)))))));
  }

  render() {
    clear(this.root);
    const data = this.data;
    const body = [];
    if (data) {
      body.push(h('p', { class: 'muted', testid: 'challenge-about' },
        t('challenge_about', { preset: t(`preset_${data.preset}`), bot: t(`bot_${data.bot}`),
          n: data.count })));
      body.push(h('p', { class: 'challenge-summary', testid: 'challenge-summary' },
        t('challenge_progress', { k: data.played, n: data.count }),
        data.you ? ` · ${t('challenge_rank', { rank: data.you.rank, n: data.ranking.length })}` : '',
        data.streak !== undefined ? ` · ${t('challenge_streak', { n: data.streak })}` : '',
        data.best ? ` · ${t('challenge_best', { mp: percent(data.best.matchpoints), day: data.best.day })}` : ''));
      body.push(h('ol', { class: 'challenge-deals', testid: 'challenge-deals' },
        data.deals.map((d) => this.dealCard(d, data))));
      body.push(h('h2', {}, t('challenge_ranking')), this.ranking(data));
      body.push(data.seed
        ? h('p', { class: 'muted small seed', testid: 'challenge-seed' },
          t('challenge_seed'), ' ', h('code', { translate: 'no' }, data.seed))
        : h('p', { class: 'muted small' }, t('challenge_seed_later')));
    }
    this.root.appendChild(h('section', { class: 'panel challenge', testid: 'challenge' },
      h('h1', {}, data ? `${t('challenge_title')} · ${data.day}` : t('challenge_title')),
      this.error ? h('p', { class: 'message bad', role: 'alert', testid: 'challenge-error' }, this.error) : null,
      data ? body : this.error ? null : h('p', {}, t('loading')),
      h('div', { class: 'row' },
        h('a', { class: 'btn', href: '#/challenge/days', testid: 'challenge-days-link' }, t('challenge_past')),
        data && !data.today ? h('a', { class: 'btn', href: '#/challenge' }, t('challenge_today')) : null,
        h('a', { class: 'btn', href: '#/' }, t('btn_lobby')))));
  }
}

// Past days: #/challenge/days.
export class ChallengeDaysScreen extends DataScreen {
  async load() {
    if (!this.app.user) await this.app.ensureUser();
    return get('/api/challenge/days');
  }

  render() {
    clear(this.root);
    const data = this.data;
    this.root.appendChild(h('section', { class: 'panel challenge', testid: 'challenge-days' },
      h('h1', {}, t('challenge_past')),
      this.error ? h('p', { class: 'message bad', role: 'alert' }, this.error) : null,
      data ? h('p', { class: 'muted' }, t('challenge_streak', { n: data.streak }),
        data.best ? ` · ${t('challenge_best', { mp: percent(data.best.matchpoints), day: data.best.day })}` : '')
        : null,
      data === null && !this.error ? h('p', {}, t('loading')) : null,
      data ? h('div', { class: 'table-scroll' }, h('table', { class: 'scores' },
        h('thead', {}, h('tr', {}, h('th', {}, t('challenge_col_day')), h('th', {}, t('challenge_col_players')),
          h('th', {}, t('col_rank')), h('th', {}, t('challenge_col_mp')))),
        h('tbody', {}, data.days.map((d) => h('tr', { testid: 'challenge-day-row' },
          h('td', {}, h('a', { href: `#/challenge/${d.day}` }, d.day)),
          h('td', { class: 'num' }, String(d.players)),
          h('td', { class: 'num' }, d.you ? String(d.you.rank) : '–'),
          h('td', { class: 'num' }, d.you ? percent(d.you.matchpoints) : '–')))))) : null,
      h('div', { class: 'row' },
        h('a', { class: 'btn', href: '#/challenge' }, t('challenge_today')),
        h('a', { class: 'btn', href: '#/' }, t('btn_lobby')))));
  }
}

// One deal's replays side by side from the deal's seat: #/challenge/DAY/N/GAME[/OTHER]
// (the player's own game, and another player's). Both follow the same keys.
export class ChallengeCompareScreen {
  constructor(app, day, deal, games) {
    this.app = app;
    this.day = day;
    this.deal = Number(deal);
    this.games = games.filter(Boolean);
    this.replays = [];
    this.error = null;
  }

  async mount(root) {
    this.root = root;
    let seat = null;
    try {
      const data = await get(`/api/challenge/${this.day}`);
      const deal = data.deals.find((d) => d.deal === this.deal);
      seat = deal ? deal.seat : null;
      this.names = Object.fromEntries(((deal && deal.results) || []).map((r) => [r.game_id, r.name]));
    } catch (err) {
      this.error = errorText(err);
    }
    clear(root);
    root.appendChild(h('div', { class: 'challenge-compare-head' },
      h('h1', {}, t('challenge_deal_of_day', { i: this.deal, day: this.day })),
      this.error ? h('p', { class: 'message bad', role: 'alert' }, this.error) : null,
      h('a', { class: 'btn', href: `#/challenge/${this.day}`, testid: 'challenge-back' },
        t('challenge_back'))));
    const row = h('div', { class: `challenge-compare n${this.games.length}`, testid: 'challenge-compare-view' });
    root.appendChild(row);
    for (const game of this.games) {
      const name = (this.names || {})[Number(game)];
      const pane = h('div', { class: 'compare-pane', testid: 'compare-pane' },
        name ? h('h2', {}, free(name)) : null);
      const inner = h('div', {});
      pane.appendChild(inner);
      row.appendChild(pane);
      const replay = new ReplayScreen(this.app, game);
      if (seat !== null) replay.perspective = String(seat);
      this.replays.push(replay);
      replay.mount(inner);
    }
  }

  render() {
    for (const replay of this.replays) replay.render();
  }

  unmount() {
    for (const replay of this.replays) replay.unmount();
  }
}

// The screen for a #/challenge/... route.
export function challengeRoute(app, parts) {
  const [, day, deal, ...games] = parts;
  if (day === 'days') return new ChallengeDaysScreen(app);
  if (day && DAY.test(day) && deal && games.length) {
    return new ChallengeCompareScreen(app, day, deal, games);
  }
  return new ChallengeScreen(app, day);
}
