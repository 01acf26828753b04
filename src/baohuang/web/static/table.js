// The table screen: connection, game state, selection and the UI's actions, drawing.
import { clear, free, h, morphChildren } from './dom.js';
import { t } from './i18n.js';
import { TableConnection } from './conn.js';
import { checkSelection, hintActions, indexesFor, readView } from './cards.js';
import { renderTable } from './tableview.js';
import { seatInfo, isRoleStage } from './model.js';
import { get, post } from './api.js';
import * as prefs from './prefs.js';
import { whoAreYou } from './invite.js';
import { keydown } from './tablekeys.js';
import { HandPicker } from './tablehand.js';
import { fitHands } from './handfit.js';
import { announceEvents } from './announce.js';
import { clearMoments, placeMoments, showMoments } from './moments.js';
import {
  chime, eventSound, extraInfo, hasKeyboard, renderLastScore, tableHeader, waitingRoom,
} from './tableparts.js';

const KNOWN_ERRORS = new Set([
  'malformed', 'too_large', 'unknown_type', 'invalid', 'rate_limited', 'login_required',
  'no_table', 'not_joined', 'not_seated', 'bad_seat', 'seat_taken', 'started', 'not_ready',
  'not_your_turn', 'illegal', 'bad_action', 'stale', 'unknown_bot', 'locked', 'not_allowed',
  'not_private', 'table_moving', 'not_stored',
]);
// the beat before auto-pass passes a turn where nothing beats the play (its note shows)
const AUTO_PASS_MS = 800;
// how long a table that went missing (a cluster moving it to another node) is asked for
const MOVING_WAIT_MS = 30000;

export class TableScreen {
  constructor(app, tableId, role) {
    this.app = app;
    this.tableId = tableId;
    this.role = role;
    this.table = null;
    this.you = { seat: null, watcher: role === 'watcher' };
    this.view = null;
    this.events = [];
    this.version = null;
    this.deadline = null;
    this.game = null;
    this.gameOver = null;
    this.lastGameOver = null;
    this.showLast = false;
    this.scoreHidden = false;
    this.selection = new Set();
    this.handKey = '';
    this.hintIndex = -1;
    this.message = null;
    this.answeredAt = null;     // the version at which this seat answered a decision
    this.status = 'connecting';
    this.onKey = (ev) => keydown(this, ev);
    this.hand = new HandPicker(this);
    this.onPointerMove = (ev) => this.hand.swipeMove(ev);
    this.onPointerUp = () => this.hand.swipeEnd();
    this.bubbles = {};          // seat -> {id, until}: quick phrases shown for a moment
    this.onResize = () => fitHands(this.root);
  }

  async mount(root) {
    this.root = root;
    document.addEventListener('keydown', this.onKey);
    document.addEventListener('pointermove', this.onPointerMove);
    document.addEventListener('pointerup', this.onPointerUp);
    document.addEventListener('pointercancel', this.onPointerUp);
    window.addEventListener('resize', this.onResize);
    this.ticker = setInterval(() => this.tick(), 500);
    this.render();
    if (this.role === 'player' && !this.app.user) {
      // someone who followed an invitation link says who they are before being seated
      await new Promise((resolve) => {
        this.askName = resolve;
        this.render();
      });
    }
    if (this.gone) return;
    this.conn = new TableConnection(this.tableId, this.role, {
      message: (msg) => this.receive(msg),
      status: (state) => this.setStatus(state),
    });
    this.conn.connect();
  }

  unmount() {
    this.gone = true;
    if (this.conn) this.conn.close();
    document.removeEventListener('keydown', this.onKey);
    document.removeEventListener('pointermove', this.onPointerMove);
    document.removeEventListener('pointerup', this.onPointerUp);
    document.removeEventListener('pointercancel', this.onPointerUp);
    window.removeEventListener('resize', this.onResize);
    clearInterval(this.ticker);
    clearTimeout(this.autoPassTimer);
    clearMoments();
    this.app.banner(null);
  }

  setStatus(state) {
    this.status = state;
    if (state === 'reconnecting') this.app.banner('banner_reconnecting', 'reconnect-banner');
    else this.app.banner(null);
  }

