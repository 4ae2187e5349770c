/**
 * The throughput chart: one bar per bucket of throughput(), completed, failed and dead stacked,
 * drawn as inline SVG. Geometry goes in SVG attributes, not style attributes, so the page's CSP needs
 * no 'unsafe-inline' for it; colours come from the stylesheet's classes.
 */
import type { Throughput } from '../../types/events';
import type { ChartSpan } from './api';
import type { View } from './forms';
import { html, span, type Html } from './html';

/** The drawing's box, in viewBox units; it scales to the card's width. */
const W = 960;
const H = 210;
const PLOT = { left: 48, right: W - 8, top: 14, bottom: H - 30 };

/** The smallest round number at or above `n` (a few per power of ten, so the bars fill the height). */
export function niceCeil(n: number): number {
  if (n <= 1) return 1;
  const mag = 10 ** Math.floor(Math.log10(n));
  for (const m of [1, 1.5, 2, 3, 4, 5, 6, 8, 10]) if (m * mag >= n) return m * mag;
  return 10 * mag;
}

function yOf(value: number, max: number): number {
  return PLOT.bottom - (value / max) * (PLOT.bottom - PLOT.top);
}

/**
 * The series, stacked bottom up. A failure that used up the task's attempts is a 'dead' event,
 * not a 'failed' one, so both are drawn: together they are every failed attempt.
 */
const SERIES = ['completed', 'failed', 'dead'] as const;
type Bucket = Throughput['buckets'][number];

const total = (b: Bucket) => b.completed + b.failed + b.dead;

/** Past this many buckets (the 24-hour span's 1,440 minutes) a bar per bucket weighs too much: each series is one path. */
const MAX_BAR_ELEMENTS = 200;

/**
 * The bars of many buckets: one `<path>` per series, a closed box per non-empty bucket, so a day
 * of minutes is three elements, not thousands (the page's refresh sends the chart every 2 s).
 */
function paths(t: Throughput, max: number): Html[] {
  const slot = (PLOT.right - PLOT.left) / t.buckets.length;
  const below = t.buckets.map(() => 0);
  return SERIES.map((series) => {
    const boxes = t.buckets.map((b, i) => {
      if (b[series] === 0) return '';
      const top = yOf(below[i] + b[series], max);
      const bottom = yOf(below[i], max);
      below[i] += b[series];
      return `M${(PLOT.left + i * slot).toFixed(2)} ${top.toFixed(1)}h${slot.toFixed(2)}V${bottom.toFixed(1)}h${(-slot).toFixed(2)}Z`;
    });
    const d = boxes.join('');
    return d === '' ? html`` : html`<path class="${series}" d="${d}"></path>`;
  });
}

function bars(t: Throughput, max: number): Html[] {
  if (t.buckets.length > MAX_BAR_ELEMENTS) return paths(t, max);
  const slot = (PLOT.right - PLOT.left) / t.buckets.length;
  const width = Math.max(1, slot * 0.72).toFixed(1);
  return t.buckets.map((b, i) => {
    const x = (PLOT.left + i * slot + (slot - Number(width)) / 2).toFixed(1);
    let below = 0;
    const rects = SERIES.map((series) => {
      if (b[series] === 0) return '';
      const top = yOf(below + b[series], max);
      const bottom = yOf(below, max);
      below += b[series];
      return html`<rect class="${series}" x="${x}" y="${top.toFixed(1)}" width="${width}" height="${(bottom - top).toFixed(1)}"></rect>`;
    });
    const label = `${span(Math.max(0, t.now - (b.at + t.bucket)))} ago: ${b.completed} completed, ${b.failed} failed and retrying, ${b.dead} dead`;
    return html`<g class="bar"><title>${label}</title><rect class="hit" x="${x}" y="${PLOT.top}" width="${width}" height="${PLOT.bottom - PLOT.top}"></rect>${rects}</g>`;
  });
}

function grid(max: number): Html[] {
  const steps = Number.isInteger(max / 2) ? [0, max / 2, max] : [0, max];
  return steps.map((v) => {
    const y = yOf(v, max).toFixed(1);
    return html`<line class="grid" x1="${PLOT.left}" x2="${PLOT.right}" y1="${y}" y2="${y}"></line><text class="axis" x="${PLOT.left - 8}" y="${y}" dy="4" text-anchor="end">${v.toLocaleString('en')}</text>`;
  });
}

