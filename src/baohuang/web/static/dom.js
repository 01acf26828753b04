// Tiny DOM helpers: h('div', {class: 'x', testid: 'hand', onclick: f}, child, ...).

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'testid') el.dataset.testid = value;
    else if (key === 'style' && typeof value === 'object') Object.assign(el.style, value);
    else if (key.startsWith('on') && typeof value === 'function') {
      el.addEventListener(key.slice(2), value);
    } else if (key === 'html') el.innerHTML = value;
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

// Text that comes from users (names) and so is exempt from translation.
export function free(text, cls = '') {
  return h('span', { class: `free ${cls}`.trim() }, text);
}

// The data-testid of the focused element inside `root`, if any: a screen that
// rebuilds its DOM calls this first and `refocus` after, so that a keyboard
// user's focus survives the rebuild (the lobby redraws when its data arrives).
export function focusedId(root) {
  const el = document.activeElement;
  return el && el !== document.body && root.contains(el) ? el.dataset.testid || null : null;
}

export function refocus(root, testid) {
  if (!testid) return;
  const el = root.querySelector(`[data-testid="${testid}"]`);
  if (el) el.focus();
}

// What the user has typed into the text fields inside `root`, by data-testid, and
// `retype` to put it back after a rebuild: a code typed while the lobby was still
// loading its table list must still be there when Join is pressed.
export function typed(root) {
  const out = {};
  for (const el of root.querySelectorAll('input[data-testid]')) {
    if ((el.type === 'text' || el.type === 'password') && el.value) out[el.dataset.testid] = el.value;
  }
  return out;
}

export function retype(root, values) {
  for (const [testid, value] of Object.entries(values)) {
    const el = root.querySelector(`input[data-testid="${testid}"]`);
    if (el && !el.value) el.value = value;
  }
}

export function clear(el) {
  while (el.firstChild) el.removeChild(el.firstChild);
  return el;
}

export function svg(markup, cls = '') {
  const span = document.createElement('span');
  span.className = `icon ${cls}`.trim();
  span.innerHTML = markup;
  return span;
}