  // -- messages -------------------------------------------------------------
  receive(msg) {
    switch (msg.type) {
      case 'hello':
        if (msg.user) this.app.setUser(msg.user);
        this.readySentFor = null;      // (a new connection: the table says who is ready)
        // the server's clock less ours: deadlines are the server's unix times
        if (typeof msg.now === 'number') this.skew = msg.now - Date.now() / 1000;
        return;
      case 'table': {
        if (this.movingSince) {             // (back at the table: it has moved)
          this.movingSince = null;
          this.app.banner(null);
        }
        const wasHosted = this.myHosted();
        this.table = msg.table;
        this.deadline = msg.table.deadline ?? null;
        this.matchEnded(msg.table);
        if (msg.you) this.you = msg.you;
        if (!wasHosted && this.myHosted()) chime();
        break;
      }
      case 'snapshot':
        if ('deadline' in msg) this.deadline = msg.deadline;
        this.startView(msg);
        break;
      case 'update': {
        // what one action (or a resync) brought us: its events and our view's changes
        if (this.version !== null && msg.version <= this.version) return;   // seen already
        if (this.version === null || msg.since !== this.version
            || msg.game !== this.game || !this.view) {
          // something was missed: ask once for it, ignore the rest until it comes
          if (!this.resyncing) {
            this.resyncing = true;
            this.conn.resync();
          }
          return;
        }
        this.resyncing = false;
        this.version = msg.version;
        this.conn.version = msg.version;
        if ('deadline' in msg) this.deadline = msg.deadline;
        for (const ev of msg.events) this.events.push(ev);
        // the update carries only what changed in our view (docs/protocol.md, Views)
        const wasMine = this.view.to_act === this.view.seat;
        this.setView({ ...this.view, ...readView(msg.view), events: this.events });
        eventSound(this, msg.events, wasMine);
        announceEvents(this, msg.events, wasMine);
        showMoments(this.root, msg.events, this.table, this.view.seat);
        break;
      }
      case 'emote':
        this.emotesSeen = (this.emotesSeen || 0) + 1;
        if (!this.chatMuted()) {
          this.bubbles[msg.seat] = { id: msg.id, until: Date.now() + 4000 };
        }
        break;
      case 'chat':          // free text at a private table: drawn as text, never as markup
        if (!this.chatMuted()) {
          this.bubbles[msg.seat] = { text: msg.text, until: Date.now() + 6000 };
        }
        break;
      case 'pause':        // the server cannot store the table's writes for now: it waits
        this.app.banner(msg.paused ? 'banner_paused' : null, 'paused-banner');
        return;
      case 'game_over':
        this.gameOver = msg;
        this.scoreHidden = false;
        break;
      case 'error':
        if ((msg.code === 'no_table' || msg.code === 'table_moving') && this.moving(msg)) break;
        if (msg.ref === 'ready') this.readySentFor = null;     // (it may be sent again)
        this.answeredAt = null;           // a refused answer: the dialog comes back
        this.sentAt = null;               // (and may be given again)
        this.showError(msg);
        if (msg.code === 'stale') this.conn.resync();
        if (msg.code === 'no_table') {
          this.fatal = 'err_no_table';
        }
        break;
      default:
        return;
    }
    this.maybeAutoPass();
    this.render();
  }

  // A match that ended after its last game_over (a player left between the games
  // instead of 准备): the sheet shows it over, why, and the new-match button.
  matchEnded(tbl) {
    const over = this.gameOver;
    if (!over || !over.match || over.match.over || over.game !== tbl.game) return;
    if (tbl.status !== 'dissolved' && tbl.status !== 'finished') return;
    this.gameOver = { ...over, match: { ...over.match, over: true, status: tbl.status,
      reason: tbl.dissolved ? tbl.dissolved.reason : null,
      hosted: tbl.dissolved ? tbl.dissolved.seats : [] } };
  }

  // 准备: this seat is ready for the match's next game (sent once a wait).
  sendReady() {
    const tbl = this.table;
    if (!tbl || !tbl.ready || this.readySentFor === tbl.game) return;
    this.readySentFor = tbl.game;
    this.send({ type: 'ready' });
  }

