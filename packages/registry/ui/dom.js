// Building the page from data. Every string becomes a text node: agent text is untrusted and never parsed as HTML.

/**
 * An element: `h('a', { href: '/', class: 'x' }, 'text', child)`. Attributes whose value is false, null or
 * undefined are left out; `on<event>` attributes become listeners.
 */
export function h(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') node.addEventListener(name.slice(2), value);
    else if (name === 'class') node.className = value;
    else if (name === 'value') node.value = value;
    else if (name === 'checked') node.checked = Boolean(value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export const $ = (id) => document.getElementById(id);

/** The navigation being drawn: a view whose data arrives after the user moved on draws nothing. */
let turn = 0;
export const beginTurn = () => ++turn;
export const currentTurn = () => turn;
export const stillCurrent = (mine) => mine === turn;

/** Replaces the view with `children` and moves focus to its heading, as a page load would. */
export function showView(...children) {
  const view = $('view');
  view.replaceChildren();
  append(view, children);
  const heading = view.querySelector('h1');
  if (heading) {
    heading.tabIndex = -1;
    heading.focus({ preventScroll: true });
  }
  window.scrollTo(0, 0);
}

export function setStatus(text) {
  $('status').textContent = text;
}

/** A date as people read it, in their time zone; the exact value stays in the title. */
export function when(iso) {
  if (!iso) return 'never';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  const node = h('time', { datetime: iso, title: iso }, date.toLocaleString());
  return node;
}

/** A labelled value list: pairs of [label, value]; values may be nodes. Empty values are left out. */
export function facts(pairs) {
  const list = h('dl', { class: 'facts' });
  for (const [label, value] of pairs) {
    if (value === undefined || value === null || value === '') continue;
    list.append(h('dt', {}, label), h('dd', {}, value));
  }
  return list;
}

/** Text from the publisher: shown as quoted, untrusted text. */
export function untrusted(text, label = "Publisher's description") {
  return h(
    'figure',
    { class: 'untrusted' },
    h('figcaption', {}, `${label} (not verified by the registry)`),
    h('blockquote', {}, text || '—'),
  );
}

export function copyButton(getText, label = 'Copy') {
  const button = h('button', { type: 'button', class: 'small' }, label);
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(getText());
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Select and copy';
    }
    setTimeout(() => {
      button.textContent = label;
    }, 1500);
  });
  return button;
}

/** A link that saves `text` as a file, built in the page (no second request, the token stays in the tab). */
export function downloadLink(getText, filename, type, label = 'Download') {
  const link = h('a', { href: '#', class: 'button small', download: filename }, label);
  link.addEventListener('click', () => {
    const url = URL.createObjectURL(new Blob([getText()], { type }));
    link.href = url;
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });
  return link;
}

/** Pretty JSON in a scrollable, keyboard-focusable block. */
export function jsonBlock(value, label) {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return h('pre', { class: 'document', tabindex: '0', 'aria-label': label }, text);
}
