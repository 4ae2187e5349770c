/**
 * A queue's live workers (`GET /workers?queue=`): each work() worker with its heartbeat and the
 * tasks it holds, then any holder of leases without a heartbeat (a process calling claim()
 * itself). Read from the `workers` and `held` keys (lib/surfaces/live.ts, readWorkersPage); a worker whose heartbeat ran out is
 * shown as gone until the next beat of another worker lapses its leases and drops it.
 */
import { printable } from '../printable';
import type { View } from './forms';
import { html, relative, timeTag, type Html } from './html';
import { MAX_HELD, MAX_WORKERS, type WorkerView, type WorkersPage } from '../live';
import { taskLink } from './shell';

/** Most held tasks listed per worker; the rest are counted. */
const MAX_LISTED = 20;

function beat(view: View, w: WorkerView): Html {
  if (w.beatUntil === null) return html`<span class="dim">no heartbeat: claim() called directly</span>`;
  if (w.beatUntil <= view.now) return html`<span class="badge paused">gone</span> ${timeTag(w.beatUntil, `heartbeat ran out ${relative(w.beatUntil, view.now)}`)}`;
  return html`<span class="badge running">alive</span> ${timeTag(w.beatUntil, `next deadline ${relative(w.beatUntil, view.now)}`)}`;
}

function row(view: View, queue: string, w: WorkerView): Html {
  const links = w.holds.slice(0, MAX_LISTED).map((h) => html`<li><a href="${taskLink(view, queue, h)}" data-task="${h}"><code>${printable(h)}</code></a></li>`);
  const more = w.holds.length > MAX_LISTED ? html`<li class="dim">and ${w.holds.length - MAX_LISTED} more</li>` : '';
  const holds = w.holds.length === 0 ? html`<span class="dim">nothing</span>` : html`<ul class="deps">${links}${more}</ul>`;
  return html`<tr data-worker="${w.id}"><td class="worker"><code>${printable(w.id)}</code></td><td>${beat(view, w)}</td><td class="num">${w.holds.length}</td><td>${holds}</td></tr>`;
}

export function workersBody(view: View, p: WorkersPage): Html {
  if (!p.available) return html`<section class="card"><h2>Workers</h2><p class="empty">This scheduler was not made by createScheduler, so its workers cannot be read here.</p></section>`;
  const v = p.view;
  const head = html`<h2>Workers <span class="count">${v.workerCount}</span> <span class="sub">work() loops of queue ${printable(p.queue)} with a heartbeat, and what each holds (${v.heldCount} ${v.heldCount === 1 ? 'lease' : 'leases'} in all)</span></h2>`;
  if (v.workers.length === 0) return html`<section class="card">${head}<p class="empty">No worker is running, and no task is leased.</p></section>`;
  const cut = v.workerCount > MAX_WORKERS || v.heldCount > MAX_HELD ? html`<p class="more">Showing the first ${MAX_WORKERS} workers and ${MAX_HELD} leases.</p>` : '';
  return html`<section class="card">${head}<div class="scroll"><table class="workers"><thead><tr><th>worker</th><th>heartbeat</th><th class="num">holds</th><th>tasks</th></tr></thead>
<tbody>${v.workers.map((w) => row(view, p.queue, w))}</tbody></table></div>${cut}</section>`;
}