  // Seconds until the next game is dealt anyway (the table's 准备 countdown), or null.
  readyLeft() {
    const ready = this.table && this.table.ready;
    if (!ready || ready.deadline === null || ready.deadline === undefined) return null;
    return Math.max(0, Math.ceil(ready.deadline - this.serverNow()));
  }

  // Auto-pass (prefs.js, on unless switched off): a turn whose only legal action is to
  // pass (the engine's legal_actions say so) shows a note and passes after AUTO_PASS_MS,
  // unless the player passes first or the turn is gone by then.
  maybeAutoPass() {
    const v = this.view;
    if (!this.myTurnToPlay() || !prefs.autoPassOn() || this.myHosted()) return;
    const legal = v.legal_actions || [];
    if (legal.length !== 1 || legal[0].kind !== 'pass') return;
    this.message = { key: 'auto_pass_note', cls: 'ok' };
    if (this.autoPassAt === this.version) return;      // (its beat is running)
    this.autoPassAt = this.version;
    const version = this.version;
    clearTimeout(this.autoPassTimer);
    this.autoPassTimer = setTimeout(() => {
      if (this.gone || this.version !== version || !this.myTurnToPlay()
          || !prefs.autoPassOn() || this.myHosted()) return;
      this.act({ kind: 'pass' });
    }, AUTO_PASS_MS);
  }

  toggleAutoPass() {
    prefs.toggleAutoPass();
    this.autoPassAt = null;
    this.maybeAutoPass();
    this.render();
  }

  // A table being taken over by another cluster node (`table_moving`, or `no_table` for
  // a table this screen was at): say so and join again, for up to MOVING_WAIT_MS.
  moving(msg) {
    if (msg.code === 'no_table' && this.table === null) return false;
    const now = Date.now();
    this.movingSince = this.movingSince || now;
    if (now - this.movingSince > MOVING_WAIT_MS) return false;
    this.app.banner('banner_moving', 'moving-banner');
    this.conn.rejoin(1000);
    return true;
  }

  startView(msg) {
    this.resyncing = false;
    if (this.game !== null && msg.game !== this.game && this.gameOver) {
      this.lastGameOver = { ...this.gameOver, view: this.view };
    }
    if (msg.game !== this.game) this.gameOver = null;
    this.game = msg.game;
    this.version = msg.version;
    this.conn.version = msg.version;
    this.events = msg.view.events || [];
    this.setView(readView(msg.view));
  }

  setView(view) {
    this.view = view;
    const key = (view.hand || []).join(' ');
    if (key !== this.handKey) {
      this.handKey = key;
      this.selection.clear();
      this.hintIndex = -1;
    }
    if (view.to_act !== view.seat) this.hintIndex = -1;
    this.message = null;
  }

  showError(msg) {
    const key = KNOWN_ERRORS.has(msg.code) ? `err_${msg.code}` : 'err_generic';
    this.message = { key, cls: 'bad', detail: msg.message };
  }

  send(msg) {
    if (this.conn) this.conn.send(msg);
  }

  act(action) {
    // one answer a version: a second tap (or auto-pass after a tap) sends nothing more
    if (this.sentAt === this.version) return;
    this.sentAt = this.version;
    this.message = null;
    // a decision's dialog closes once answered: the Guard's answer to 明保/暗保 is held by
    // the server until the decision's pause ends, and nothing else shows it was taken
    const deciding = this.view && isRoleStage(this.view.stage);
    if (deciding) this.answeredAt = this.version;
    this.send({ type: 'act', action, version: this.version });
    if (deciding) this.render();
  }

  // -- actions from the UI --------------------------------------------------
  myTurnToPlay() {
    const v = this.view;
    return v && v.seat !== null && v.stage === 'play' && v.to_act === v.seat;
  }

  play() {
    if (!this.myTurnToPlay()) return;
    const cards = [...this.selection].map((i) => this.view.hand[i]);
    const check = checkSelection(cards, this.view);
    if (!check.ok) {
      this.message = { key: check.reason, params: check.params, cls: 'bad' };
      this.render();
      return;
    }
    this.act({ kind: 'play', cards });
  }

