// Failed and dead rows grouped by last error, paged, read when the screen asks; requeue one row, a group or all.
// Row ids come and go as strings, never as numbers: JavaScript rounds a number above 2^53 - 1 to
// another row's id (9007199254740993 reads as 9007199254740992), and the ↻ would requeue that row.
import { get, post, task } from './api.js';
import { el, when, fmt } from './view.js';
import { say, writeButton } from './app.js';

const state = { task: null, dead: true, page: 0, size: 20 };

export async function failures(target, overview) {
  const names = Object.keys(overview.scan.tasks);
  if (!names.length) { target.replaceChildren(el('p.muted', {}, 'No tasks.')); return; }
  if (!names.includes(state.task)) state.task = names[0];
  const controls = el('div.row', {},
    el('label', {}, 'Task ', el('select', { id: 'failures-task', onchange: e => { state.task = e.target.value; state.page = 0; failures(target, overview); } },
      names.map(n => el('option', { value: n, selected: n === state.task }, n)))),
    el('label', {}, 'Rows ', el('select', { id: 'failures-kind', onchange: e => { state.dead = e.target.value === 'dead'; state.page = 0; failures(target, overview); } },
      el('option', { value: 'dead', selected: state.dead }, '✖ dead'), el('option', { value: 'failed', selected: !state.dead }, '↺ failed, retrying'))),
    el('button', { onclick: () => failures(target, overview) }, '⟳ Reload'),
    writeButton('Requeue all', () => requeue(target, overview, { all: true }), { 'data-requeue': 'all' }));
  target.replaceChildren(el('h2', {}, 'Failed and dead rows'), controls, el('p.muted', {}, 'Loading…'));
  let page;
  try {
    page = await get(`${task(state.task)}/failures?dead=${state.dead}&page=${state.page}&size=${state.size}`);
  } catch (e) {
    say('Cannot read the failures: ' + e.message, true);
    return;
  }
  // a sharded task's groups say which tables hold their rows (the few that hold the most)
  const sharded = page.groups.some(g => g.tables.length);
  const rows = page.groups.map(g => el('tr', { 'data-error': g.error === null ? '' : g.error },
    el('td.mono.error', { 'data-label': 'last error (digits as #)' }, g.error === null ? '(no error text)' : g.error,
      g.example !== null && g.example !== g.error ? el('div.muted', { 'data-example': '' }, 'e.g. ' + g.example) : ''),
    el('td.num', { 'data-label': 'rows' }, fmt(g.rows)),
    sharded ? tablesCell(g) : '',
    el('td', { 'data-label': 'first seen' }, when(g.firstSeen)),
    el('td', { 'data-label': 'last seen' }, when(g.lastSeen)),
    el('td', { 'data-label': 'example rows' }, g.exampleIds.map(id => el('span.example', {},
      el('button', { onclick: () => showRow(id), 'data-show-id': id, title: `Show the columns of row ${id}` }, '#' + id),
      writeButton('↻', () => requeue(target, overview, { ids: [id] }), { 'data-requeue-id': id, title: `Requeue row ${id}`,
        'aria-label': `Requeue row ${id}` }), ' '))),
    el('td', {}, writeButton('Requeue group', () => requeue(target, overview, { byError: true, error: g.error }), { 'data-requeue': 'group' }))));
  target.replaceChildren(el('h2', {}, 'Failed and dead rows'), controls,
    rows.length ? el('div.scroll', {}, el('table', { id: 'failure-groups' },
      el('thead', {}, el('tr', {}, el('th', {}, 'last error (digits as #)'), el('th.num', {}, 'rows'),
        sharded ? el('th', {}, 'tables (rows)') : '', el('th', {}, 'first seen'),
        el('th', {}, 'last seen'), el('th', {}, 'example rows (#id: its columns, ↻: requeue it)'), el('th', {}, ''))),
      el('tbody', {}, rows)))
      : el('p', { id: 'no-failures' }, `✔ No ${state.dead ? 'dead' : 'failed'} rows in ${state.task}.`),
    el('div', { id: 'row-columns' }),
    el('div.row', {},
      el('button', { disabled: state.page === 0, onclick: () => { state.page--; failures(target, overview); } }, '← Previous'),
      el('span.muted', {}, `page ${state.page + 1}`),
      el('button', { disabled: !page.more, onclick: () => { state.page++; failures(target, overview); } }, 'Next →')));
}

// The tables that hold the most of a group's rows, and how many rows the others hold.
function tablesCell(g) {
  const shown = g.tables.reduce((sum, t) => sum + t.rows, 0);
  return el('td', { 'data-label': 'tables (rows)', 'data-tables': '' },
    g.tables.map(t => el('div', { 'data-table': t.table }, `${t.table} ${fmt(t.rows)}`)),
    shown < g.rows ? el('div.muted', {}, `other tables ${fmt(g.rows - shown)}`) : '');
}

async function showRow(id) {
  const box = document.getElementById('row-columns');
  try {
    const row = await get(`${task(state.task)}/rows/${encodeURIComponent(id)}`);
    box.replaceChildren(el('article.card', {}, el('header.row', {}, el('h3', {}, `${state.task} row ${id}`),
      el('button', { onclick: () => box.replaceChildren() }, '✕ Close')),
      el('div.scroll', {}, el('table', {}, el('tbody', {}, Object.entries(row.columns).map(([column, value]) =>
        el('tr', {}, el('th', {}, column), el('td.mono', {}, value === null ? 'NULL' : String(value)))))))));
  } catch (e) {
    say(`Cannot read row ${id}: ${e.message}`, true);
  }
}

async function requeue(target, overview, what) {
  try {
    const done = await post(`${task(state.task)}/requeue`, Object.assign({ dead: state.dead }, what));
    say(`Requeued ${done.requeued} ${state.dead ? 'dead' : 'failed'} rows of ${state.task}`);
  } catch (e) {
    say('Requeue refused: ' + e.message, true);
  }
  failures(target, overview);
}
