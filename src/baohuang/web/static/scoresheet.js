// The score sheet shown when a game is over, with the running match totals.
import { free, h } from './dom.js';
import { t } from './i18n.js';
import { seatLabel } from './model.js';
import { reportButton } from './report.js';

// The i18n key of a seat's role in a finished game (its result).
export function roleKey(result, seat) {
  if (seat === result.emperor) {
    if (result.solo === 'open') return 'role_solo_open';
    if (result.solo === 'hidden') return 'role_solo_hidden';
    return 'role_emperor';
  }
  if (seat === result.guard) return 'role_guard';
  return 'role_rebel';
}

// A seat's own outcome: 'won', 'lost', 'draw' or 'left' (it left the game: 逃跑).
export function outcomeOf(result, seat) {
  if (result.left === seat) return 'left';
  if (result.royal_won === null || result.royal_won === undefined) return 'draw';
  const royal = seat === result.emperor || (!result.solo && seat === result.guard);
  return royal === result.royal_won ? 'won' : 'lost';
}

export function outcomeKey(result) {
  if (result.left !== null && result.left !== undefined) return 'outcome_left';
  if (result.royal_won === true) return result.solo ? 'outcome_solo_won' : 'outcome_royal_won';
  if (result.royal_won === false) return result.solo ? 'outcome_solo_lost' : 'outcome_rebels_won';
  return 'outcome_draw';
}

// 准备 between the games of a match (TableState `ready`): who is ready, when the next
// game is dealt anyway, and this seat's 准备 button; null at any other time.
export function readyBlock(ctx) {
  const tbl = ctx.table;
  const ready = tbl && tbl.ready;
  if (!ready || ctx.past) return null;
  const me = ctx.view ? ctx.view.seat : null;
  const mine = me !== null && me !== undefined;
  const iAmReady = mine && ready.seats.includes(me);
  const left = ctx.readyLeft ? ctx.readyLeft() : null;
  return h('div', { class: 'ready-block', testid: 'ready-block', role: 'status' },
    h('p', { class: 'note', testid: 'ready-countdown' }, left === null ? t('ready_all')
      : t('ready_countdown', { n: left })),
    mine && !iAmReady && ctx.on.ready
      ? h('button', { class: 'btn primary', testid: 'ready', onclick: ctx.on.ready },
        t('btn_ready')) : null,
    iAmReady ? h('p', { class: 'note ok', testid: 'ready-wait' }, t('ready_waiting_others'))
      : null);
}

// 举报 from the score sheet: a person at another seat (not a bot, not oneself).
function reportCell(ctx, seat) {
  const info = ctx.table && ctx.table.seats ? ctx.table.seats[seat] : null;
  if (!info || info.bot || info.user_id === null || info.user_id === undefined
      || seat === ctx.view.seat || !ctx.table.id) return null;
  return reportButton([{ id: info.user_id, name: info.name }],
    { place: 'scoresheet', table_id: ctx.table.id });
}

