// Small DOM helpers: el('tag.class', {attr: value}, ...children), text escaping by construction.

export function el(spec, attrs, ...children) {
  const [tag, ...classes] = spec.split('.');
  const node = document.createElement(tag);
  if (classes.length) node.className = classes.join(' ');
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) node.addEventListener(key.substring(2), value);
    else node.setAttribute(key, value === true ? '' : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function svg(tag, attrs, ...children) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  children.forEach(c => node.append(c));
  return node;
}

// A sparkline of numbers, newest right; a flat line when there is nothing yet.
export function sparkline(values, label) {
  const w = 200, h = 40;
  const max = Math.max(1, ...values);
  const points = values.length > 1 ? values : values.length === 1 ? [values[0], values[0]] : [0, 0];
  const step = w / (points.length - 1);
  const d = points.map((v, i) => (i ? 'L' : 'M') + (i * step).toFixed(1) + ' ' + (h - 2 - (v / max) * (h - 4)).toFixed(1)).join(' ');
  return svg('svg', { class: 'spark', viewBox: `0 0 ${w} ${h}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': label },
    svg('title', {}, document.createTextNode(label)), svg('path', { d }));
}

export function age(seconds) {
  if (seconds === null || seconds === undefined) return '–';
  if (seconds < 90) return Math.round(seconds) + ' s';
  if (seconds < 5400) return Math.round(seconds / 60) + ' min';
  if (seconds < 172800) return (seconds / 3600).toFixed(1) + ' h';
  return (seconds / 86400).toFixed(1) + ' d';
}

export function when(instant) {
  return instant ? new Date(instant).toLocaleString() : '–';
}

export const fmt = n => (n === null || n === undefined) ? '–' : Number(n).toLocaleString();

// A state as icon + text + colour, never colour alone.
const STATE_ICONS = { RUNNING: '▶', PAUSED: '‖', STOPPED: '■', DONE: '✔', UNREACHABLE: '⚠' };
export function stateBadge(state) {
  return el('span.badge.state-' + state, { 'data-state': state }, (STATE_ICONS[state] || '•') + ' ' + state.replace('_', ' ').toLowerCase());
}