  pass() {
    if (!this.myTurnToPlay()) return;
    if (!(this.view.legal_actions || []).some((a) => a.kind === 'pass')) {
      this.message = { key: 'why_must_lead', cls: 'bad' };
      this.render();
      return;
    }
    this.act({ kind: 'pass' });
  }

  soundOn() {
    return prefs.soundOn();
  }

  toggleSound() {
    prefs.toggleSound();
    this.render();
  }

  // Quick phrases: each player can mute them (remembered in this browser).
  chatMuted() {
    return localStorage.getItem('bh_mute_chat') === '1';
  }

  muteChat() {
    localStorage.setItem('bh_mute_chat', this.chatMuted() ? '0' : '1');
    this.render();
  }

  hint() {
    if (!this.myTurnToPlay()) return;
    const plays = hintActions(this.view);
    if (!plays.length) {
      this.message = { key: 'hint_none', cls: 'bad' };
      this.render();
      return;
    }
    this.hintIndex = (this.hintIndex + 1) % plays.length;
    const idx = indexesFor(this.view.hand, plays[this.hintIndex].cards);
    this.selection = new Set(idx || []);
    this.message = null;
    this.render();
  }

  mySeat() {
    return this.view && this.view.seat !== null && this.view.seat !== undefined
      ? this.view.seat : this.you.seat;
  }

  myHosted() {
    const seat = this.mySeat();
    if (seat === null || seat === undefined || !this.table) return false;
    return seatInfo(this.table, seat).hosted;
  }

  hosted() {
    const info = seatInfo(this.table, this.mySeat());
    if (info.hosted && info.hostedLocked) {
      this.message = { key: 'hosted_banner_locked', cls: 'bad' };
      this.render();
      return;
    }
    this.send({ type: 'hosted', on: !info.hosted });
  }

  leave() {
    const playing = this.view && this.view.stage !== 'over' && this.view.seat !== null
      && this.table && this.table.status === 'playing';
    if (playing && !window.confirm(t('confirm_leave'))) return;
    if (this.you.seat !== null && this.table && this.table.status !== 'finished') {
      this.send({ type: 'leave' });
    }
    setTimeout(() => { location.hash = '#/'; }, 50);
  }

  // After the match (finished or dissolved): a new match for the same players at a new
  // table, one click for everyone (the first click opens it, the others join it); a
  // watcher gets a new game against bots.
  async again() {
    const tbl = this.table;
    if (tbl && tbl.challenge) {          // 每日挑战: a deal is played once; back to the day
      location.hash = `#/challenge/${tbl.challenge.day}`;
      return;
    }
    if (tbl && tbl.rematch) {
      // (a private table's new match is entered with its code: a watcher is no member)
      location.hash = `#/t/${tbl.private ? tbl.rematch.code : tbl.rematch.id}`;
      return;
    }
    if (tbl && this.you.seat !== null && this.you.seat !== undefined) {
      try {
        const res = await post(`/api/tables/${tbl.id}/rematch`, {});
        location.hash = `#/t/${res.id}`;
        return;
      } catch { /* then a game against bots */ }
    }
    const bot = [1, 2, 3, 4].map((s) => seatInfo(this.table, s).bot).find(Boolean);
    try {
      const res = await post('/api/quickplay', bot ? { bots: bot } : {});
      location.hash = `#/t/${res.id}`;
    } catch {
      this.message = { key: 'err_generic', cls: 'bad' };
      this.render();
    }
  }

  // The replay of the game just ended (with `analyse`, its 复盘 for my seat).
  async review(analyse = false) {
    try {
      const data = await get('/api/history?limit=50');
      const game = (data.games || []).find((g) => g.table_id === (this.table && this.table.id)
        && g.index === (this.gameOver || this.lastGameOver || {}).game);
      const pick = game || (data.games || [])[0];
      if (pick && analyse) location.hash = `#/replay/${pick.game_id}/review/${pick.seat}`;
      else if (pick) location.hash = `#/replay/${pick.game_id}`;
      else location.hash = '#/history';
    } catch {
      location.hash = '#/history';
    }
  }

