/**
 * A queue's recurring schedules (`GET /schedules?queue=`): each one's schedule as every() or
 * schedule() was given it, its data, the latest occurrence put and the next run, as `docket
 * schedules` shows them, with Run now, Pause and Resume buttons (`POST /api/run-schedule`,
 * `pause-schedule`, `resume-schedule`: schedule-actions.ts). The next run is listSchedules()' `next`: put
 * already (as a delayed task) when at or before the latest occurrence put, else its next time, which a
 * process declaring it (or, for a stored schedule, a worker of the queue) will put.
 */
import { printable } from '../printable';
import type { Scheduler } from '../../types/scheduler';
import { actionForm, type View } from './forms';
import { clip, html, span, whenTag, type Html } from './html';

/** How much of a schedule's data the page shows. */
const MAX_DATA_CHARS = 200;

export interface ScheduleView {
  name: string;
  /** The cron expression and its zone, or null for an interval. */
  cron: string | null;
  tz: string | null;
  /** The interval in ms, or null for a cron expression. */
  every: number | null;
  /** The start of its data's JSON, cut to 200 characters. */
  data: string;
  /** The latest occurrence put (epoch ms, Redis clock), or null before the first. */
  latest: number | null;
  /** The next run (epoch ms, Redis clock), or null when the stored schedule cannot be read. */
  next: number | null;
  /** Whether that run is put already (a delayed task). */
  nextPut: boolean;
  /** Stored with schedule(), rather than declared with every(). */
  stored: boolean;
  /** Paused: no occurrence is put until it is resumed. */
  paused: boolean;
}

export interface SchedulesView {
  now: number;
  queue: string;
  schedules: ScheduleView[];
}

export async function readSchedules(scheduler: Scheduler, queue: string): Promise<SchedulesView> {
  const [now, list] = await Promise.all([scheduler.time(), scheduler.listSchedules({ queue })]);
  const schedules = list.map((s) => ({
    name: s.name,
    cron: s.cron,
    tz: s.tz,
    every: s.every,
    data: clip(JSON.stringify(s.data) ?? 'null', MAX_DATA_CHARS),
    latest: s.latest,
    stored: s.stored,
    paused: s.paused,
    next: s.next,
    // listSchedules() names the next run; it is put when at or before the latest occurrence put.
    nextPut: s.next !== null && s.latest !== null && s.next <= s.latest,
  }));
  return { now, queue, schedules };
}

function scheduleText(s: ScheduleView): string {
  if (s.cron !== null) return `${s.cron} (${s.tz ?? 'UTC'})`;
  return s.every === null ? '–' : `every ${span(s.every)}`;
}

/** Run now, and Pause or Resume: each posts `{ queue, name }`. */
function buttons(view: View, queue: string, s: ScheduleView): Html {
  const controls = html`<input type="hidden" name="name" value="${s.name}">`;
  const run = actionForm(view, { action: 'run-schedule', queue, label: 'Run now', kind: 'primary', controls });
  const hold = s.paused
    ? actionForm(view, { action: 'resume-schedule', queue, label: 'Resume', kind: 'plain', controls })
    : actionForm(view, { action: 'pause-schedule', queue, label: 'Pause', kind: 'plain', controls });
  return html`${run}${hold}`;
}

function row(view: View, queue: string, s: ScheduleView): Html {
  const next = s.paused ? html`<span class="tag">paused</span>` : s.next === null ? '–' : html`${whenTag(s.next, view.now)}${s.nextPut ? '' : html` <span class="tag">not put yet</span>`}`;
  const kind = s.stored ? html` <span class="tag">stored</span>` : '';
  return html`<tr data-schedule="${s.name}"><th scope="row">${printable(s.name)}${kind}</th><td><code>${printable(scheduleText(s))}</code></td><td class="num" data-next>${next}</td>
<td class="num">${s.latest === null ? '–' : whenTag(s.latest, view.now)}</td><td class="task"><code class="data" title="${printable(s.data)}">${printable(s.data)}</code></td><td class="actions">${buttons(view, queue, s)}</td></tr>`;
}

export function schedulesBody(view: View, v: SchedulesView): Html {
  const head = html`<h2>Schedules <span class="count">${v.schedules.length}</span> <span class="sub">schedule() and every() schedules of queue ${printable(v.queue)}; a cron's own zone is beside it, run times are in UTC</span></h2>`;
  if (v.schedules.length === 0) return html`<section class="card">${head}<p class="empty">No recurring schedule in this queue.</p></section>`;
  const note = v.schedules.some((s) => s.next !== null && !s.nextPut)
    ? html`<p class="note">Not put yet: no process has put that run; none declares the schedule with every() now (or, for a stored one, no worker of the queue is up), or one is about to.</p>`
    : '';
  return html`<section class="card">${head}<div class="scroll"><table class="schedules"><thead><tr><th>name</th><th>schedule</th><th class="num">next run</th><th class="num">latest put</th><th>data</th><th></th></tr></thead>
<tbody>${v.schedules.map((s) => row(view, v.queue, s))}</tbody></table></div>${note}</section>`;
}
