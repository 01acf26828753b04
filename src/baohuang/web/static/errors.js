// What an API error says to a player, in the current language (every screen shows
// errors through errorText).
import { t } from './i18n.js';
import { ApiError } from './api.js';

// A wait of some seconds in words: 40 s, 2 min, 1 h.
export function waitText(seconds) {
  if (seconds < 60) return t('wait_seconds', { n: seconds });
  if (seconds < 3600) return t('wait_minutes', { n: Math.ceil(seconds / 60) });
  return t('wait_hours', { n: Math.ceil(seconds / 3600) });
}

export function errorText(err) {
  if (err instanceof ApiError && err.code === 'rate_limited' && err.retryAfter) {
    return t('err_rate_limited_wait', { wait: waitText(err.retryAfter) });
  }
  if (err instanceof ApiError && err.code) {
    const key = `err_${err.code}`;
    const text = t(key);
    // rule errors name the option and what it needs: show the server's words too
    if (text !== key && DETAILED.has(err.code) && err.message) return `${text} ${err.message}`;
    if (text !== key) return text;
  }
  return t('err_generic');
}

const DETAILED = new Set(['bad_rules', 'bad_request']);