  // -- drawing ----------------------------------------------------------------
  timerLeft(seat) {
    if (!this.deadline || !this.view || this.view.to_act !== seat) return null;
    const most = this.table && this.table.timeout ? Math.ceil(this.table.timeout) : Infinity;
    return Math.min(most, Math.max(0, Math.ceil(this.deadline - this.serverNow())));
  }

  // The server's unix time now, as far as this page can tell (its hello said its time).
  serverNow() {
    return Date.now() / 1000 + (this.skew || 0);
  }

  tick() {
    const now = Date.now();
    const expired = Object.entries(this.bubbles).filter(([, b]) => b.until <= now);
    if (expired.length) {
      for (const [seat] of expired) delete this.bubbles[seat];
      this.render();
    }
    if (!this.root) return;
    const readyLeft = this.readyLeft();
    if (readyLeft !== null) {
      for (const el of this.root.querySelectorAll('[data-testid="ready-countdown"]')) {
        el.textContent = t('ready_countdown', { n: readyLeft });
      }
    }
    const seat = this.view ? this.view.to_act : null;
    const left = this.timerLeft(seat);
    if (left === null) return;
    // (the seat's timer, and the decision dialog's, which lies over one's own seat)
    for (const el of this.root.querySelectorAll(
      '[data-testid="timer"], [data-testid="dialog-timer"]')) {
      el.textContent = t('seconds', { n: left });
      el.classList.toggle('urgent', left <= 5);
    }
  }

