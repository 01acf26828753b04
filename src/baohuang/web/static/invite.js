// Someone who followed an invitation link without a session says who they are before
// taking a seat: a guest name, or a login.  Nobody is seated silently.
import { free, h } from './dom.js';
import { t } from './i18n.js';
import { post } from './api.js';
import { errorText } from './errors.js';

// The panel; done() is called once the app has a user.
export function whoAreYou(app, tableKey, done) {
  const message = h('p', { class: 'message bad', testid: 'invite-error', role: 'alert' });
  const show = (text) => { message.textContent = text; };
  const asGuest = async () => {
    const name = guestName.value.trim();
    if (!name) {
      show(t('invite_name_needed'));
      guestName.focus();
      return;
    }
    try {
      await app.ensureUser(name, true);
      done();
    } catch (err) {
      show(errorText(err));
    }
  };
  const login = async () => {
    try {
      const res = await post('/api/login', { name: acctName.value.trim(),
        password: password.value });
      app.setUser(res.user);
      done();
    } catch (err) {
      show(errorText(err));
    }
  };
  const onEnter = (action) => (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      action();
    }
  };
  const guestName = h('input', { id: 'invite-name', placeholder: t('guest_placeholder'),
    maxlength: 24, autocomplete: 'nickname', 'aria-label': t('guest_placeholder'),
    testid: 'invite-name', onkeydown: onEnter(asGuest) });
  const acctName = h('input', { placeholder: t('name_placeholder'), maxlength: 24,
    autocomplete: 'username', 'aria-label': t('name_placeholder'), testid: 'invite-acct-name' });
  const password = h('input', { type: 'password', placeholder: t('password_placeholder'),
    autocomplete: 'current-password', 'aria-label': t('password_placeholder'),
    testid: 'invite-password', onkeydown: onEnter(login) });
  const panel = h('div', { class: 'panel invite', testid: 'invite' },
    h('h2', {}, t('invite_title'), free(tableKey, 'code')),
    h('p', {}, t('invite_lead')),
    h('div', { class: 'row' }, guestName,
      h('button', { class: 'btn primary', testid: 'invite-sit', onclick: asGuest },
        t('btn_invite_sit'))),
    h('p', { class: 'muted' }, t('or_account')),
    h('div', { class: 'row' }, acctName, password),
    h('div', { class: 'row wrap' },
      h('button', { class: 'btn', testid: 'invite-login', onclick: login }, t('btn_login')),
      h('a', { class: 'btn', testid: 'invite-watch', href: `#/w/${encodeURIComponent(tableKey)}` },
        t('btn_watch'))),
    message);
  setTimeout(() => guestName.focus(), 0);
  return panel;
}
