// The shard map: N cells per task coloured by owner, each with the owner's letter (colour is never
// the only cue); free shards hatched. Epoch and lease expiry on hover (title) and for screen readers.
import { el, when } from './view.js';

// Okabe-Ito and Tol colours, distinguishable with the common colour-vision deficiencies; white text passes on each.
const COLOURS = ['#0072B2', '#D55E00', '#009E73', '#CC79A7', '#5a5a00', '#56449c', '#8c3b00', '#006d77', '#a61b52', '#3b5b92'];
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export function shardMap(overview) {
  const nodes = new Set();
  for (const t of Object.values(overview.scan.tasks)) {
    t.members.forEach(m => nodes.add(m.node));
    t.ownership.forEach(s => s.owner && nodes.add(s.owner));
  }
  const sorted = [...nodes].sort();
  const key = node => ({ colour: COLOURS[sorted.indexOf(node) % COLOURS.length], letter: LETTERS[sorted.indexOf(node) % LETTERS.length] });
  const legend = el('div.legend', { id: 'legend' }, sorted.map(node => {
    const k = key(node);
    return el('span', {}, el('i', { style: `background:${k.colour}` }, k.letter), el('span.mono', {}, node));
  }), el('span', {}, el('i.cell.free', {}, '–'), 'free / expired'));
  const cards = Object.entries(overview.scan.tasks).map(([name, t]) => {
    const held = t.ownership.filter(s => s.owner).length;
    return el('article.card', { 'data-shards': name },
      el('header.row', {}, el('h3', {}, name), el('span.muted', {}, `${held} of ${t.shards} shards held`)),
      el('div.grid', { role: 'list', 'aria-label': `${name} shards` }, t.ownership.map(s => {
        const title = s.owner
          ? `shard ${s.shard} · owner ${s.owner} · epoch ${s.epoch} · lease until ${when(s.leaseExpiresAt)}`
          : `shard ${s.shard} · free · epoch ${s.epoch}`;
        if (!s.owner) return el('div.cell.free', { role: 'listitem', title, 'aria-label': title, 'data-shard': s.shard }, '–');
        const k = key(s.owner);
        return el('div.cell', { role: 'listitem', title, 'aria-label': title, 'data-shard': s.shard, 'data-owner': s.owner,
          style: `background:${k.colour}` }, k.letter);
      })));
  });
  return [el('h2', {}, 'Shard map'), el('p.muted', {}, 'Each cell is a shard, lettered and coloured by its owner; hover for its epoch and lease expiry. Handovers show within a refresh (2 s).'), legend, el('div.cards.wide', {}, cards)];
}
