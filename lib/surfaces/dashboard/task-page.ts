/**
 * One task's page (`GET /task?queue=&hash=`): what the lookup shows of it (detail.ts), its whole
 * payload, its history (the attempts, errors and outcomes its queue's events stream still holds,
 * beside its attempts, last error and holder) and the buttons that act on it. A task no longer in
 * its queue shows its kept outcome, or says it is unknown. Everything from Redis goes through
 * printable() before it is HTML-escaped.
 */
import { printable, printableLines } from '../printable';
import type { Scheduler } from '../../types/scheduler';
import { foundFragment } from './detail';
import { taskActions, type View } from './forms';
import { html, size, whenTag, type Html } from './html';
import { contextFor, EVENTS_SCANNED, readTaskEvents, type TaskEvent } from '../live';
import { lookup, type Lookup } from './lookup';
import { pageLink } from './shell';

/** What the task page shows. */
export interface TaskPage {
  lookup: Lookup;
  /** The whole payload as indented JSON while the task is in its queue, else null. */
  payload: string | null;
  /** Its bytes as stored (canonical JSON, UTF-8), else null. */
  bytes: number | null;
  /** Its events among the queue's newest EVENTS_SCANNED, newest first; null when they cannot be read. */
  events: TaskEvent[] | null;
  /** How its latest attempt that did not succeed ended (TaskInfo.ending: unrecoverable, retry-later, snoozed ...), else null. */
  ending?: string | null;
}

export async function readTaskPage(scheduler: Scheduler, queue: string, hash: string): Promise<TaskPage> {
  const ctx = contextFor(scheduler);
  const [found, task, events] = await Promise.all([lookup(scheduler, queue, hash), scheduler.get(hash, { queue }), ctx === null ? null : readTaskEvents(ctx, queue, hash)]);
  const json = task === null ? null : (JSON.stringify(task.data) ?? 'null');
  return {
    lookup: found,
    payload: task === null ? null : (JSON.stringify(task.data, null, 2) ?? 'null'),
    bytes: json === null ? null : Buffer.byteLength(json),
    events,
    ending: task?.ending ?? null,
  };
}

function actions(view: View, p: TaskPage): Html {
  const t = p.lookup.task;
  if (t === null) return html``;
  const { queue } = p.lookup;
  if (t.state === 'active')
    return html`<p class="note">Leased by <code>${t.worker === null ? '–' : printable(t.worker)}</code>: its worker holds it, so nothing can change it until the lease ends.</p><div class="actions start">${taskActions(view, queue, t)}</div>`;
  // A done task (the history) is over: it can only be put again, as a new task, or duplicated.
  return html`<div class="actions start">${taskActions(view, queue, t)}</div>`;
}

function eventRow(view: View, e: TaskEvent): Html {
  const error = e.error === null ? html`<span class="dim">–</span>` : html`<pre class="value error">${printableLines(e.error)}</pre>`;
  return html`<tr data-event="${e.type}"><td class="num">${whenTag(e.at, view.now)}</td><td><span class="state ${e.type}">${e.type}</span></td><td class="num">${e.attempt ?? '–'}</td><td class="error">${error}</td></tr>`;
}

function history(view: View, p: TaskPage): Html {
  const head = html`<h2>History <span class="sub">its events among the queue's newest ${EVENTS_SCANNED.toLocaleString('en')}; older ones have left the capped stream</span></h2>`;
  if (p.events === null) return html`${head}<p class="empty">This scheduler's events cannot be read here.</p>`;
  if (p.events.length === 0) return html`${head}<p class="empty" data-history="none">No event of this task among them: no attempt has failed or finished recently.</p>`;
  return html`${head}<div class="scroll"><table class="history"><thead><tr><th class="num">when</th><th>event</th><th class="num">attempt</th><th>error</th></tr></thead>
<tbody>${p.events.map((e) => eventRow(view, e))}</tbody></table></div>`;
}

/** The task page's body: its fields and actions, the whole payload, its history. */
export function taskBody(view: View, p: TaskPage): Html {
  const { queue, hash } = p.lookup;
  const back = html`<a href="${pageLink(view, '/', { queue })}">${printable(queue)}</a>`;
  const fields = html`<section class="card" data-task-page="${hash}"><p class="crumbs">${back} ›</p>${foundFragment(view, { hash, found: p.lookup }, false)}${actions(view, p)}</section>`;
  const payload =
    p.payload === null
      ? ''
      : html`<section class="card"><h2>Payload <span class="sub">${size(p.bytes ?? 0)}, whole</span></h2><pre class="value payload" data-payload>${printableLines(p.payload)}</pre></section>`;
  const ending = p.ending ? html`<p class="note" data-ending="${p.ending}">Its last attempt ended: <b>${p.ending}</b>.</p>` : '';
  return html`${fields}${ending}${payload}<section class="card">${history(view, p)}</section>`;
}
