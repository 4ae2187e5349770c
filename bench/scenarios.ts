/**
 * The scenarios of issue 4, each timed inside one child process against a flushed Redis. Loading
 * that a scenario needs before its timed part is not timed.
 */
import { performance } from 'node:perf_hooks';
import type { Adapter, Payload } from './adapters/adapter';

export interface Sizes {
  /** Tasks in the put, bulk, drain and dedup scenarios (20,000 in a full run). */
  tasks: number;
  pickup: number;
  delayed: number;
  memory: number;
  /** Pending tasks in the two scale runs. */
  scaleSmall: number;
  scaleLarge: number;
}

export const FULL: Sizes = { tasks: 20_000, pickup: 2_000, delayed: 1_000, memory: 100_000, scaleSmall: 1_000, scaleLarge: 1_000_000 };
export const QUICK: Sizes = { tasks: 2_000, pickup: 200, delayed: 100, memory: 10_000, scaleSmall: 1_000, scaleLarge: 100_000 };

/** What a scenario measured: a rate (tasks/s), latency percentiles (ms), or bytes per task. */
export interface Measure {
  rate?: number;
  p50?: number;
  p99?: number;
  max?: number;
  bytes?: number;
  /** Extra facts worth reporting (e.g. distinct tasks stored by the dedup run). */
  note?: string;
}

export interface Bench {
  adapter: Adapter;
  sizes: Sizes;
  /** Starts the timed part: resets Redis's command counters (see run.ts). */
  mark(): Promise<void>;
  usedMemory(): Promise<number>;
}

const payload = (n: number): Payload => ({ to: `user-${n}@example.com`, template: 'welcome', n });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nowMs = () => performance.timeOrigin + performance.now();

async function inFlight(count: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) await fn(next++);
  }));
}

async function load(b: Bench, from: number, count: number, delayMs = 0): Promise<void> {
  for (let i = from; i < from + count; i += 1000) {
    const n = Math.min(1000, from + count - i);
    const items = Array.from({ length: n }, (_, j) => payload(i + j));
    if (delayMs === 0) await b.adapter.putBulk(items);
    else await Promise.all(items.map((p) => b.adapter.putDelayed(p, delayMs)));
  }
}

function rate(count: number, started: number): Measure {
  return { rate: count / ((performance.now() - started) / 1000) };
}

function percentiles(values: number[]): Measure {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1] };
}

/** Drains `count` tasks at `concurrency`, timed from the worker's start to the last handler. */
async function drain(b: Bench, concurrency: number, count: number): Promise<Measure> {
  let done = 0;
  let finish!: () => void;
  const all = new Promise<void>((resolve) => (finish = resolve));
  await b.mark();
  const started = performance.now();
  const worker = await b.adapter.work(concurrency, () => {
    if (++done === count) finish();
  });
  await all;
  const m = rate(count, started);
  await worker.close();
  return m;
}

export const SCENARIOS: Record<string, (b: Bench) => Promise<Measure>> = {
  async put(b) {
    await b.mark();
    const started = performance.now();
    await inFlight(b.sizes.tasks, 100, (i) => b.adapter.put(payload(i)));
    return rate(b.sizes.tasks, started);
  },

  async bulk(b) {
    await b.mark();
    const started = performance.now();
    await load(b, 0, b.sizes.tasks);
    return rate(b.sizes.tasks, started);
  },

  async drain1(b) {
    await load(b, 0, b.sizes.tasks);
    return drain(b, 1, b.sizes.tasks);
  },

  async drain32(b) {
    await load(b, 0, b.sizes.tasks);
    return drain(b, 32, b.sizes.tasks);
  },

  async pickup(b) {
    const count = b.sizes.pickup;
    const before = new Float64Array(count);
    const latency: number[] = [];
    let finish!: () => void;
    const all = new Promise<void>((resolve) => (finish = resolve));
    const worker = await b.adapter.work(1, (data) => {
      latency.push(performance.now() - before[data.n]);
      if (latency.length === count) finish();
    });
    await sleep(300); // an idle worker, settled in its wait
    await b.mark();
    const started = performance.now();
    const puts: Array<Promise<void>> = [];
    for (let i = 0; i < count; i++) {
      // 500/s on a schedule, not back to back: each put finds the worker idle or nearly so.
      const wait = started + i * 2 - performance.now();
      if (wait > 0) await sleep(wait);
      before[i] = performance.now();
      puts.push(b.adapter.put(payload(i)));
    }
    await Promise.all(puts);
    await Promise.race([all, sleep(30_000)]);
    await worker.close();
    return { ...percentiles(latency), note: latency.length < count ? `only ${latency.length} of ${count} ran` : undefined };
  },

  async delayed(b) {
    const count = b.sizes.delayed;
    const due = new Float64Array(count);
    const late: number[] = [];
    let finish!: () => void;
    const all = new Promise<void>((resolve) => (finish = resolve));
    const worker = await b.adapter.work(1, (data) => {
      late.push(nowMs() - due[data.n]);
      if (late.length === count) finish();
    });
    await b.mark();
    await inFlight(count, 100, async (i) => {
      const delay = 1000 + Math.random() * 2000;
      due[i] = nowMs() + delay;
      await b.adapter.putDelayed(payload(i), Math.round(delay));
    });
    await Promise.race([all, sleep(30_000)]);
    await worker.close();
    return { ...percentiles(late), note: late.length < count ? `only ${late.length} of ${count} ran` : undefined };
  },

  scaleSmall: (b) => scale(b, b.sizes.scaleSmall),
  scaleLarge: (b) => scale(b, b.sizes.scaleLarge),

  async memory(b) {
    const before = await b.usedMemory();
    await load(b, 0, b.sizes.memory);
    return { bytes: ((await b.usedMemory()) - before) / b.sizes.memory };
  },

  async dedup(b) {
    // Every payload twice, the second shortly after the first: pairs shuffled in windows of 200.
    const order: number[] = [];
    for (let w = 0; w < b.sizes.tasks / 2; w += 100) {
      const window = Array.from({ length: Math.min(100, b.sizes.tasks / 2 - w) }, (_, i) => w + i).flatMap((n) => [n, n]);
      for (let i = window.length - 1; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [window[i], window[j]] = [window[j], window[i]];
      }
      order.push(...window);
    }
    await b.mark();
    const started = performance.now();
    await inFlight(order.length, 100, (i) => b.adapter.putUnique(payload(order[i])));
    const m = rate(order.length, started);
    return { ...m, note: `${await b.adapter.pending()} distinct stored` };
  },
};

/**
 * Claim+ack throughput with `pending` tasks waiting: half delayed far ahead, half ready behind the
 * 20,000 measured ones. Only the measured ones are drained; the rest is the queue's size.
 */
async function scale(b: Bench, pending: number): Promise<Measure> {
  const measured = b.sizes.tasks;
  await load(b, 0, pending / 2, 24 * 3600 * 1000);
  await load(b, pending, measured);
  await load(b, pending + measured, pending / 2);
  return drain(b, 32, measured);
}
