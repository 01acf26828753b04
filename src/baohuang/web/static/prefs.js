// A player's presentation choices, remembered in this browser: sound and light card
// motion (both follow the system's prefers-reduced-motion until switched by hand), and
// auto-pass (on unless switched off).
const REDUCE = '(prefers-reduced-motion: reduce)';

function reduced() {
  return Boolean(window.matchMedia && window.matchMedia(REDUCE).matches);
}

// 'on' / 'off' chosen by hand, else what the system asks for.
function choice(key) {
  const stored = localStorage.getItem(key);
  if (stored === 'on' || stored === 'off') return stored === 'on';
  return !reduced();
}

export function soundOn() {
  return choice('bh_sound');
}

export function toggleSound() {
  localStorage.setItem('bh_sound', soundOn() ? 'off' : 'on');
}

// Auto-pass: when a turn's only legal action is to pass, the table passes by itself
// after a short, visible beat (table.js).
export function autoPassOn() {
  return localStorage.getItem('bh_autopass') !== 'off';
}

export function toggleAutoPass() {
  localStorage.setItem('bh_autopass', autoPassOn() ? 'off' : 'on');
}

export function motionOn() {
  return choice('bh_motion');
}

// The page's <html data-motion="on|off">: every animation in style.css keys on it.
export function applyMotion() {
  document.documentElement.dataset.motion = motionOn() ? 'on' : 'off';
}

export function toggleMotion() {
  localStorage.setItem('bh_motion', motionOn() ? 'off' : 'on');
  applyMotion();
}

if (window.matchMedia) {
  const query = window.matchMedia(REDUCE);
  if (query.addEventListener) query.addEventListener('change', applyMotion);
}
applyMotion();
