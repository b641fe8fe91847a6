// The Shardscan dashboard: one page, five screens, refreshed from the JSON API every few seconds.
import { get, post, task } from './api.js';
import { el, sparkline, age, when, fmt, stateBadge } from './view.js';
import { shardMap } from './shards.js';
import { failures } from './failures.js';

const REFRESH_MS = 2000;
const SCREENS = ['overview', 'shards', 'failures', 'endpoints', 'jobs'];
let overview = null;

export function say(text, error) {
  const box = document.getElementById('message');
  box.textContent = text || '';
  box.className = error ? 'error' : '';
}

export async function act(name, action, extra) {
  try {
    const done = await post(task(name) + '/actions', Object.assign({ action }, extra || {}));
    say(`${action} of ${name}: done` + (done && done.requeued !== undefined && done.requeued !== null ? `, ${done.requeued} rows requeued` : '')
      + (done && done.message ? ': ' + done.message : ''));
    await refresh();
  } catch (e) {
    say(`${action} of ${name} refused: ${e.message}`, true);
  }
}

export function writeButton(label, onclick, attrs) {
  const enabled = overview && overview.writeEnabled;
  return el('button', Object.assign({
    onclick, disabled: !enabled,
    title: enabled ? label : 'Writes are off: set scan.dashboard.write-enabled=true (or management.endpoint.scan.access=unrestricted)'
  }, attrs || {}), label);
}

function sum(series) {
  const nodes = Object.values(series || {});
  const length = Math.max(0, ...nodes.map(s => s.length));
  const total = new Array(length).fill(0);
  nodes.forEach(s => s.forEach((v, i) => { total[length - s.length + i] += v; }));
  return total;
}

// A scheduled task's calendar: its next firing and what its last one did (a run is skipped while the last still runs).
function scheduleLine(name, s) {
  if (!s) return '';
  const last = !s.lastFiring ? 'no firing yet'
    : `last firing ${when(s.lastFiredAt)} on ${s.lastFiredBy}: ` + (s.lastFiring === 'skipped' ? 'skipped, the run still ran' : 'started a run');
  return el('p.muted', { 'data-schedule': name },
    `schedule ${s.schedule} · next firing ${s.nextFiring ? when(s.nextFiring) : 'none'} · ${last}`);
}

// A sharded task's busiest tables (the endpoint lists at most 20, the most pending first).
function tablesTable(name, backlog) {
  if (!backlog || !backlog.tables || !backlog.tables.length) return '';
  return el('div.scroll', { 'data-tables': name }, el('table', {},
    el('thead', {}, el('tr', {}, el('th', {}, 'table'), el('th.num', {}, 'pending'), el('th.num', {}, 'dead'))),
    el('tbody', {}, backlog.tables.map(x => el('tr', {}, el('td', {}, x.table), el('td.num', {}, fmt(x.pending)),
      el(x.dead ? 'td.num.bad' : 'td.num', {}, fmt(x.dead)))))));
}

// Why this node's share of the shards is not the usual one: another shard count (it claims none), a
// rejoin hold (it takes none back yet), or two counts splitting the shards during a rolling change.
function shardsLine(name, t) {
  if (t.shardCountConflict) return el('p.bad', { 'data-shards-note': name }, `⚠ ${t.shardCountConflict}`);
  if (t.rejoinHold) return el('p.bad', { 'data-shards-note': name }, `⚠ ${t.rejoinHold.state}`);
  if (t.shardSplit) return el('p.muted', { 'data-shards-note': name }, t.shardSplit);
  return '';
}

