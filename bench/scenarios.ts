/**
 * The nine scenarios of issue 4 and request/response (issue 14), each run inside one child process
 * against a flushed Redis. Each brackets its timed part with mark('start') and mark('end'), where
 * the parent takes its INFO snapshots; loading that a scenario needs first is outside the marks
 * and not timed.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import type { Adapter, Payload, Reply } from './adapters/adapter';
import type { Measure } from './protocol';
import { percentiles } from './stats';

export interface Sizes {
  /**
   * Tasks put (half one by one, half in bulk) and drained before each row's timed part, untimed:
   * a long-running service has its JIT warm, its connections open and its scripts loaded, and a
   * fresh process would charge the larger library for its start-up.
   */
  warm: number;
  /** Tasks in the put, bulk, drain, dedup and scale (measured part) scenarios. */
  tasks: number;
  pickup: number;
  delayed: number;
  memory: number;
  /** Round trips in the reqres scenario. */
  requests: number;
  /** Pending tasks in the two scale runs. */
  scaleSmall: number;
  scaleLarge: number;
}

export const FULL: Sizes = { warm: 5_000, tasks: 50_000, pickup: 2_000, delayed: 1_000, memory: 100_000, requests: 2_000, scaleSmall: 1_000, scaleLarge: 1_000_000 };
/** --quick: a tenth of every size, for smoke tests. */
export const QUICK: Sizes = Object.fromEntries(Object.entries(FULL).map(([k, v]) => [k, v / 10])) as unknown as Sizes;

const IN_FLIGHT = 100;
const BATCH = 1_000;
const PICKUP_PER_SECOND = 500;
/** How long an idle worker settles in its wait before the pickup and delayed scenarios. */
const SETTLE_MS = 300;
/** Far enough ahead that the scale runs' delayed half never comes due. */
const FAR_AHEAD_MS = 24 * 3600 * 1000;
/** How long the latency scenarios wait for stragglers before reporting what ran. */
const STRAGGLER_MS = 30_000;
/** Threads (docket) or child processes (BullMQ) of the sandboxed drain. */
const SANDBOX_CONCURRENCY = 4;
/** Requests in flight in the reqres scenario, and its worker's concurrency. */
const REQUESTS_IN_FLIGHT = 32;

export interface Bench {
  adapter: Adapter;
  sizes: Sizes;
  /** Asks the parent to snapshot Redis here; resolves with used_memory at that moment. */
  mark(at: 'start' | 'end'): Promise<number>;
}

const payload = (n: number): Payload => ({ to: `user-${n}@example.com`, template: 'welcome', n });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Date.now()'s scale with sub-millisecond resolution, for lateness against wall-clock run-ats. */
const wall = () => performance.timeOrigin + performance.now();

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Runs fn(0..count-1) with `width` calls in flight at any time. */
async function inFlight(count: number, width: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, count) }, async () => {
      while (next < count) await fn(next++);
    }),
  );
}

/** Puts payloads from..from+count-1 in bulk batches, one batch after another. */
async function load(b: Bench, from: number, count: number, delayMs = 0): Promise<void> {
  for (let i = from; i < from + count; i += BATCH) {
    const items = Array.from({ length: Math.min(BATCH, from + count - i) }, (_, j) => payload(i + j));
    await b.adapter.putBulk(items, delayMs);
  }
}

/** Times fn between the two marks; returns tasks per second. */
async function timed(b: Bench, tasks: number, fn: () => Promise<void>): Promise<Measure> {
  await b.mark('start');
  const started = performance.now();
  await fn();
  const seconds = (performance.now() - started) / 1000;
  await b.mark('end');
  return { rate: tasks / seconds, tasks };
}

/**
 * Drains with a worker at `concurrency`, timed from its start until `count` handlers have run
 * and then, when `measured` is not given, until the library reports nothing left (the last ack
 * is in). With `measured`, only handlers for those tasks count and the clock stops at the last.
 */
