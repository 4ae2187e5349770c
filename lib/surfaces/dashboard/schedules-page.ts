/**
 * A queue's recurring schedules (`GET /schedules?queue=`): each one's schedule as every() was
 * given it, its data, the latest occurrence put and the next run, as `docket schedules` shows
 * them. The next run is the latest occurrence when it is still ahead (put already, as a delayed
 * task), else the schedule's next time after now, which a process declaring it will put.
 */
import { Occurrences } from '../../features/recurring';
import { printable } from '../printable';
import type { Scheduler } from '../scheduler';
import type { View } from './forms';
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
}

export interface SchedulesView {
  now: number;
  queue: string;
  schedules: ScheduleView[];
}

function nextRun(cron: string | null, tz: string | null, every: number | null, latest: number | null, now: number): { next: number | null; nextPut: boolean } {
  if (latest !== null && latest > now) return { next: latest, nextPut: true };
  try {
    return { next: Occurrences.of(cron === null ? every : { cron, tz: tz ?? 'UTC' }).after(now), nextPut: false };
  } catch {
    return { next: null, nextPut: false }; // a definition written by something else: listed, with no next run
  }
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
    ...nextRun(s.cron, s.tz, s.every, s.latest, now),
  }));
  return { now, queue, schedules };
}

function scheduleText(s: ScheduleView): string {
  if (s.cron !== null) return `${s.cron} (${s.tz ?? 'UTC'})`;
  return s.every === null ? '–' : `every ${span(s.every)}`;
}

function row(view: View, s: ScheduleView): Html {
  const next = s.next === null ? '–' : html`${whenTag(s.next, view.now)}${s.nextPut ? '' : html` <span class="tag">not put yet</span>`}`;
  return html`<tr data-schedule="${s.name}"><th scope="row">${printable(s.name)}</th><td><code>${printable(scheduleText(s))}</code></td><td class="num" data-next>${next}</td>
<td class="num">${s.latest === null ? '–' : whenTag(s.latest, view.now)}</td><td class="task"><code class="data" title="${printable(s.data)}">${printable(s.data)}</code></td></tr>`;
}

export function schedulesBody(view: View, v: SchedulesView): Html {
  const head = html`<h2>Schedules <span class="count">${v.schedules.length}</span> <span class="sub">every() declarations of queue ${printable(v.queue)}; a cron's own zone is beside it, run times are in UTC</span></h2>`;
  if (v.schedules.length === 0) return html`<section class="card">${head}<p class="empty">No recurring schedule in this queue.</p></section>`;
  const note = v.schedules.some((s) => s.next !== null && !s.nextPut)
    ? html`<p class="note">Not put yet: no process has put that run; none declares the schedule with every() now, or one is about to.</p>`
    : '';
  return html`<section class="card">${head}<div class="scroll"><table class="schedules"><thead><tr><th>name</th><th>schedule</th><th class="num">next run</th><th class="num">latest put</th><th>data</th></tr></thead>
<tbody>${v.schedules.map((s) => row(view, s))}</tbody></table></div>${note}</section>`;
}
