// Role-phase decisions (选皇帝, 抢独, 叫侍卫, 明保/暗保, 明独/暗独, 造反, 踢) as a dialog
// built from the view's legal_actions.
import { h } from './dom.js';
import { t } from './i18n.js';
import { cardEl, cardName } from './cardview.js';

// The i18n key of a choice's label, given the stage (decline means different things).
export function choiceKey(stage, action) {
  if (action.kind === 'decline') return `choice_decline_${stage}`;
  if (action.kind === 'solo_open' && stage === 'emperor_solo') return 'choice_solo_open_early';
  if (action.kind === 'solo_open' && stage === 'call') return 'choice_solo_open_call';
  return `choice_${action.kind}`;
}

export function choiceHelpKey(stage, action, rules) {
  if (action.kind === 'abdicate') return `help_abdicate_${rules.abdication || 'none'}`;
  if (action.kind === 'decline') return `help_decline_${stage}`;
  if (action.kind === 'solo_open' && stage === 'call') return 'help_solo_open_call';
  return `help_${action.kind}`;
}

// The i18n key of the dialog's text: the stage's, or a variant that fits the rules
// (特画) and the player's role (his own Guard after calling a card he holds four of).
export function stageTextKey(view) {
  const stage = view.stage;
  const rules = view.rules || {};
  if (stage === 'call' && rules.called_card_high) return 'stage_text_call_high';
  if (stage === 'guard') {
    const legal = view.legal_actions || [];
    if (legal.length && legal.every((a) => a.kind === 'solo_hidden' || a.kind === 'solo_open')) {
      return legal.length === 1 ? 'stage_text_guard_solo' : 'stage_text_guard_solo_choice';
    }
    if ((view.hand || []).includes('TH')) return 'stage_text_guard_tehua';
  }
  return `stage_text_${stage}`;
}

// The cautious answer among a decision's choices: the one 托管 takes (docs/rules.md
// §10: 当皇帝, 暗保, 暗独, 不抢独, 不造反, 不踢, and a call of a card held three
// times).  It has the focus and Enter takes it; a risky choice takes a tap or its key.
const CAUTIOUS = ['accept', 'guard_hidden', 'solo_hidden', 'decline', 'abdicate'];

export function cautiousChoice(view) {
  const legal = view.legal_actions || [];
  for (const kind of CAUTIOUS) {
    const action = legal.find((a) => a.kind === kind);
    if (action) return action;
  }
  const calls = legal.filter((a) => a.kind === 'call');
  const hand = view.hand || [];
  return calls.find((a) => hand.filter((c) => c === a.cards[0]).length === 3) || calls[0]
    || legal[0];
}

// The dialog element.  send(action) is called with the chosen action.
// `timer`: the seconds left to answer, shown in the dialog's title (on a phone the
// dialog lies over one's own seat and its timer), or null.
export function decisionDialog(view, send, keyboard = true, timer = null) {
  const stage = view.stage;
  const rules = view.rules || {};
  const legal = view.legal_actions || [];
  const calls = legal.filter((a) => a.kind === 'call');
  const others = legal.filter((a) => a.kind !== 'call');
  const cautious = cautiousChoice(view);
  let n = 0;
  const buttons = others.map((action) => {
    n += 1;
    const label = t(choiceKey(stage, action));
    const stake = choiceStake(view, action);
    return h('button', {
      class: `decision ${action === cautious ? 'secondary cautious' : 'primary'}`,
      testid: 'decision',
      'data-choice': action.kind,
      'data-cautious': action === cautious ? 'true' : null,
      'data-key': n,
      onclick: () => send(action),
    },
    h('span', { class: 'key-hint' }, String(n)),
    h('span', { class: 'choice-label' }, label),
    h('span', { class: 'choice-help' }, t(choiceHelpKey(stage, action, rules))),
    stake === null ? null : h('span', { class: 'choice-stake', testid: 'choice-stake',
      'data-stake': stake }, t(choiceStakeKey(action), { n: stake })));
  });
  const callButtons = calls.map((action) => {
    n += 1;
    const card = action.cards[0];
    return h('button', {
      class: `decision call ${action === cautious ? 'cautious' : ''}`,
      testid: 'decision',
      'data-choice': 'call',
      'data-cautious': action === cautious ? 'true' : null,
      'data-card': card,
      'data-key': n,
      title: t('call_card', { card: cardName(card) }),
      onclick: () => send(action),
    }, h('span', { class: 'key-hint' }, String(n)), cardEl(card, { mini: true }));
  });
  return h('div', { class: 'dialog decision-dialog', role: 'dialog', 'aria-modal': 'false',
    'aria-labelledby': 'decision-title' },
  h('h2', { id: 'decision-title' }, t(`stage_title_${stage}`),
    h('span', { class: 'dialog-stake', testid: 'dialog-stake', 'data-stake': view.stake },
      t('dialog_stake', { n: view.stake })),
    timer !== null ? h('span', { class: `timer ${timer <= 5 ? 'urgent' : ''}`,
      testid: 'dialog-timer' }, t('seconds', { n: timer })) : null),
  h('p', { class: 'dialog-text' }, t(stageTextKey(view), stageParams(view))),
  whyKey(view) ? h('p', { class: 'dialog-why', testid: 'decision-why' }, t(whyKey(view)))
    : null,
  callButtons.length ? h('div', { class: 'call-grid' }, callButtons) : null,
  h('div', { class: 'choices' }, buttons),
  keyboard ? h('p', { class: 'dialog-keys' }, t('keys_decision')) : null);
}

function stageParams(view) {
  return { stake: view.stake, called: view.called ? cardName(view.called) : '' };
}

// The stake (倍数) a choice makes if it stands, as the engine counts it (the view's
// choice_stakes, one per legal action), or null when it leaves the stake as it is.
export function choiceStake(view, action) {
  const i = (view.legal_actions || []).indexOf(action);
  const stakes = view.choice_stakes || [];
  if (i < 0 || i >= stakes.length || stakes[i] === view.stake) return null;
  return stakes[i];
}

function choiceStakeKey(action) {
  if (action.kind === 'rebel') return 'choice_stake_rebel';
  if (action.kind === 'kick') return 'choice_stake_kick';
  return 'choice_stake';
}

// Why a decision offers one choice where it usually offers two (the i18n key of the
// reason), or null: the Emperor who cannot call a Guard or must not abdicate, the
// player who may not 抢独.
export function whyKey(view) {
  const legal = view.legal_actions || [];
  if (legal.length !== 1) return null;
  const kind = legal[0].kind;
  const rules = view.rules || {};
  if (view.stage === 'emperor' && kind === 'abdicate') return 'why_abdicate_only';
  if (view.stage === 'emperor' && kind === 'accept') {
    return rules.abdication === 'skip_two_if_solo' ? 'why_accept_only_guard_card'
      : 'why_accept_only_second_round';
  }
  if (view.stage === 'steal' && kind === 'decline') return 'why_no_steal';
  return null;
}