export function scoreSheet(ctx) {
  const { view } = ctx;
  const result = view.result;
  const over = ctx.gameOver || {};
  const totals = over.totals || null;
  const match = over.match || null;
  const ready = !ctx.past && ctx.table && ctx.table.ready;
  const rows = [0, 1, 2, 3, 4].map((seat) => {
    const score = result.scores[seat];
    const place = result.places[seat];
    const isReady = ready && ready.seats.includes(seat);
    return h('tr', { class: seat === view.seat ? 'me' : '', 'data-seat': seat },
      h('td', {}, free(seatLabel(ctx.table, seat))),
      h('td', {}, t(roleKey(result, seat)),
        (view.rebels || []).includes(seat) ? h('span', { class: 'hoe-mini', title: t('hoe_help') },
          ` ${t('badge_hoe')}`) : null),
      h('td', {}, place ? t(`place_${place}`) : '–'),
      h('td', { class: `num ${score > 0 ? 'pos' : score < 0 ? 'neg' : ''}` },
        h('span', { testid: 'score' }, score > 0 ? `+${score}` : String(score)),
        scoreCalc(view, result, seat)),
      totals ? h('td', { class: 'num total', testid: 'total' }, String(totals[seat])) : null,
      ready ? h('td', { class: `ready-state ${isReady ? 'ok' : ''}`, testid: 'ready-state',
        'data-ready': isReady ? 'true' : 'false' },
      t(isReady ? 'ready_mark' : 'ready_not_yet')) : null,
      h('td', { class: 'report-cell' }, reportCell(ctx, seat)));
  });
  const buttons = [];
  const rematch = ctx.table && ctx.table.rematch;
  if (ctx.on.again && !over.pending && (!match || match.over)) {
    const label = ctx.table && ctx.table.challenge ? 'btn_challenge_back'
      : rematch ? 'btn_join_rematch' : match && match.games > 1 ? 'btn_again_match'
        : 'btn_again';
    buttons.push(h('button', { class: 'btn primary', testid: 'again', onclick: ctx.on.again },
      t(label)));
  }
  if (ctx.on.review) {
    buttons.push(h('button', { class: 'btn', testid: 'review', onclick: ctx.on.review },
      t('btn_review')));
  }
  if (ctx.on.analyse && ctx.view.seat !== null && ctx.view.seat !== undefined) {
    buttons.push(h('button', { class: 'btn', testid: 'analyse', onclick: ctx.on.analyse },
      t('btn_analysis')));
  }
  if (ctx.on.closeScore) {
    buttons.push(h('button', { class: 'btn', testid: 'close-score', onclick: ctx.on.closeScore },
      t('btn_show_table')));
  }
  if (ctx.on.leave) {
    buttons.push(h('button', { class: 'btn', testid: 'back-lobby', onclick: ctx.on.leave },
      t('btn_lobby')));
  }
  const notes = [];
  if (over.scored === false) {
    notes.push(h('p', { class: 'note unscored', testid: 'unscored' }, t('game_unscored')));
  }
  if (match && match.status === 'dissolved' && ctx.table && ctx.table.dissolved
      && ctx.table.dissolved.reason === 'left') {
    const names = (ctx.table.dissolved.seats || []).map((s) => seatLabel(ctx.table, s)).join('、');
    notes.push(h('p', { class: 'note dissolved', testid: 'match-dissolved', role: 'alert' },
      t('match_dissolved_left', { names })));
  } else if (match && match.status === 'dissolved') {
    const names = (match.hosted || []).map((s) => seatLabel(ctx.table, s)).join('、');
    notes.push(h('p', { class: 'note dissolved', testid: 'match-dissolved', role: 'alert' },
      names ? t('match_dissolved', { names }) : t('match_dissolved_short')));
  } else if (match && match.games > 1) {
    notes.push(h('p', { class: 'match-line', testid: 'match-line' }, match.over
      ? t('match_finished_line', { n: match.games })
      : t('match_progress', { i: match.played, n: match.games })));
  }
  if (rematch && !ctx.past) {
    notes.push(h('p', { class: 'note', testid: 'rematch-ready' }, t('rematch_ready')));
  }
  const matchLine = notes;
  return h('div', { class: 'dialog score-sheet', testid: 'score-sheet', role: 'dialog',
    'aria-labelledby': 'score-title' },
  h('h2', { id: 'score-title' }, t('score_title')),
  h('p', { class: 'outcome' }, t(outcomeKey(result)),
    h('span', { class: 'stake-chip' }, t('stake_label'),
      h('b', { testid: 'sheet-stake' }, `×${resultStake(view, result)}`))),
  scoreStory(result),
  matchLine,
  h('table', { class: 'scores' },
    h('thead', {}, h('tr', {},
      h('th', {}, t('col_player')), h('th', {}, t('col_role')), h('th', {}, t('col_place')),
      h('th', {}, t('col_score')), totals ? h('th', {}, t('col_total')) : null,
      ready ? h('th', {}, t('col_ready')) : null,
      h('th', {}, h('span', { class: 'sr-only' }, t('btn_report'))))),
    h('tbody', {}, rows)),
  ready ? readyBlock(ctx) : match && !match.over && !ctx.past
    && !(ctx.table && ctx.table.status === 'dissolved')
    ? h('p', { class: 'note', testid: 'next-soon' }, t('next_game_soon')) : null,
  h('div', { class: 'choices' }, buttons));
}

// The stake the scores were multiplied by: the result's (the engine's), or for a result
// from before it said so, the view's.
function resultStake(view, result) {
  return result.stake ?? view.stake;
}

// How the points came about (the engine's ScoreParts): one share's points from the
// places, times the stake and what made it (明保 ×2, 明独 ×2, 造反 ×2, 踢 ×2 …).
function scoreStory(result) {
  if (!result.shares || result.shares.length !== 5) return null;   // (a leave ended it)
  const factors = (result.factors || []).map((f) => `${t(`factor_${f}`)} ×2`);
  return h('p', { class: 'score-story', testid: 'score-story', 'data-unit': result.unit,
    'data-stake': result.stake, 'data-factors': (result.factors || []).join(' ') },
  h('span', {}, t('score_story', { unit: result.unit, stake: result.stake })),
  h('span', {}, factors.length
    ? t('score_story_factors', { stake: result.stake, factors: factors.join(' · ') })
    : t('score_story_no_factors')));
}

// A seat's own line of the story: its shares × one share's points × the stake (and a
// leaving penalty), or null.
function scoreCalc(view, result, seat) {
  if (!result.shares || result.shares.length !== 5) return null;
  const share = result.shares[seat];
  const made = share * result.unit * result.stake;
  const penalty = made - result.scores[seat];
  return h('small', { class: 'calc', testid: 'score-calc', 'data-share': share },
    t('score_calc', { share, unit: result.unit, stake: result.stake }),
    penalty ? ` ${t('score_calc_left', { n: penalty })}` : null);
}
