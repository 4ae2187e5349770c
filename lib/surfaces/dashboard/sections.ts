/**
 * The page's sections as HTML: the table of queues, the chosen queue's big counts, and its
 * waiting, active and dead tasks. The server renders them for the first paint and again for each
 * refresh the client asks for, so there is one renderer and one place where user data is escaped.
 *
 * Names, payloads and errors are shown through printable() (lib/surfaces/printable.ts) before they are
 * HTML-escaped: a bidi control in a queue name would reorder the row, a zero-width space make two
 * queues look alike. Attributes that carry a value back (links, form fields, data-*) keep it raw.
 */
import type { QueueStats } from '../../types/queues';
import { printable, printableLines } from '../printable';
import type { Overview, QueueView, TaskList, TaskView } from './api';
import { lookupLink } from './detail';
import { cleanForm, pauseForm, purgeForm, redriveAllForm, taskActions, type View } from './forms';
import { clip, html, progressBar, relative, size, span, timeTag, type Html } from './html';
import { pageLink, taskLink } from './shell';

const COUNTS = ['ready', 'delayed', 'waiting', 'active', 'dead', 'expired', 'deduplicated'] as const;

const NOTES: Record<(typeof COUNTS)[number], string> = {
  ready: 'queued for a worker',
  delayed: 'due later',
  waiting: 'on other tasks to finish',
  active: 'leased to workers',
  dead: 'out of attempts',
  expired: 'dropped unclaimed (total)',
  deduplicated: 'duplicate puts (total)',
};

function queueLink(view: View, name: string): string {
  return `${view.base}/?queue=${encodeURIComponent(name)}`;
}

function pausedBadge(paused: boolean): Html {
  return paused ? html`<span class="badge paused">paused</span>` : html`<span class="badge running">running</span>`;
}

function queueRow(view: View, q: QueueView, selected: string | undefined): Html {
  const cells = COUNTS.map((c) => html`<td class="num ${c}" data-count="${c}">${q.stats[c].toLocaleString('en')}</td>`);
  return html`<tr data-queue="${q.name}"${q.name === selected ? html` class="selected" aria-current="true"` : ''}>
<th scope="row"><a href="${queueLink(view, q.name)}">${printable(q.name)}</a></th>${cells}
<td>${pausedBadge(q.stats.paused)}</td><td class="end">${pauseForm(view, q.name, q.stats.paused)}</td></tr>`;
}

