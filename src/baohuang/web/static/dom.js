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

// Redraw in place: make `parent`'s children those of the list `fresh` (newly drawn
// elements; null for none), keeping every element already there that is equal to its
// fresh one (attributes, text and children alike: isEqualNode) and patching, child by
// child, one whose own attributes are the same but some of whose element children
// differ.  What is kept stays in the page: the browser lays out and styles again only
// what changed, motion running in it goes on, and focus stays.  An element whose
// attributes changed is replaced whole, with its fresh listeners: a listener that the
// table draws reads only its own element's attributes (or the event's target) and the
// screen, so a kept element's listener does what its fresh twin's would.
export function morphChildren(parent, fresh) {
  const list = fresh.filter((el) => el !== null && el !== undefined && el !== false);
  const old = [...parent.childNodes];
  const byKey = new Map();
  for (const node of old) {
    const key = nodeKey(node);
    if (!byKey.has(key)) byKey.set(key, []);
    byKey.get(key).push(node);
  }
  const next = list.map((el) => {
    const match = (byKey.get(nodeKey(el)) || []).shift();
    return match ? morph(match, el) : el;
  });
  const keep = new Set(next);
  for (const node of old) if (!keep.has(node)) node.remove();
  next.forEach((node, i) => {
    if (parent.childNodes[i] !== node) parent.insertBefore(node, parent.childNodes[i] || null);
  });
}

// `old` patched to look like `fresh`, or `fresh` when it must be taken whole.
function morph(old, fresh) {
  if (old.isEqualNode(fresh)) return old;
  if (old.nodeType !== 1 || !sameAttributes(old, fresh)
      || ![...fresh.childNodes, ...old.childNodes].every((n) => n.nodeType === 1)) {
    return fresh;
  }
  morphChildren(old, [...fresh.childNodes]);
  return old;
}

function sameAttributes(a, b) {
  if (a.tagName !== b.tagName || a.attributes.length !== b.attributes.length) return false;
  for (const attr of a.attributes) {
    if (b.getAttribute(attr.name) !== attr.value) return false;
  }
  return true;
}

// What pairs an element with its likes across redraws: its tag and what tells it apart.
function nodeKey(node) {
  if (node.nodeType !== 1) return `#${node.nodeType}`;
  const d = node.dataset;
  return `${node.tagName}|${node.className}|${d.testid || ''}|${d.seat || ''}|${d.rank || ''}|${d.card || ''}|${d.index || ''}`;
}