function timeAxis(t: Throughput): Html {
  const window = t.buckets.length * t.bucket;
  const y = PLOT.bottom + 20;
  return html`<text class="axis" x="${PLOT.left}" y="${y}">−${span(window)}</text><text class="axis" x="${(PLOT.left + PLOT.right) / 2}" y="${y}" text-anchor="middle">−${span(window / 2)}</text><text class="axis" x="${PLOT.right}" y="${y}" text-anchor="end">now</text>`;
}

/** Shades the part of the window its source no longer covers (trimmed from the capped stream). */
function trimmed(t: Throughput): Html {
  const start = t.buckets[0]?.at ?? t.now;
  const end = start + t.buckets.length * t.bucket;
  if (t.since <= start || end <= start) return html``;
  const x = PLOT.left + Math.min(1, (t.since - start) / (end - start)) * (PLOT.right - PLOT.left);
  const why = t.source === 'minutes' ? 'before the per-minute counters began' : 'older events were trimmed from the stream';
  return html`<rect class="trimmed" x="${PLOT.left}" y="${PLOT.top}" width="${(x - PLOT.left).toFixed(1)}" height="${PLOT.bottom - PLOT.top}"><title>${why}</title></rect>`;
}

/** The span switch: the last 10 minutes (the events stream) or the last 24 hours (the per-minute counters), each a link. */
function spans(view: View, queue: string, chosen: ChartSpan): Html {
  const items: Array<[ChartSpan, string]> = [
    ['10m', '10 min'],
    ['24h', '24 h'],
  ];
  const links = items.map(
    ([s, label]) =>
      html`<a class="btn plain${s === chosen ? ' on' : ''}" href="${view.base}/?queue=${encodeURIComponent(queue)}&amp;span=${s}" data-span="${s}"${s === chosen ? html` aria-current="true"` : ''}>${label}</a>`,
  );
  return html`<span class="spans" role="group" aria-label="chart span">${links}</span>`;
}

const LABELS: Record<(typeof SERIES)[number], string> = { completed: 'completed', failed: 'failed, retrying', dead: 'dead' };

/** The chart with its span switch and legend: totals over the window, and the rate per minute. */
export function chartSection(t: Throughput, view?: View, queue?: string, chosen: ChartSpan = '10m'): Html {
  const window = t.buckets.length * t.bucket;
  const sums = SERIES.map((series) => t.buckets.reduce((n, b) => n + b[series], 0));
  const max = niceCeil(Math.max(0, ...t.buckets.map(total)));
  const perMin = (n: number) => (n / (window / 60_000)).toLocaleString('en', { maximumFractionDigits: 1 });
  const legend = SERIES.map(
    (series, i) =>
      html`<span><i class="swatch ${series}"></i>${LABELS[series]} <b data-total="${series}">${sums[i].toLocaleString('en')}</b> <span class="dim">${perMin(sums[i])}/min</span></span>`,
  );
  const label = `Tasks per ${span(t.bucket)} over the last ${span(window)}: ${SERIES.map((series, i) => `${sums[i]} ${LABELS[series]}`).join(', ')}`;
  const from = t.source === 'minutes' ? 'per-minute counters' : 'events stream';
  const switcher = view === undefined || queue === undefined ? '' : spans(view, queue, chosen);
  return html`<h2>Throughput <span class="sub">last ${span(window)}, one bar per ${span(t.bucket)}, from the ${from}</span>${switcher}</h2><div class="legend">${legend}</div>
<svg class="chart" viewBox="0 0 ${W} ${H}" data-chart-span="${chosen}" data-buckets="${t.buckets.length}" role="img" aria-label="${label}">${trimmed(t)}${grid(max)}${bars(t, max)}<line class="baseline" x1="${PLOT.left}" x2="${PLOT.right}" y1="${PLOT.bottom}" y2="${PLOT.bottom}"></line>${timeAxis(t)}</svg>`;
}
