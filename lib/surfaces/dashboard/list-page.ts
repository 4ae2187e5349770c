/**
 * The page of one state's tasks (`GET /tasks?queue=&state=`): a page of them at a time with links
 * to the next and previous, a search (a hash, or text in the payloads), each task linking to its
 * own page, and the buttons each state has (re-drive all on the dead list). Everything from Redis
 * goes through printable() before it is HTML-escaped, as in sections.ts.
 */
import { printable, printableLines } from '../printable';
import type { TaskState } from '../../types/task';
import type { TaskView } from './api';
import { cleanForm, purgeForm, redriveAllForm, taskActions, type View } from './forms';
import { clip, html, relative, size, timeTag, type Html } from './html';
import { type ListPage, SEARCH_SCAN } from './lists';
import { taskCell } from './sections';
import { pageLink } from './shell';

/** What each state's list says of its order, and what its time column is. */
const ORDER: Record<TaskState, [string, string]> = {
  ready: ['next claimed first', 'due since'],
  delayed: ['next due first', 'runs'],
  waiting: ['longest waiting first', 'then runs'],
  active: ['soonest lease end first', 'lease ends'],
  dead: ['most recent death first', 'died'],
  done: ['most recent finish first', 'finished'],
};

function when(view: View, t: TaskView): Html | string {
  if (t.state === 'dead') return t.diedAt === null ? '–' : timeTag(t.diedAt, relative(t.diedAt, view.now));
  if (t.state === 'done') return t.finishedAt === undefined ? '–' : timeTag(t.finishedAt, relative(t.finishedAt, view.now));
  if (t.state === 'active') return t.leaseUntil === null ? '–' : timeTag(t.leaseUntil, relative(t.leaseUntil, view.now));
  return timeTag(t.runAt, relative(t.runAt, view.now));
}

/** The state's own column: the last error, who holds it, or how many tasks it waits on. */
function about(t: TaskView): Html {
  if (t.state === 'done')
    return html`<td class="result"><code>${t.resultPreview == null ? '–' : printable(t.resultPreview)}</code> <span class="dim">by ${t.worker === null ? '–' : printable(t.worker)}</span></td>`;
  if (t.state === 'active') return html`<td class="worker"><code>${t.worker === null ? '–' : printable(t.worker)}</code></td>`;
  if (t.state === 'waiting') return html`<td class="num">${t.waitingOn === null ? '–' : `on ${t.waitingOn}`}</td>`;
  if (t.lastError === null) return html`<td class="error"><span class="dim">–</span></td>`;
  const [first] = t.lastError.split('\n');
  return html`<td class="error"><details data-key="${t.hash}"><summary><code>${clip(printable(first), 140)}</code></summary><pre>${printableLines(t.lastError)}</pre></details></td>`;
}

function row(view: View, queue: string, t: TaskView): Html {
  return html`<tr data-hash="${t.hash}">${taskCell(t, view, queue)}<td class="num">${when(view, t)}</td>${about(t)}<td class="num">${t.attempts} / ${t.maxAttempts}</td>
<td class="end"><div class="actions">${taskActions(view, queue, t)}</div></td></tr>`;
}

function searchForm(view: View, p: ListPage): Html {
  return html`<form class="find" method="get" action="${view.base}/tasks" role="search"><input type="hidden" name="queue" value="${p.queue}"><input type="hidden" name="state" value="${p.state}">
<label class="grow">search <input name="q" value="${p.search?.q ?? ''}" maxlength="1024" placeholder="a task's hash, or text in its payload" spellcheck="false" autocomplete="off"></label>
<button type="submit" class="btn plain">Search</button>${p.search === null ? '' : html`<a class="btn plain" href="${pageLink(view, '/tasks', { queue: p.queue, state: p.state })}">Clear</a>`}</form>`;
}

/** What the search read, said plainly: a text search is bounded and may miss what lies past it. */
function searchNote(p: ListPage): Html | string {
  const s = p.search;
  if (s === null) return '';
  const hash = s.byHash ? 'A task has this hash exactly (listed first). ' : '';
  const all = s.scanned >= p.inState ? `all ${p.inState.toLocaleString('en')}` : `the first ${s.scanned.toLocaleString('en')} of ${p.inState.toLocaleString('en')}`;
  const bound = p.inState > SEARCH_SCAN ? ` A text search reads at most ${SEARCH_SCAN.toLocaleString('en')} tasks from the head of the list.` : '';
  return html`<p class="note" data-search-note>${hash}${p.total.toLocaleString('en')} found, searching the payloads (their first ${size(s.previewBytes)} each) and names of ${all} ${p.state} tasks.${bound}</p>`;
}

/** Links to the previous and next pages, and which tasks this page shows. */
function pager(view: View, p: ListPage): Html {
  const at = (offset: number) => pageLink(view, '/tasks', { queue: p.queue, state: p.state, q: p.search?.q, offset, limit: p.limit });
  const first = p.tasks.length === 0 ? 0 : p.offset + 1;
  const prev = p.offset > 0 ? html`<a class="btn plain" rel="prev" href="${at(Math.max(0, p.offset - p.limit))}">← Previous</a>` : '';
  const next = p.offset + p.tasks.length < p.total ? html`<a class="btn plain" rel="next" href="${at(p.offset + p.limit)}">Next →</a>` : '';
  return html`<div class="pager"><span data-range>${first.toLocaleString('en')}–${(p.offset + p.tasks.length).toLocaleString('en')} of ${p.total.toLocaleString('en')}</span>${prev}${next}</div>`;
}

function headActions(view: View, p: ListPage): Html | string {
  if (p.inState === 0) return '';
  if (p.state === 'dead') return html`<span class="head-actions">${redriveAllForm(view, p.queue)}${cleanForm(view, p.queue, 'dead')}${purgeForm(view, p.queue)}</span>`;
  return p.state === 'ready' || p.state === 'delayed' ? cleanForm(view, p.queue, p.state) : '';
}

/** The list page's body. */
export function listBody(view: View, p: ListPage): Html {
  const [order, time] = ORDER[p.state];
  const third = p.state === 'active' ? 'held by' : p.state === 'waiting' ? 'waiting' : p.state === 'done' ? 'result' : 'last error';
  const head = html`<h1><span class="dim">${printable(p.queue)} ·</span> ${p.state} <span class="count">${p.inState.toLocaleString('en')}</span></h1>`;
  const table =
    p.tasks.length === 0
      ? html`<p class="empty">${p.search === null ? `No ${p.state} tasks${p.offset > 0 ? ' on this page' : ''}.` : 'Nothing found.'}</p>`
      : html`<div class="scroll"><table class="list rows" data-state="${p.state}" data-queue="${p.queue}"><thead><tr><th>task</th><th class="num">${time}</th><th>${third}</th><th class="num">attempts</th><th></th></tr></thead>
<tbody>${p.tasks.map((t) => row(view, p.queue, t))}</tbody></table></div>`;
  return html`<section class="card"><div class="title">${head}</div><h2><span class="sub">${order}</span>${headActions(view, p)}</h2>${searchForm(view, p)}${searchNote(p)}${pager(view, p)}${table}${pager(view, p)}</section>`;
}
