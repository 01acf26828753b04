// History of my finished games and the move-by-move replay of one game.
import { clear, free, h } from './dom.js';
import { t } from './i18n.js';
import { get } from './api.js';
import { errorText } from './errors.js';
import { DataScreen } from './screen.js';
import { renderTable } from './tableview.js';
import { fitHands } from './handfit.js';
import { describeEvent } from './events.js';
import { botLevel } from './model.js';
import { outcomeOf, roleKey } from './scoresheet.js';
import { ReviewLoader, bestSelection, reviewPanel } from './review.js';
import { reportButton } from './report.js';

export class HistoryScreen extends DataScreen {
  async load() {
    return (await get('/api/history?limit=50')).games || [];
  }

  render() {
    clear(this.root);
    const rows = (this.data || []).map((g) => historyRow(g));
    this.root.appendChild(h('section', { class: 'panel history' },
      h('h1', {}, t('history_title')),
      this.error ? h('p', { class: 'message bad' }, this.error) : null,
      this.data === null ? h('p', {}, t('loading'))
        : this.data.length ? h('div', { class: 'table-scroll' }, h('table', { class: 'scores' },
          h('thead', {}, h('tr', {}, h('th', {}, t('col_time')), h('th', {}, t('col_role')),
            h('th', {}, t('col_result')), h('th', {}, t('col_place')), h('th', {}, t('col_score')),
            h('th', {}, h('span', { class: 'sr-only' }, t('btn_replay'))))),
          rows))
          : h('p', { class: 'muted' }, t('history_empty')),
      h('a', { class: 'btn', href: '#/' }, t('btn_lobby'))));
  }
}

// One finished game of mine: when, my role, won or lost, my place, my points and the
// replay; under them, who played (bots by their level, not their id).
function historyRow(g) {
  const result = g.result || {};
  const outcome = outcomeOf(result, g.seat);
  const players = (g.players || []).map((p, i) => [i ? '、' : '',
    p.seat === g.seat ? free(p.name, 'strong')
      : p.bot ? t('bot_level_name', { n: p.seat + 1, level: botLevel(p.bot) })
        : free(p.name)]);
  return h('tbody', { testid: 'history-row', 'data-game': g.game_id }, h('tr', {},
    h('td', {}, new Date(g.finished * 1000).toLocaleString(
      document.documentElement.lang === 'en' ? 'en-GB' : 'zh-CN')),
    h('td', { testid: 'history-role' }, result.scores ? t(roleKey(result, g.seat)) : '–'),
    h('td', { testid: 'history-outcome', class: outcome === 'won' ? 'pos' : outcome === 'lost' ? 'neg' : '' },
      t(`outcome_mine_${outcome}`)),
    h('td', { testid: 'history-place' }, g.place ? t(`place_${g.place}`) : t('place_none')),
    h('td', { class: `num ${g.score > 0 ? 'pos' : g.score < 0 ? 'neg' : ''}`, testid: 'history-score' },
      g.score > 0 ? `+${g.score}` : String(g.score)),
    h('td', { class: 'row-links' },
      h('a', { class: 'btn small', href: `#/replay/${g.game_id}`, testid: 'replay-link' },
        t('btn_replay')),
      h('a', { class: 'btn small', href: `#/replay/${g.game_id}/review/${g.seat}`,
        testid: 'review-link' }, t('btn_analysis')))),
  h('tr', { class: 'players' }, h('td', { colspan: 6, testid: 'history-players' },
    t('history_players'), players, ' ',
    reportButton((g.players || []).filter((p) => p.seat !== g.seat && !p.bot && p.user_id)
      .map((p) => ({ id: p.user_id, name: p.name })), { place: 'history', game_id: g.game_id }))));
}

export class ReplayScreen {
  // `reviewSeat`: the seat whose review (复盘) is shown on the replay, or null.
  constructor(app, gameId, reviewSeat = null) {
    this.app = app;
    this.gameId = gameId;
    this.reviewSeat = /^[0-4]$/.test(String(reviewSeat)) ? Number(reviewSeat) : null;
    this.loader = null;
    this.data = null;
    this.step = 0;
    this.perspective = 'all';
    this.error = null;
    this.timer = null;
    this.onKey = (ev) => this.keydown(ev);
  }