async function drain(b: Bench, concurrency: number, count: number, measured?: (n: number) => boolean): Promise<Measure> {
  let done = 0;
  const all = deferred();
  const worker = await b.adapter.work(concurrency, (data) => {
    if ((!measured || measured(data.n)) && ++done === count) all.resolve();
  });
  const m = await timed(b, count, async () => {
    worker.start();
    await all.promise;
    if (!measured) while ((await b.adapter.count()) > 0) await sleep(1);
  });
  await worker.close();
  return m;
}

/** Latency percentiles of the tasks that ran, and a note if some did not within the limit. */
function latencies(values: Float64Array, ran: number): Measure {
  const seen = values.filter((v) => !Number.isNaN(v));
  return { ...percentiles(seen), tasks: values.length, note: ran < values.length ? `only ${ran} of ${values.length} ran` : undefined };
}

/** An idle worker at concurrency 1, settled in its wait; `onTask` is its handler. */
async function idleWorker(b: Bench, count: number, onTask: (n: number) => void) {
  let ran = 0;
  const all = deferred();
  const worker = await b.adapter.work(1, (data) => {
    onTask(data.n);
    if (++ran === count) all.resolve();
  });
  worker.start();
  await sleep(SETTLE_MS);
  return { worker, ran: () => ran, all: Promise.race([all.promise, sleep(STRAGGLER_MS)]) };
}

/** Payloads of the warm-up: numbers no row uses, so no row's put is a duplicate of one. */
const WARM_FROM = 1_000_000_000;

/**
 * The warm-up before every row (see Sizes.warm): puts, bulk puts and a drain at c=32 of `warm`
 * tasks through the same calls the rows make, until the library counts none left, so the row
 * starts from an empty queue.
 */
export async function warmUp(b: Bench): Promise<void> {
  const count = b.sizes.warm;
  if (count === 0) return;
  const single = Math.floor(count / 2);
  await inFlight(single, IN_FLIGHT, (i) => b.adapter.put(payload(WARM_FROM + i)));
  await load(b, WARM_FROM + single, count - single);
  let ran = 0;
  const all = deferred();
  const worker = await b.adapter.work(32, () => {
    if (++ran === count) all.resolve();
  });
  worker.start();
  await Promise.race([all.promise, sleep(STRAGGLER_MS)]);
  while ((await b.adapter.count()) > 0) await sleep(1);
  await worker.close();
}

/**
 * Bytes the client's heap allocated between start and stop: what each collection found in use
 * before it ran less what the previous one left, plus what is in use at the end beyond the last.
 * v8.GCProfiler (Node 20) reports every collection's heap before and after; garbage collected
 * young counts as well as what survives, which is what the scavenges' pauses are made of.
 */
function allocationMeter(): () => number {
  const profiler = new v8.GCProfiler();
  let last = v8.getHeapStatistics().used_heap_size;
  profiler.start();
  return () => {
    const end = v8.getHeapStatistics().used_heap_size;
    let allocated = 0;
    for (const gc of profiler.stop().statistics) {
      allocated += gc.beforeGC.heapStatistics.usedHeapSize - last;
      last = gc.afterGC.heapStatistics.usedHeapSize;
    }
    return allocated + end - last;
  };
}

/** A debounce delay longer than any run, so debounced tasks wait while they are measured. */
const DEBOUNCE_MS = 600_000;