function taskCard(name, t) {
  const rates = sum(overview.rates[name]);
  const now = rates.length ? rates[rates.length - 1] : 0;
  const backlog = t.backlog;
  const ages = backlog ? backlog.tiers.filter(x => x.pending).map(x => x.oldestPendingAgeSeconds) : [];
  const oldest = ages.length ? Math.max(...ages) : null;
  const paused = t.state === 'PAUSED';
  return el('article.card', { 'data-task': name },
    el('header.row', {}, el('h3', {}, name), stateBadge(t.state),
      el('span.muted', {}, `${t.coordinator} · ${t.shards} shards` + (t.run ? ` · run ${t.run.id}` : ''))),
    scheduleLine(name, t.schedule),
    shardsLine(name, t),
    el('div.row', {},
      el('div.stat', {}, el('span.muted', {}, 'rows/s'), el('b', { 'data-rate': name }, now.toFixed(1))),
      el('div.stat', {}, el('span.muted', {}, 'pending'), el('b', {}, backlog ? fmt(backlog.total) : '–')),
      el('div.stat', {}, el('span.muted', {}, 'dead'), el('b', { 'data-dead': name, class: backlog && backlog.dead ? 'bad' : '' },
        backlog ? fmt(backlog.dead) : '–')),
      el('div.stat', {}, el('span.muted', {}, 'oldest pending'), el('b', {}, age(oldest)))),
    sparkline(rates, `${name}: rows per second, last ${rates.length} samples of ${overview.rateSampleSeconds} s, now ${now.toFixed(1)}`),
    backlog ? el('div.scroll', {}, el('table', {},
      el('thead', {}, el('tr', {}, el('th', {}, 'tier (retries)'), el('th.num', {}, 'pending'), el('th.num', {}, 'not yet due'), el('th.num', {}, 'oldest'))),
      el('tbody', {}, backlog.tiers.map(x => el('tr', {}, el('td', {}, x.retries), el('td.num', {}, fmt(x.pending)),
        el('td.num', {}, fmt(x.notYetDue)), el('td.num', {}, x.pending ? age(x.oldestPendingAgeSeconds) : '–')))))) :
      el('p.muted', {}, 'backlog not counted yet'),
    tablesTable(name, backlog),
    el('div.row', {},
      paused ? writeButton('▶ Resume', () => act(name, 'resume'), { 'data-action': 'resume' })
        : writeButton('‖ Pause', () => act(name, 'pause'), { 'data-action': 'pause' }),
      writeButton('↻ Requeue dead', () => act(name, 'requeue-dead'), { 'data-action': 'requeue-dead' }),
      el('span.muted', {}, `this node since start: done ${fmt(t.doneHereSinceStart)} · failed ${fmt(t.failedHereSinceStart)}`
        + ` · dead ${fmt(t.deadHereSinceStart)} · in flight now ${fmt(t.inFlight)}`)));
}

function nodesTable() {
  const rows = [];
  for (const [name, t] of Object.entries(overview.scan.tasks)) {
    for (const m of t.members) {
      const series = (overview.rates[name] || {})[m.node] || [];
      const c = m.counters;
      rows.push(el('tr', { 'data-node': m.node },
        el('td', {}, el('span.mono', {}, m.node), m.node === overview.node ? ' (this node)' : ''),
        el('td', {}, name),
        el('td.num', {}, m.ownedShards),
        el('td.num', {}, c ? fmt(c.processed) : '–'),
        el('td.num.hide-phone', {}, c ? fmt(c.failed) : '–'),
        el('td.num.hide-phone', {}, c ? fmt(c.dead) : '–'),
        el('td.num.rate', {}, series.length ? series[series.length - 1].toFixed(1) : '–'),
        el('td.hide-phone', { style: 'width: 160px' }, sparkline(series, `${m.node} ${name}: rows per second`)),
        el('td.hide-phone', {}, when(m.lastHeartbeat))));
    }
  }
  return el('div.card', {}, el('h2', {}, 'Nodes'),
    el('p.muted', {}, 'Every node of the cluster. done, failed and dead count rows each node handled since it started, as it published them with its last heartbeat.'),
    el('div.scroll', {}, el('table', { id: 'nodes' },
    el('thead', {}, el('tr', {}, el('th', {}, 'node'), el('th', {}, 'task'), el('th.num', {}, 'shards'), el('th.num', {}, 'done'),
      el('th.num.hide-phone', {}, 'failed'), el('th.num.hide-phone', {}, 'dead'), el('th.num', {}, 'rows/s'),
      el('th.hide-phone', {}, 'last minutes'), el('th.hide-phone', {}, 'last heartbeat'))),
    el('tbody', {}, rows))));
}

function renderOverview() {
  const tasks = Object.entries(overview.scan.tasks);
  return [el('div.cards', {}, tasks.map(([name, t]) => taskCard(name, t))), el('p'), nodesTable()];
}