  async mount(root) {
    this.root = root;
    document.addEventListener('keydown', this.onKey);
    if (this.reviewSeat !== null) {
      this.perspective = String(this.reviewSeat);
      this.loader = new ReviewLoader(this.gameId, this.reviewSeat, () => this.render());
      this.loader.start();
    }
    this.render();
    try {
      // (it opens at the deal, as the game began: its end is one key away, End)
      this.data = await get(`/api/games/${encodeURIComponent(this.gameId)}/replay`);
      this.step = 0;
    } catch (err) {
      this.error = errorText(err);
    }
    this.render();
  }

  unmount() {
    document.removeEventListener('keydown', this.onKey);
    clearInterval(this.timer);
    if (this.loader) this.loader.stop();
  }

  steps() {
    if (!this.data) return [];
    const steps = [...(this.data.steps || [])];
    if (this.data.start) steps.unshift({ action: null, seat: null, ...this.data.start });
    return steps;
  }

  go(step) {
    const n = this.steps().length;
    this.step = Math.max(0, Math.min(n - 1, step));
    this.render();
  }

  toggleAuto() {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    } else {
      this.timer = setInterval(() => {
        if (this.step >= this.steps().length - 1) this.toggleAuto();
        else this.go(this.step + 1);
      }, 700);
    }
    this.render();
  }

  keydown(ev) {
    if (ev.target && ['INPUT', 'SELECT', 'TEXTAREA'].includes(ev.target.tagName)) return;
    if (ev.key === 'ArrowRight') this.go(this.step + 1);
    else if (ev.key === 'ArrowLeft') this.go(this.step - 1);
    else if (ev.key === 'Home') this.go(0);
    else if (ev.key === 'End') this.go(this.steps().length - 1);
    else return;
    ev.preventDefault();
  }

  // Events up to the current step, rebuilt from the actions (a step's view has no
  // event list): one event per action, and a 'lead' whenever a round ended.
  stepEvents(steps) {
    const events = [];
    for (let i = 0; i <= this.step; i += 1) {
      const step = steps[i];
      const before = i > 0 ? (steps[i - 1].view || {}).stage : 'emperor';
      if (step.action) events.push(actionAsEvent(step, before));
      const v = step.view || {};
      if (v.stage === 'play' && !v.last_play && step.action
        && (step.action.kind === 'pass' || step.action.kind === 'ask_lead')) {
        events.push({ type: 'lead', seat: v.leader, reason: 'round' });
      }
      if (v.stage === 'over' && i === this.step) events.push({ type: 'over' });
    }
    return events;
  }

  // The view to draw at the current step from the chosen perspective.
  stepView() {
    const steps = this.steps();
    const step = steps[this.step];
    const base = { ...step.view, events: this.stepEvents(steps) };
    const hands = step.hands || {};
    const result = this.data.result || {};
    const rolesKnown = base.emperor !== null && base.emperor !== undefined
      && !['emperor', 'emperor_solo', 'steal', 'call'].includes(base.stage);
    if (this.perspective === 'all' || this.perspective === 'spectator') {
      const all = this.perspective === 'all';
      const view = { ...base, seat: null, hand: [], legal_actions: [] };
      if (all && rolesKnown) {
        view.guard = result.guard ?? view.guard;
        view.solo = view.solo ?? result.solo;
      }
      return { view, openHands: all ? hands : null, step };
    }
    const seat = Number(this.perspective);
    let role = null;
    if (rolesKnown) {
      if (seat === base.emperor) role = 'emperor';
      else if (seat === result.guard) role = 'guard';
      else role = 'rebel';
    }
    const view = { ...base, seat, hand: hands[String(seat)] || [], role, legal_actions: [] };
    if (rolesKnown && seat === result.guard) view.guard = seat;
    return { view, openHands: null, step };
  }

  render() {
    clear(this.root);
    if (this.error) {
      this.root.appendChild(h('div', { class: 'panel' }, h('p', { class: 'message bad' }, this.error),
        h('a', { class: 'btn', href: '#/history' }, t('nav_history'))));
      return;
    }
    if (!this.data) {
      this.root.appendChild(h('div', { class: 'panel' }, t('loading')));
      return;
    }
    const steps = this.steps();
    const { view, openHands, step } = this.stepView();
    const table = { seats: (this.data.players || []).map((p) => ({ ...p, connected: true })),
      rules: this.data.rules };
    const persp = h('select', { testid: 'replay-seat', 'aria-label': t('replay_perspective'),
      onchange: (e) => { this.perspective = e.target.value; this.render(); } },
    h('option', { value: 'all', selected: this.perspective === 'all' }, t('replay_all_open')),
    h('option', { value: 'spectator', selected: this.perspective === 'spectator' },
      t('replay_spectator')),
    [0, 1, 2, 3, 4].map((s) => h('option', { value: String(s), selected: this.perspective === String(s) },
      t('replay_from_seat', { n: s + 1 }))));
    const actionText = step.action
      ? describeEvent(actionAsEvent(step, this.step > 0 ? steps[this.step - 1].view.stage
        : 'emperor'), table) : t('replay_deal');
    const bar = h('div', { class: 'replay-bar', testid: 'replay-bar' },
      h('button', { class: 'btn small', testid: 'replay-first', onclick: () => this.go(0), title: t('replay_first') }, '|◀'),
      h('button', { class: 'btn small', testid: 'replay-prev', onclick: () => this.go(this.step - 1),
        title: t('replay_prev') }, '◀'),
      h('button', { class: 'btn small', testid: 'replay-auto', onclick: () => this.toggleAuto() },
        this.timer ? t('replay_pause') : t('replay_play')),
      h('button', { class: 'btn small', testid: 'replay-next', onclick: () => this.go(this.step + 1),
        title: t('replay_next') }, '▶'),
      h('button', { class: 'btn small', testid: 'replay-last',
        onclick: () => this.go(steps.length - 1), title: t('replay_last') }, '▶|'),
      h('input', { type: 'range', min: 0, max: steps.length - 1, value: this.step,
        'aria-label': t('replay_step'), testid: 'replay-slider',
        oninput: (e) => this.go(Number(e.target.value)) }),
      h('span', { class: 'step-no', testid: 'replay-step' },
        t('replay_step_n', { i: this.step + 1, n: steps.length })),
      persp);
    this.root.appendChild(h('div', { class: 'replay' },
      h('div', { class: 'replay-head' },
        h('h1', {}, this.reviewSeat !== null ? t('review_heading') : t('replay_title')),
        h('a', { class: 'btn small', href: '#/history' }, t('nav_history'))),
      bar,
      this.loader ? reviewPanel(this.loader, this.step, steps.length, (i) => this.go(i)) : null,
      h('p', { class: 'replay-action', testid: 'replay-action' }, actionText),
      renderTable({
        view, table, openHands, readonly: true,
        selection: this.loader && view.seat === this.reviewSeat
          ? bestSelection(this.loader, this.step, view.hand) : new Set(),
        gameOver: { totals: null }, hideScore: view.stage !== 'over',
        on: {},
      })));
    fitHands(this.root);
  }
}

// An action of the record as an event, for the replay's text and log.  ``stage`` is
// the stage the action was taken in (a decline means something different in each).
function actionAsEvent(step, stage) {
  const a = step.action;
  const declines = {
    emperor_solo: 'decline_solo', steal: 'decline_steal', rebellion: 'no_rebel', kick: 'no_kick',
  };
  const kinds = {
    play: 'play', pass: 'pass', accept: 'accept', abdicate: 'abdicate', steal: 'steal',
    call: 'call', guard_open: 'guard', guard_hidden: 'guard', solo_open: 'solo',
    solo_hidden: 'guard', rebel: 'rebel', kick: 'kick', ask_lead: 'ask_lead', leave: 'leave',
    decline: declines[stage] || 'decline',
  };
  return { type: kinds[a.kind] || a.kind, seat: a.seat ?? step.seat, cards: a.cards,
    card: a.cards && a.cards[0], open: a.kind === 'guard_open' || a.kind === 'solo_open',
    action: a.kind };
}
