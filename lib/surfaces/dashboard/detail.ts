/**
 * The page's task lookup: a GET form (a read: no CSRF token, no script, works with script off)
 * and what it found, one task as get() has it (with the tasks it was put after, each a lookup
 * link) or the outcome it kept once finished. Everything from Redis goes through printable()
 * before it is HTML-escaped, as in sections.ts.
 */
import { printable, printableLines } from '../printable';
import type { View } from './forms';
import { html, progressBar, relative, size, span, timeTag, whenTag, type Html } from './html';
import type { Lookup, OutcomeView, TaskDetail } from './lookup';
import { taskLink } from './shell';

/** What the page was asked to look up (`?hash=`), and what it found. */
export interface Find {
  hash: string;
  found: Lookup;
}

/** The page looking task `hash` of `queue` up (`?queue=&hash=`): the queue shown is that one. */
export function lookupLink(view: View, queue: string, hash: string): string {
  return `${view.base}/?queue=${encodeURIComponent(queue)}&hash=${encodeURIComponent(hash)}`;
}

function form(view: View, queue: string, hash: string): Html {
  return html`<form class="find" method="get" action="${view.base}/" role="search">
<label>queue <input name="queue" value="${queue}" required maxlength="200" spellcheck="false" autocomplete="off"></label>
<label class="grow">hash <input name="hash" value="${hash}" required maxlength="1024" placeholder="the hash put() returned" spellcheck="false" autocomplete="off"></label>
<button type="submit" class="btn plain">Look up</button></form>`;
}

/** A label and its value, as one row of the found task's list. */
function row(label: string, value: Html | string): Html {
  return html`<dt>${label}</dt><dd>${value}</dd>`;
}

/** A value that may run long (JSON, a stack trace): escaped, in a box that wraps and scrolls. */
function block(text: string | null, error = false): Html {
  return text === null ? html`<span class="dim">–</span>` : html`<pre class="${error ? 'value error' : 'value'}">${printableLines(text)}</pre>`;
}

/** An absolute time in UTC with how far it is from now: a looked-up task is read closely. */
function when(at: number | null, now: number, none: string): Html | string {
  return at === null ? none : whenTag(at, now);
}

/** The tasks it was put after, each with its state and a link to look it up (in its own queue). */
function dependencyRow(view: View, queue: string, t: TaskDetail): Html | string {
  if (t.dependencyCount === 0) return '';
  const items = t.dependencies.map((d) => {
    const where = d.queue === queue ? '' : html` <span class="dim">in</span> ${printable(d.queue)}`;
    return html`<li data-dependency="${d.hash}"><span class="state ${d.state}">${d.state}</span> <a href="${lookupLink(view, d.queue, d.hash)}"><code>${printable(d.hash)}</code></a>${where}</li>`;
  });
  const more = t.dependencyCount === null ? html`<li class="dim">and more (see <code>docket inspect</code>)</li>` : '';
  const count = t.dependencyCount === null ? `more than ${t.dependencies.length.toLocaleString('en')}` : t.dependencyCount.toLocaleString('en');
  return row(`put after (${count})`, html`<ul class="deps">${items}${more}</ul>`);
}

/**
 * Its newest log lines, one a line with when it was written: each through printable(), so a
 * newline or a bidi control in a line shows as an escape and cannot fake another line.
 */
function logRow(view: View, t: TaskDetail): Html | string {
  if (t.logCount === 0) return '';
  const lines = t.logs.map((l) => html`<li>${timeTag(l.at, relative(l.at, view.now))} <code>${printable(l.line)}</code></li>`);
  const label = t.logCount > t.logs.length ? `log (last ${t.logs.length} of ${t.logCount} lines)` : `log (${t.logCount} line${t.logCount === 1 ? '' : 's'})`;
  // data-key: the page's script opens the box at its newest line, and keeps a box scrolled up where it was.
  return row(label, html`<ol class="logs" data-logs="${t.logCount}" data-key="logs-${t.hash}">${lines}</ol>`);
}