export const SCENARIOS: Record<string, (b: Bench) => Promise<Measure>> = {
  put: (b) => timed(b, b.sizes.tasks, () => inFlight(b.sizes.tasks, IN_FLIGHT, (i) => b.adapter.put(payload(i)))),

  bulk: (b) => timed(b, b.sizes.tasks, () => load(b, 0, b.sizes.tasks)),

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
    const latency = new Float64Array(count).fill(NaN);
    const w = await idleWorker(b, count, (n) => (latency[n] = performance.now() - before[n]));
    await b.mark('start');
    const started = performance.now();
    const puts: Array<Promise<void>> = [];
    for (let i = 0; i < count; i++) {
      // On a schedule, not back to back: each put should find the worker idle or nearly so.
      const wait = started + (i * 1000) / PICKUP_PER_SECOND - performance.now();
      if (wait > 0) await sleep(wait);
      before[i] = performance.now();
      puts.push(b.adapter.put(payload(i)));
    }
    await Promise.all(puts);
    await w.all;
    await b.mark('end');
    await w.worker.close();
    return latencies(latency, w.ran());
  },

  async delayed(b) {
    const count = b.sizes.delayed;
    const due = new Float64Array(count);
    const late = new Float64Array(count).fill(NaN);
    const w = await idleWorker(b, count, (n) => (late[n] = wall() - due[n]));
    await b.mark('start');
    // 100 in flight, as the put row: a put may wait in the client before it is sent, and the
    // lateness counts from the put() call, as a caller's delay does (issue 42). BullMQ and
    // bee-queue take the run-at from the client's clock at the call; docket takes off the time a
    // put waited before it was sent; minimal (the floor) takes the Redis clock when its call runs.
    const putting = performance.now();
    await inFlight(count, IN_FLIGHT, (i) => {
      const delay = 1000 + Math.round(Math.random() * 2000); // uniform over 1–3 s
      due[i] = wall() + delay;
      return b.adapter.putDelayed(payload(i), delay);
    });
    const putMs = performance.now() - putting;
    await w.all;
    await b.mark('end');
    await w.worker.close();
    const m = latencies(late, w.ran());
    // The first run-at is 1 s out: slower puts would no longer all be "up front".
    return putMs < 1000 ? m : { ...m, note: [m.note, `puts took ${putMs.toFixed(0)} ms`].filter(Boolean).join('; ') };
  },

  async reqres(b) {
    const count = b.sizes.requests;
    const worker = await b.adapter.work(REQUESTS_IN_FLIGHT, (data): Reply => ({ n: data.n, sent: true }));
    const request = await b.adapter.requests(STRAGGLER_MS);
    worker.start();
    // One window of requests before the clock, for every library alike: lazily opened connections,
    // script loading and the JIT. Their payloads (count..) differ from the measured ones (docket
    // would take an identical one for the same task).
    await inFlight(REQUESTS_IN_FLIGHT, REQUESTS_IN_FLIGHT, (i) => request(payload(count + i)).then(() => undefined));
    const trips = roundTrips(count);
    const m = await timed(b, count, () => inFlight(count, REQUESTS_IN_FLIGHT, (i) => trips.time(i, () => request(payload(i)))));
    await worker.close();
    return { ...m, ...trips.measure() };
  },

  // Issue 19: a no-op handler module run in the library's sandbox (docket's threads, BullMQ's
  // child processes), a quarter of the drain's tasks, from the worker's start until none is left.
  async drainSandboxed(b) {
    const count = b.sizes.tasks / 4;
    await load(b, 0, count);
    const worker = await b.adapter.workSandboxed!(SANDBOX_CONCURRENCY, path.join(__dirname, 'sandbox', 'noop.js'));
    const m = await timed(b, count, async () => {
      worker.start();
      while ((await b.adapter.count()) > 0) await sleep(1);
    });
    await worker.close();
    return m;
  },

  scaleSmall: (b) => scale(b, b.sizes.scaleSmall),
  scaleLarge: (b) => scale(b, b.sizes.scaleLarge),

  async memory(b) {
    const before = await b.mark('start');
    await load(b, 0, b.sizes.memory);
    const after = await b.mark('end');
    return { bytes: (after - before) / b.sizes.memory, tasks: b.sizes.memory };
  },

  // Issue 32: the client's heap allocation per task over a task's whole life in one process (put
  // one by one, 100 in flight, then a drain at c=32 until none is left), in bytes.
  async alloc(b) {
    const count = b.sizes.tasks;
    let ran = 0;
    const all = deferred();
    const worker = await b.adapter.work(32, () => {
      if (++ran === count) all.resolve();
    });
    await b.mark('start');
    const stop = allocationMeter();
    await inFlight(count, IN_FLIGHT, (i) => b.adapter.put(payload(i)));
    worker.start();
    await Promise.race([all.promise, sleep(STRAGGLER_MS)]);
    while ((await b.adapter.count()) > 0) await sleep(1);
    const allocated = stop();
    await b.mark('end');
    await worker.close();
    return { bytes: allocated / count, tasks: count, note: ran < count ? `only ${ran} of ${count} ran` : undefined };
  },

  async dedup(b) {
    const order = pairsShuffled(b.sizes.tasks / 2, 100);
    const m = await timed(b, order.length, () => inFlight(order.length, IN_FLIGHT, (i) => b.adapter.putUnique(payload(order[i]))));
    return { ...m, distinct: await b.adapter.count() };
  },

  // Issue 14: debounced puts, each key put twice (pairs shuffled as in dedup), the second put
  // replacing the first's data and pushing its run-at on. The delay outlasts the run: nothing runs.
  async debounce(b) {
    const put = b.adapter.putDebounced!.bind(b.adapter);
    const order = pairsShuffled(b.sizes.tasks / 2, 100);
    const m = await timed(b, order.length, () => inFlight(order.length, IN_FLIGHT, (i) => put({ ...payload(order[i]), n: i }, `k${order[i]}`, DEBOUNCE_MS)));
    return { ...m, distinct: await b.adapter.count() };
  },
};

