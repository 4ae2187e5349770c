/**
 * The delayed tasks due next, on a timeline from the server's now: each task is a numbered dot
 * placed by its run-at, and the table below lists the same numbers with what can be done. The
 * axis spans the smallest round horizon that holds every dot shown, so near tasks spread out.
 */
import { printable, validTime } from '../printable';
import type { TaskList, TaskView } from './api';
import { cleanForm, taskActions, type View } from './forms';
import { html, relative, span, timeTag, type Html } from './html';
import { shown, taskCell } from './sections';

const W = 960;
const LEFT = 28;
const RIGHT = W - 28;
/** Dots closer than this share a lane no longer: they stack upwards, up to LANES high. */
const DOT_R = 11;
const GAP = DOT_R * 2 + 3;
const LANES = 4;
/** Room under the axis for the tick labels, and above the top lane. */
const BELOW = 34;
const ABOVE = 12;

/** Round horizons, each with the tick step that divides it into a few round marks. */
const HORIZONS: Array<[number, number]> = [
  [60_000, 15_000],
  [120_000, 30_000],
  [300_000, 60_000],
  [900_000, 300_000],
  [1_800_000, 300_000],
  [3_600_000, 900_000],
  [10_800_000, 1_800_000],
  [21_600_000, 3_600_000],
  [43_200_000, 10_800_000],
  [86_400_000, 21_600_000],
  [7 * 86_400_000, 86_400_000],
  [30 * 86_400_000, 7 * 86_400_000],
];

/** The smallest round horizon that holds `ms`, and its tick step; tasks further out sit at its end. */
export function horizonFor(ms: number): [number, number] {
  return HORIZONS.find(([h]) => h >= ms) ?? HORIZONS[HORIZONS.length - 1];
}

/** How far ahead a task is due; a run-at no Date can hold (a bad record) counts as beyond every horizon. */
function ahead(runAt: number, now: number): number {
  return validTime(runAt) ? runAt - now : Infinity;
}

/** `due now`, `in 5 min`, or the invalid-time mark of a bad record's run-at. */
function due(runAt: number, now: number): string {
  return validTime(runAt) && runAt <= now ? 'due now' : relative(runAt, now);
}

function xOf(runAt: number, now: number, horizon: number): number {
  const f = Math.min(1, Math.max(0, ahead(runAt, now) / horizon));
  return LEFT + f * (RIGHT - LEFT);
}

/** Gives each dot (in x order) the lowest lane where it doesn't overlap the previous dot. */
function lanes(xs: number[]): number[] {
  const last: number[] = Array(LANES).fill(-Infinity);
  return xs.map((x) => {
    let lane = last.findIndex((l) => x - l >= GAP);
    if (lane === -1) lane = last.indexOf(Math.min(...last));
    last[lane] = x;
    return lane;
  });
}

function dots(view: View, tasks: TaskView[], xs: number[], lane: number[], axisY: number): Html[] {
  return tasks.map((t, i) => {
    const x = xs[i].toFixed(1);
    const y = axisY - DOT_R - 8 - lane[i] * GAP;
    const when = due(t.runAt, view.now);
    return html`<g class="dot-task" data-hash="${t.hash}"><title>#${i + 1} ${when}: ${printable(t.preview)}</title><line class="stem" x1="${x}" x2="${x}" y1="${y + DOT_R}" y2="${axisY}"></line><circle cx="${x}" cy="${y}" r="${DOT_R}"></circle><text x="${x}" y="${y}" dy="4" text-anchor="middle">${i + 1}</text></g>`;
  });
}

function axis(horizon: number, step: number, axisY: number): Html {
  const marks = Array.from({ length: Math.floor(horizon / step) + 1 }, (_, i) => i * step);
  const ticks = marks.map((ms) => {
    const x = (LEFT + (ms / horizon) * (RIGHT - LEFT)).toFixed(1);
    const anchor = ms === 0 ? 'start' : ms === horizon ? 'end' : 'middle';
    return html`<line class="tick" x1="${x}" x2="${x}" y1="${axisY}" y2="${axisY + 6}"></line><text class="axis" x="${x}" y="${axisY + 24}" text-anchor="${anchor}">${ms === 0 ? 'now' : `+${span(ms)}`}</text>`;
  });
  return html`<line class="baseline" x1="${LEFT}" x2="${RIGHT}" y1="${axisY}" y2="${axisY}"></line><line class="now" x1="${LEFT}" x2="${LEFT}" y1="${ABOVE / 2}" y2="${axisY}"></line>${ticks}`;
}

/** The drawing: as tall as the lanes its dots need, so a sparse timeline stays slim. */
function drawing(view: View, tasks: TaskView[]): Html {
  const [horizon, step] = horizonFor(Math.max(0, ...tasks.map((t) => ahead(t.runAt, view.now)).filter(Number.isFinite)));
  const xs = tasks.map((t) => xOf(t.runAt, view.now, horizon));
  const lane = lanes(xs);
  const axisY = ABOVE + (Math.max(...lane) + 1) * GAP + 8;
  const label = `The next ${tasks.length} delayed tasks over the next ${span(horizon)}`;
  return html`<svg class="timeline" viewBox="0 0 ${W} ${axisY + BELOW}" role="img" aria-label="${label}">${axis(horizon, step, axisY)}${dots(view, tasks, xs, lane, axisY)}</svg>`;
}

function row(view: View, queue: string, t: TaskView, n: number): Html {
  const when = due(t.runAt, view.now);
  return html`<tr data-hash="${t.hash}"><td class="rank"><span class="pin">${n}</span></td><td class="num due">${timeTag(t.runAt, when)}</td>${taskCell(t, view, queue)}<td class="num">${t.attempts} / ${t.maxAttempts}</td>
<td class="end"><div class="actions">${taskActions(view, queue, t)}</div></td></tr>`;
}

/** The next due delayed tasks: the timeline, then the same tasks as a table. */
export function timelineSection(view: View, queue: string, list: TaskList): Html {
  const head = html`<h2><span class="dot delayed"></span>Coming up <span class="count">${list.total}</span> <span class="sub">delayed tasks, next due first</span>${list.total > 0 ? cleanForm(view, queue, 'delayed') : ''}</h2>`;
  if (list.tasks.length === 0) return html`${head}<p class="empty">Nothing is delayed.</p>`;
  return html`${head}${drawing(view, list.tasks)}
<div class="scroll"><table class="delayed-tasks rows" data-queue="${queue}"><thead><tr><th>#</th><th class="num">runs</th><th>task</th><th class="num">attempts</th><th></th></tr></thead>
<tbody>${list.tasks.map((t, i) => row(view, queue, t, i + 1))}</tbody></table></div>${shown(view, queue, 'delayed', list, 'delayed tasks, next due first')}`;
}
