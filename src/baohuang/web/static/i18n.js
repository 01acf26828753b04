// All visible strings come from i18n/zh.js and i18n/en.js through t().
import zh from './i18n/zh.js';
import en from './i18n/en.js';

export const DICTS = { zh, en };
const listeners = [];
// The player's choice when he made one, else the first of the browser's languages that
// the client speaks (navigator.languages: 'en-US' is English, 'zh-TW' Chinese), else Chinese.
export function browserLang(languages) {
  for (const tag of languages || []) {
    const base = String(tag).toLowerCase().split('-')[0];
    if (DICTS[base]) return base;
  }
  return 'zh';
}

let lang = (() => {
  let saved = null;
  try {
    saved = localStorage.getItem('bh_lang');
  } catch { /* private mode */ }
  if (saved && DICTS[saved]) return saved;
  return browserLang(navigator.languages && navigator.languages.length
    ? navigator.languages : [navigator.language]);
})();

export function getLang() {
  return lang;
}

export function setLang(next) {
  if (!DICTS[next] || next === lang) return;
  lang = next;
  try {
    localStorage.setItem('bh_lang', next);
  } catch { /* private mode */ }
  document.documentElement.lang = next === 'zh' ? 'zh-CN' : 'en';
  for (const fn of listeners) fn(next);
}

export function onLangChange(fn) {
  listeners.push(fn);
}

// t('key', {name: 'x'}) fills {name}; a missing key shows itself (and is easy to spot).
export function t(key, params) {
  let text = DICTS[lang][key];
  if (text === undefined) text = key;
  if (typeof text === 'function') return text(params || {});
  if (params) {
    text = text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
  }
  return text;
}

// Like t(), but parameters may be DOM nodes (names): returns a list of strings and nodes.
export function tNodes(key, params) {
  let text = DICTS[lang][key];
  if (text === undefined) text = key;
  const out = [];
  let last = 0;
  text.replace(/\{(\w+)\}/g, (m, name, offset) => {
    out.push(text.slice(last, offset));
    out.push(params && name in params ? params[name] : m);
    last = offset + m.length;
    return m;
  });
  out.push(text.slice(last));
  return out.map((part) => (part instanceof Node ? part : String(part))).filter((p) => p !== '');
}

// Has this key a string in the current language?
export function has(key) {
  return key in DICTS[lang];
}

// Fill every [data-i18n] element of the static page.
export function applyStatic(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll('[data-i18n-title]')) el.title = t(el.dataset.i18nTitle);
  document.title = t('app_title');
}
