// The application shell: header, language toggle, user, router, banner.
import { applyStatic, getLang, onLangChange, setLang, t } from './i18n.js';
import { ApiError, get, post } from './api.js';
import { clear, free, h } from './dom.js';
import { LobbyScreen } from './lobby.js';
import { TableScreen } from './table.js';
import { HistoryScreen, ReplayScreen } from './replay.js';
import { LeaderboardScreen, ProfileScreen } from './progress.js';
import { challengeRoute } from './challenge.js';
import { ClubEveningScreen, ClubJoinScreen, ClubMemberScreen, ClubScreen, ClubsScreen,
  startClubNotices } from './clubs.js';
import { ModerationScreen } from './moderation.js';
import { clearAnnouncements } from './announce.js';
import './prefs.js';   // <html data-motion> before the first screen

class App {
  constructor() {
    this.user = null;
    this.rules = null;
    this.bots = null;
    this.screen = null;
    this.bannerKey = null;
    this.main = document.getElementById('app');
  }

  async start() {
    document.documentElement.lang = getLang() === 'zh' ? 'zh-CN' : 'en';
    applyStatic();
    document.querySelector('[data-testid="lang-toggle"]').addEventListener('click', () => {
      setLang(getLang() === 'zh' ? 'en' : 'zh');
    });
    onLangChange(() => {
      applyStatic();
      this.renderUser();
      this.renderBanner();
      if (this.screen) this.screen.render();
    });
    window.addEventListener('hashchange', () => this.route());
    try {
      // (?optional=1: no session is an answer, null, not an error for the console)
      this.user = await get('/api/me?optional=1');
    } catch {
      this.user = null;
    }
    this.renderUser();
    this.route();
    this.clubNotices = startClubNotices(this);
  }

  setUser(user) {
    this.user = user;
    this.renderUser();
  }

  // A session for playing: the current user, or a new guest.
  async ensureUser(name, force = false) {
    if (this.user && !force) return this.user;
    const guestName = name || `${t('guest_default')}${Math.floor(100 + Math.random() * 900)}`;
    const res = await post('/api/guest', { name: guestName });
    this.setUser(res.user);
    return res.user;
  }

  async loadRules() {
    if (!this.rules) {
      this.rules = await get('/api/rules');
      this.bots = this.rules.bot_levels || null;
    }
    return this.rules;
  }

  renderUser() {
    const box = document.getElementById('user');
    clear(box);
    if (this.user) {
      const title = this.user.title ? this.user.title[getLang()] : '';
      box.appendChild(h('span', { class: 'user', testid: 'user' }, free(this.user.name, 'strong'),
        title ? h('span', { class: 'level' }, title) : null));
      // (moderators and admins: their page, 管理)
      if (this.user.role === 'moderator' || this.user.role === 'admin') {
        box.appendChild(h('a', { class: 'mod-link', href: '#/mod', testid: 'mod-link' }, t('nav_mod')));
      }
    }
  }

  banner(key, testid) {
    this.bannerKey = key ? { key, testid } : null;
    this.renderBanner();
  }

  renderBanner() {
    const el = document.getElementById('banner');
    clear(el);
    el.hidden = !this.bannerKey;
    if (this.bannerKey) {
      el.dataset.testid = this.bannerKey.testid || 'banner';
      el.appendChild(h('span', { class: 'spinner' }));
      el.appendChild(document.createTextNode(t(this.bannerKey.key)));
    } else {
      delete el.dataset.testid;
    }
  }

  route() {
    const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
    if (this.screen) this.screen.unmount();
    clear(this.main);
    clearAnnouncements();
    document.querySelector('[data-testid="report-dialog"]')?.remove();
    const [kind, arg] = parts;
    let screen;
    if ((kind === 't' || kind === 'w') && arg) {
      screen = new TableScreen(this, arg, kind === 'w' ? 'watcher' : 'player');
      this.loadRules().catch(() => {});
    } else if (kind === 'history') screen = new HistoryScreen(this);
    else if (kind === 'replay' && arg) {
      screen = new ReplayScreen(this, arg, parts[2] === 'review' ? parts[3] : null);
    }
    else if (kind === 'leaderboard') screen = new LeaderboardScreen(this);
    else if (kind === 'u' && arg) screen = new ProfileScreen(this, arg);
    else if (kind === 'challenge') screen = challengeRoute(this, parts);
    else if (kind === 'clubs') screen = new ClubsScreen(this);
    else if (kind === 'club-join' && arg) screen = new ClubJoinScreen(this, arg);
    else if (kind === 'club' && arg && parts[2] === 'm' && parts[3]) {
      screen = new ClubMemberScreen(this, arg, parts[3]);
    } else if (kind === 'club' && arg && parts[2] === 'evening') {
      screen = new ClubEveningScreen(this, arg, parts[3]);
    } else if (kind === 'club' && arg) screen = new ClubScreen(this, arg);
    else if (kind === 'mod') screen = new ModerationScreen(this);
    else screen = new LobbyScreen(this);
    this.screen = screen;
    document.body.dataset.screen = screen.constructor.name.replace('Screen', '').toLowerCase();
    // each screen draws into an element of its own: a screen still loading when the
    // user left it (the lobby's table list, say) then draws where nobody sees it, not
    // over the screen the user went on to
    const root = h('div', { class: 'screen' });
    this.main.appendChild(root);
    screen.mount(root);
  }
}

const app = new App();
window.baohuang = app;
app.start().catch((err) => {
  if (!(err instanceof ApiError)) console.error(err);
});

// The service worker (sw.js) keeps the client's files, so that the page opens offline and
// installs as an app; a new build of the client brings a new worker.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js').catch(() => { /* not served: no offline copy */ });
}