function renderEndpoints() {
  const cards = Object.entries(overview.scan.tasks).filter(([, t]) => t.bannedEndpoints).map(([name, t]) =>
    el('article.card', {}, el('h3', {}, name),
      t.bannedEndpoints.length === 0 ? el('p.muted', {}, '✔ no endpoint banned') :
        el('div.scroll', {}, el('table', {},
          el('thead', {}, el('tr', {}, el('th', {}, 'endpoint'), el('th', {}, 'banned since'), el('th', {}, 'until'),
            el('th', {}, 'last error'), el('th', {}, ''))),
          el('tbody', {}, t.bannedEndpoints.map(b => el('tr', {},
            el('td.mono', {}, '⛔ ' + b.endpoint + (b.inForce ? '' : ' (probing)')), el('td', {}, when(b.since)),
            el('td', {}, when(b.until)), el('td.mono', {}, b.lastError || ''),
            el('td', {}, writeButton('Lift ban', () => act(name, 'lift-ban', { endpoint: b.endpoint }))))))))));
  return [el('h2', {}, 'Banned endpoints (level 2, every node)'), el('div.cards', {}, cards)];
}

function renderJobs() {
  const jobs = Object.entries(overview.scan.ranges || {});
  if (!jobs.length) return [el('p.muted', {}, 'No range jobs (mode: range) on this node.')];
  return [el('h2', {}, 'Range jobs'), el('div.cards', {}, jobs.map(([name, j]) => el('article.card', { 'data-job': name },
    el('header.row', {}, el('h3', {}, name), stateBadge(j.state), el('span.muted', {}, `run ${j.runId} · ${j.run}`)),
    scheduleLine(name, j.schedule),
    el('div.bar', { role: 'progressbar', 'aria-valuemin': 0, 'aria-valuemax': 100, 'aria-valuenow': j.percent.toFixed(1),
      'aria-label': name + ' progress' }, el('div', { style: `width: ${Math.min(100, j.percent)}%` })),
    el('div.row', {},
      el('div.stat', {}, el('span.muted', {}, 'done'), el('b', {}, j.percent.toFixed(1) + ' %')),
      el('div.stat', {}, el('span.muted', {}, 'rows/s'), el('b', {}, j.rowsPerSecond.toFixed(1))),
      el('div.stat', {}, el('span.muted', {}, 'ETA'), el('b', {}, j.etaSeconds === null || j.etaSeconds === undefined ? '–' : age(j.etaSeconds))),
      el('div.stat', {}, el('span.muted', {}, 'rows'), el('b', {}, fmt(j.processed))),
      el('div.stat', {}, el('span.muted', {}, 'failed'), el('b', {}, fmt(j.failed)))),
    j.failed ? el('p.muted', { 'data-job-failures': name }, 'Failed rows of a range job are not on the Failed rows screen: see ',
      el('code', {}, `GET /actuator/scan/${name}`), ' (count and the most recent); run them again with the button below.') : '',
    el('div.row', {},
      writeButton('▶ Start next run', () => act(name, 'start'), { disabled: j.state !== 'DONE' || !overview.writeEnabled }),
      writeButton('↻ Run failed again', () => act(name, 'requeue'))))))];
}

function current() {
  const hash = location.hash.substring(1);
  return SCREENS.includes(hash) ? hash : 'overview';
}

function render() {
  const screen = current();
  for (const id of SCREENS) document.getElementById(id).hidden = id !== screen;
  document.querySelectorAll('nav a').forEach(a => {
    if (a.dataset.screen === screen) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  });
  document.getElementById('node').textContent = 'served by ' + overview.node;
  const write = document.getElementById('write');
  // plain words: a symbol glyph may be missing from the fonts (an empty box in headless Chromium)
  write.textContent = overview.writeEnabled ? 'writes on' : 'read only';
  write.className = 'badge ' + (overview.writeEnabled ? 'on' : 'off');
  const target = document.getElementById(screen);
  if (screen === 'failures') { failures(target, overview); return; }
  const content = screen === 'overview' ? renderOverview() : screen === 'shards' ? shardMap(overview)
    : screen === 'endpoints' ? renderEndpoints() : renderJobs();
  target.replaceChildren(...content);
}

export async function refresh() {
  try {
    overview = await get('overview');
    render();
  } catch (e) {
    say('Cannot read the dashboard API: ' + e.message, true);
  }
}

window.addEventListener('hashchange', () => overview && render());
refresh();
setInterval(() => { if (current() !== 'failures') refresh(); }, REFRESH_MS);