function taskRows(view: View, queue: string, t: TaskDetail, withData: boolean): Html {
  const { now } = view;
  const cut = t.preview.endsWith('…');
  return html`${row('state', html`<span class="state ${t.state}">${t.state}</span>`)}${t.name === null ? '' : row('name', printable(t.name))}${t.schedule === null ? '' : row('schedule', html`<span data-from-schedule="${t.schedule}">put by schedule <a href="${view.base}/schedules?queue=${encodeURIComponent(queue)}">${printable(t.schedule)}</a></span>`)}${row('run at', when(t.runAt, now, '–'))}
${row('expires', when(t.expireAt, now, 'never'))}${row('attempts', `${t.attempts} of ${t.maxAttempts}`)}
${t.level > 0 ? row('priority', String(t.level)) : ''}${t.group === null ? '' : row('group', printable(t.group))}${t.key === null ? '' : row('key', printable(t.key))}
${t.state === 'active' ? html`${row('held by', html`<code>${t.worker === null ? '–' : printable(t.worker)}</code>`)}${row('lease until', when(t.leaseUntil, now, '–'))}` : ''}
${row('progress', t.percent === null ? block(t.progressPreview) : html`${progressBar(t.percent)}${block(t.progressPreview)}`)}${logRow(view, t)}${t.keepResult === null ? '' : row('keep result', `${span(t.keepResult)} once finished`)}
${dependencyRow(view, queue, t)}
${row('last error', block(t.lastError, true))}${withData ? row(cut ? `data (${size(t.bytes)})` : 'data', block(t.preview)) : ''}`;
}

function outcomeRows(view: View, o: OutcomeView): Html {
  return html`${row('state', html`<span class="state ${o.state}">${o.state}</span> <span class="dim">finished; its kept outcome</span>`)}
${row('finished', when(o.finishedAt, view.now, '–'))}${row('attempts', String(o.attempts))}
${o.state === 'done' ? row('result', block(o.result)) : ''}${o.state === 'dead' ? row('error', block(o.error, true)) : ''}
${o.into === null ? '' : row('merged into', html`<a href="${view.base}/?queue=${encodeURIComponent(o.queue)}&amp;hash=${encodeURIComponent(o.into)}"><code>${o.into}</code></a>`)}`;
}

/**
 * What the lookup found: the `task` fragment, which the page's refreshes keep current. The task
 * page shows the whole payload apart, so it asks for the fields without the data (`withData`).
 */
export function foundFragment(view: View, find: Find, withData = true): Html {
  const { found } = find;
  const head = html`<h3><code>${find.hash}</code> <span class="dim">in queue</span> ${printable(found.queue)}</h3>`;
  if (found.task !== null && withData)
    return html`${head}<p><a href="${taskLink(view, found.queue, find.hash)}" data-task-page>Open its page: the whole payload, its history and actions</a></p><dl class="fields" data-found="task">${taskRows(view, found.queue, found.task, withData)}</dl>`;
  if (found.task !== null) return html`${head}<dl class="fields" data-found="task">${taskRows(view, found.queue, found.task, withData)}</dl>`;
  if (found.outcome !== null) return html`${head}<dl class="fields" data-found="outcome">${outcomeRows(view, found.outcome)}</dl>`;
  return html`${head}<p class="empty" data-found="none">No such task in this queue, and no kept outcome. A finished task's outcome is kept only when it was put with <code>keepResult</code>, and only for that span.</p>`;
}

/** The lookup card: the form, and under it what the last lookup found. */
export function findSection(view: View, queue: string, find: Find | undefined): Html {
  const found = find === undefined ? '' : foundFragment(view, find);
  return html`<h2>Find a task <span class="sub">by its hash: a task in the queue, or a finished task's kept outcome</span></h2>${form(view, queue, find?.hash ?? '')}
<div class="found" data-fragment="task">${found}</div>`;
}