/**
 * Round-trip latencies of `count` requests: each from just before its put until its result is in
 * hand. A request that fails, or answers with another task's result, counts in a note instead.
 */
function roundTrips(count: number) {
  const latency = new Float64Array(count).fill(NaN);
  let wrong = 0;
  const errors: string[] = [];
  return {
    async time(i: number, request: () => Promise<unknown>): Promise<void> {
      const sent = performance.now();
      try {
        const result = (await request()) as Reply | null;
        if (result?.n === i && result.sent) latency[i] = performance.now() - sent;
        else wrong++;
      } catch (err) {
        errors.push(String((err as Error)?.message ?? err));
      }
    },
    measure(): Omit<Measure, 'tasks'> {
      const answered = count - wrong - errors.length;
      const notes = [answered < count && `only ${answered} of ${count} answered`, wrong > 0 && `${wrong} with another task's result`, errors.length > 0 && `first error: ${errors[0]}`];
      return { ...percentiles(latency.filter((v) => !Number.isNaN(v))), note: notes.filter(Boolean).join('; ') || undefined };
    },
  };
}

/** Each of 0..distinct-1 twice, the pairs shuffled within windows of `window` payloads. */
function pairsShuffled(distinct: number, window: number): number[] {
  const order: number[] = [];
  for (let w = 0; w < distinct; w += window) {
    const chunk = Array.from({ length: Math.min(window, distinct - w) }, (_, i) => w + i).flatMap((n) => [n, n]);
    for (let i = chunk.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [chunk[i], chunk[j]] = [chunk[j], chunk[i]];
    }
    order.push(...chunk);
  }
  return order;
}

/**
 * Claim+ack throughput with `pending` tasks waiting: half delayed far ahead, then the measured
 * tasks, then the other half ready behind them. Only the measured ones are timed (until the last
 * of their handlers has run; the queue is never empty here, so there is no ack to wait for).
 */
async function scale(b: Bench, pending: number): Promise<Measure> {
  const measured = b.sizes.tasks;
  const first = pending / 2;
  await load(b, 0, first, FAR_AHEAD_MS);
  await load(b, first, measured);
  await load(b, first + measured, pending / 2);
  return drain(b, 32, measured, (n) => n >= first && n < first + measured);
}