  render() {
    if (!this.root) return;
    const focusedKey = document.activeElement && document.activeElement.dataset
      ? document.activeElement.dataset.testid : null;
    // (a control disabled under the focus — the play button once the turn has passed —
    // loses it to the page: it is given back when the control is enabled again)
    const onPage = !document.activeElement || document.activeElement === document.body;
    const focused = focusSelector(this.root) || (onPage ? this.heldFocus : null);
    this.heldFocus = null;
    // (redrawing empties the page for a moment: keep where it was scrolled to, or a
    // tap on a card low on a phone's page would jump it to the top)
    const scrolled = window.scrollY;
    // (a table in play fills the window: style.css, .screen.playing)
    this.root.classList.toggle('playing', Boolean(this.view) && !this.askName && !this.fatal);
    if (this.askName || this.fatal || !this.view) {
      clear(this.root);
      this.root.appendChild(tableHeader(this));
    }
    if (this.askName) {
      this.root.appendChild(whoAreYou(this.app, this.tableId, () => {
        const go = this.askName;
        this.askName = null;
        go();
      }));
      return;
    }
    if (this.fatal) {
      this.root.appendChild(h('div', { class: 'panel' }, h('p', {}, t(this.fatal)),
        h('a', { href: '#/', class: 'btn' }, t('btn_lobby'))));
      return;
    }
    if (!this.view) {
      this.root.appendChild(this.table ? waitingRoom(this) : h('div', { class: 'panel' },
        t('connecting')));
      return;
    }
    const ctx = {
      view: this.view,
      table: this.table,
      selection: this.selection,
      message: this.message,
      gameOver: this.gameOver || this.gameOverFromTable(),
      hideScore: this.scoreHidden,
      openHands: this.view.stage === 'over' ? this.view.hands : null,
      answered: this.answeredAt !== null && this.answeredAt === this.version,
      logOpen: this.logOpen,
      // 记牌器: a table option (TableState counter), the same for every seat
      counterOn: !this.table || this.table.counter !== false,
      emoteOpen: this.emoteOpen,
      chatMuted: this.chatMuted(),
      bubbles: this.chatMuted() ? {} : Object.fromEntries(Object.entries(this.bubbles)
        .filter(([, b]) => b.until > Date.now())),
      chatAllowed: Boolean(this.table && this.table.private),
      chatDraft: this.chatDraft || '',
      peekOpen: this.peekOpen,
      keyboard: hasKeyboard(),
      timerLeft: (seat) => this.timerLeft(seat),
      readyLeft: () => this.readyLeft(),
      extraInfo: extraInfo(this),
      on: {
        toggleCard: (i) => this.hand.toggle(i),
        play: () => this.play(),
        pass: () => this.pass(),
        hint: () => this.hint(),
        askLead: () => this.act({ kind: 'ask_lead' }),
        decide: (action) => this.act(action),
        hosted: () => this.hosted(),
        leave: () => this.leave(),
        review: () => this.review(),
        analyse: () => this.review(true),
        again: () => this.again(),
        ready: () => this.sendReady(),
        closeScore: () => { this.scoreHidden = true; this.render(); },
        logToggle: (open) => { this.logOpen = open; },
        peek: (open) => { this.peekOpen = open; this.render(); },
        pickRank: (indexes) => this.hand.pickRank(indexes),
        swipeStart: (ev) => this.hand.swipeStart(ev),
        emoteToggle: () => { this.emoteOpen = !this.emoteOpen; this.render(); },
        emote: (id) => { this.send({ type: 'emote', id }); this.emoteOpen = false; this.render(); },
        muteChat: () => this.muteChat(),
        chat: (text) => {
          this.send({ type: 'chat', text });
          this.chatDraft = '';
          this.emoteOpen = false;
          this.render();
        },
        chatDraft: (text) => { this.chatDraft = text; },
      },
    };
    // (drawn anew, changed in place: what a message leaves as it was stays in the page)
    morphChildren(this.root, [tableHeader(this), renderTable(ctx),
      this.showLast && this.lastGameOver ? h('div', { class: 'overlay', onclick: (e) => {
        if (e.target === e.currentTarget) { this.showLast = false; this.render(); }
      } }, renderLastScore(this)) : null]);
    fitHands(this.root);
    placeMoments(this.root);
    // (a redraw keeps what is being typed into the chat line, and the caret at its end)
    const line = focusedKey === 'chat-input' && this.root.querySelector('[data-testid=chat-input]');
    if (line) {
      line.focus({ preventScroll: true });
      line.setSelectionRange(line.value.length, line.value.length);
    }
    // the focus stays on the control it was on (the same button, rank or card, drawn
    // anew); a decision's focus is otherwise on its cautious answer: Enter takes it,
    // never a risky one
    const again = focused && focusedKey !== 'chat-input' && this.root.querySelector(focused);
    const safe = this.root.querySelector('[data-testid="decision"][data-cautious]');
    if (again && again.disabled) this.heldFocus = focused;
    else if (again) again.focus({ preventScroll: true });
    else if (safe) safe.focus({ preventScroll: true });
    if (window.scrollY !== scrolled) window.scrollTo(0, scrolled);
  }

  // After a reload at a finished game there is no game_over message: the table has the totals.
  gameOverFromTable() {
    const tbl = this.table;
    if (!tbl || !this.view || this.view.stage !== 'over') return null;
    if (tbl.status === 'playing' && (tbl.games_played ?? 0) <= (this.game ?? 0)) {
      // the game is over but its game_over (and the table's new totals) is still on its
      // way: no totals rather than last game's
      return { pending: true };
    }
    return { totals: tbl.totals, scored: tbl.last_scored, match: { games: tbl.games,
      played: tbl.games_played, over: tbl.status === 'finished' || tbl.status === 'dissolved',
      status: tbl.status, hosted: tbl.dissolved ? tbl.dissolved.seats : [] } };
  }
}

// A selector for the focused control inside `root` that finds it again once redrawn:
// its data-testid and what tells it from its likes (a decision's choice and card, a
// rank's button, a card's place in the hand), or null.
function focusSelector(root) {
  const el = document.activeElement;
  if (!el || el === document.body || !root.contains(el) || !el.dataset.testid) return null;
  let sel = `[data-testid="${el.dataset.testid}"]`;
  for (const key of ['choice', 'card', 'rank', 'index', 'id']) {
    const value = el.dataset[key];
    if (value !== undefined) sel += `[data-${key}="${CSS.escape(value)}"]`;
  }
  return sel;
}