/** Every queue with its counts: the one place to see them side by side. */
export function queuesSection(view: View, o: Overview): Html {
  if (o.queues.length === 0) {
    return html`<h2>Queues</h2><p class="empty">No queues yet. A queue appears here after its first put.</p>`;
  }
  const heads = COUNTS.map((c) => html`<th scope="col" class="num ${c}">${c === 'deduplicated' ? 'dedup' : c}</th>`);
  const rows = o.queues.map((q) => queueRow(view, q, o.selected?.name));
  return html`<h2>Queues</h2><div class="scroll"><table class="queues rows"><thead><tr><th scope="col">queue</th>${heads}<th scope="col">state</th><th></th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}

function card(stats: QueueStats, count: (typeof COUNTS)[number]): Html {
  return html`<div class="stat ${count}"><div class="label">${count}</div><div class="value" data-stat="${count}">${stats[count].toLocaleString('en')}</div><div class="note">${NOTES[count]}</div></div>`;
}

/** The chosen queue: its name, whether it runs, and its counts in large type. */
export function summarySection(view: View, q: QueueView): Html {
  const banner = q.stats.paused ? html`<p class="banner" data-paused="true">Paused: workers claim nothing from this queue until it is resumed. Puts are still accepted.</p>` : '';
  return html`<div class="title"><h1><span class="dim">queue</span> ${printable(q.name)}</h1>${pausedBadge(q.stats.paused)}${pauseForm(view, q.name, q.stats.paused)}</div>
${banner}<div class="stats">${COUNTS.map((c) => card(q.stats, c))}</div>`;
}

/** How many of the state's tasks the section shows, and a link to page through them all. */
export function shown(view: View, queue: string, state: string, list: TaskList, what: string): Html {
  if (list.total <= list.tasks.length) return html``;
  const all = pageLink(view, '/tasks', { queue, state });
  return html`<p class="more">Showing ${list.tasks.length} of ${list.total.toLocaleString('en')} ${what}. <a href="${all}" data-all="${state}">Page through all, or search them</a></p>`;
}

/**
 * The payload preview, with the hash (and name, group, priority or size, when worth saying)
 * beneath it; with `view` and `queue`, the hash links to the task's page.
 */
export function taskCell(task: TaskView, view?: View, queue?: string): Html {
  const preview = printable(task.preview);
  // JSON never ends in '…': a preview that does was cut (api.ts), and its size is worth showing.
  const cut = preview.endsWith('…');
  const tags = [
    task.name === null ? '' : html`<span class="tag name">${printable(task.name)}</span>`,
    task.schedule === null
      ? ''
      : html`<span class="tag schedule" data-from-schedule="${task.schedule}" title="put by schedule ${printable(task.schedule)}">schedule ${printable(task.schedule)}</span>`,
    task.level > 0 ? html`<span class="tag">priority ${task.level}</span>` : '',
    task.group === null ? '' : html`<span class="tag">group ${printable(task.group)}</span>`,
    cut ? html`<span class="tag">${size(task.bytes)}</span>` : '',
  ];
  const title = cut ? `${preview} (${size(task.bytes)})` : preview;
  const hash = view === undefined || queue === undefined ? task.hash : html`<a href="${taskLink(view, queue, task.hash)}" data-task="${task.hash}">${printable(task.hash)}</a>`;
  return html`<td class="task"><code class="data" title="${title}">${preview}</code><div class="hash">${hash}${tags}</div></td>`;
}

function leaseCell(task: TaskView, now: number): Html {
  if (task.leaseUntil === null) return html`<td class="num">–</td>`;
  const left = task.leaseUntil - now;
  const tone = left <= 0 ? 'lapsed' : left < 10_000 ? 'short' : 'ok';
  const text = left <= 0 ? `lapsed ${span(-left)} ago` : span(left);
  return html`<td class="num lease ${tone}" data-lease-left="${left}">${timeTag(task.leaseUntil, text)}</td>`;
}

/** The latest progress its handler reported, as the start of its JSON; a dash before the first report. */
function progressCell(task: TaskView): Html {
  if (task.progressPreview === null) return html`<td class="progress"><span class="dim">–</span></td>`;
  const text = printable(task.progressPreview);
  if (task.percent !== null) return html`<td class="progress" title="${text}">${progressBar(task.percent)}</td>`;
  return html`<td class="progress"><code class="data" title="${text}">${text}</code></td>`;
}

/** Tasks leased right now: who holds each, how far it got, and how long its lease has left. */
export function activeSection(view: View, queue: string, list: TaskList): Html {
  const head = html`<h2><span class="dot active"></span>Active <span class="count">${list.total}</span></h2>`;
  if (list.tasks.length === 0) return html`${head}<p class="empty">No task is leased right now.</p>`;
  const rows = list.tasks.map(
    (t) =>
      html`<tr data-hash="${t.hash}">${taskCell(t, view, queue)}<td class="worker"><code>${t.worker === null ? '–' : printable(t.worker)}</code></td>${progressCell(t)}${leaseCell(t, view.now)}<td class="num">${t.attempts} / ${t.maxAttempts}</td></tr>`,
  );
  return html`${head}<div class="scroll"><table data-queue="${queue}"><thead><tr><th>task</th><th>held by</th><th>progress</th><th class="num">lease left</th><th class="num">attempt</th></tr></thead>
<tbody>${rows}</tbody></table></div>${shown(view, queue, 'active', list, 'active tasks')}`;
}

function waitingRow(view: View, queue: string, t: TaskView): Html {
  // Its run-at counts once its dependencies are done: at once, or later (delay, at, reschedule).
  const runs = timeTag(t.runAt, t.runAt <= view.now ? 'at once' : relative(t.runAt, view.now));
  const on = t.waitingOn === null ? '–' : html`<a href="${lookupLink(view, queue, t.hash)}" title="look it up: the tasks it waits on">${t.waitingOn.toLocaleString('en')}</a>`;
  return html`<tr data-hash="${t.hash}">${taskCell(t, view, queue)}<td class="num" data-waiting-on="${t.waitingOn ?? ''}">${on}</td><td class="num">${runs}</td>
<td class="end"><div class="actions">${taskActions(view, queue, t)}</div></td></tr>`;
}

/** Tasks waiting on the tasks they were put after, longest waiting first, with how many are not done yet. */
export function waitingSection(view: View, queue: string, list: TaskList): Html {
  const head = html`<h2><span class="dot waiting"></span>Waiting <span class="count">${list.total}</span> <span class="sub">on the tasks they were put after, longest waiting first</span></h2>`;
  if (list.tasks.length === 0) return html`${head}<p class="empty">No task is waiting on another.</p>`;
  return html`${head}<div class="scroll"><table class="waiting-tasks rows" data-queue="${queue}"><thead><tr><th>task</th><th class="num">waiting on</th><th class="num">then runs</th><th></th></tr></thead>
<tbody>${list.tasks.map((t) => waitingRow(view, queue, t))}</tbody></table></div>${shown(view, queue, 'waiting', list, 'waiting tasks')}`;
}

function errorCell(task: TaskView): Html {
  if (task.lastError === null) return html`<td class="error"><span class="dim">no error recorded</span></td>`;
  const [first, ...rest] = task.lastError.split('\n').map(printable);
  if (rest.length === 0 && first.length <= 140) return html`<td class="error"><code>${first}</code></td>`;
  return html`<td class="error"><details data-key="${task.hash}"><summary><code>${clip(first, 140)}</code></summary><pre>${printableLines(task.lastError)}</pre></details></td>`;
}

function deadRow(view: View, queue: string, t: TaskView): Html {
  const died = t.diedAt === null ? '–' : timeTag(t.diedAt, relative(t.diedAt, view.now));
  return html`<tr data-hash="${t.hash}">${taskCell(t, view, queue)}${errorCell(t)}<td class="num">${died}</td><td class="num">${t.attempts} / ${t.maxAttempts}</td>
<td class="end"><div class="actions">${taskActions(view, queue, t)}</div></td></tr>`;
}

/** Tasks out of attempts, most recent death first, with their last error and what can be done. */
export function deadSection(view: View, queue: string, list: TaskList): Html {
  const head = html`<h2><span class="dot dead"></span>Dead <span class="count">${list.total}</span>${list.total > 0 ? html`<span class="head-actions">${redriveAllForm(view, queue)}${cleanForm(view, queue, 'dead')}${purgeForm(view, queue)}</span>` : ''}</h2>`;
  if (list.tasks.length === 0) return html`${head}<p class="empty">No dead tasks.</p>`;
  return html`${head}<div class="scroll"><table class="dead-tasks rows" data-queue="${queue}"><thead><tr><th>task</th><th>last error</th><th class="num">died</th><th class="num">attempts</th><th></th></tr></thead>
<tbody>${list.tasks.map((t) => deadRow(view, queue, t))}</tbody></table></div>${shown(view, queue, 'dead', list, 'dead tasks')}`;
}

function readyRow(view: View, queue: string, t: TaskView): Html {
  // A ready task waits for a worker; its attempts say whether it ran before (a retry, a re-drive).
  const since = timeTag(t.runAt, relative(t.runAt, view.now));
  return html`<tr data-hash="${t.hash}">${taskCell(t, view, queue)}<td class="num">${since}</td><td class="num">${t.attempts} / ${t.maxAttempts}</td>
<td class="end"><div class="actions">${taskActions(view, queue, t)}</div></td></tr>`;
}

/** Tasks a worker may claim now, in claim order: priority levels first, then the fair groups, then the rest. */
export function readySection(view: View, queue: string, list: TaskList): Html {
  const head = html`<h2><span class="dot ready"></span>Ready <span class="count">${list.total}</span> <span class="sub">next claimed first</span>${list.total > 0 ? cleanForm(view, queue, 'ready') : ''}</h2>`;
  if (list.tasks.length === 0) return html`${head}<p class="empty">No task is ready.</p>`;
  return html`${head}<div class="scroll"><table class="ready-tasks rows" data-queue="${queue}"><thead><tr><th>task</th><th class="num">due since</th><th class="num">attempts</th><th></th></tr></thead>
<tbody>${list.tasks.map((t) => readyRow(view, queue, t))}</tbody></table></div>${shown(view, queue, 'ready', list, 'ready tasks')}`;
}
