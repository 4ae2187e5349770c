/**
 * T8 (issue 3): nothing piles up. 100,000 small tasks plus 10,000 duplicate puts of them go in
 * with putMany, then worker processes drain the queue. After the drain: no key beyond the queue's
 * fixed set (and, once the workers left and the ack memory's TTL ran out, only `counts`, `wake`,
 * the capped `events` stream, the registry of queue names and the done
 * history, on by default and bounded: its last 1,000 tasks, as after the warm-up), Redis's
 * used_memory back near its baseline (the stream's cap and a full history included), and the
 * workers' heaps stable.
 */
import { DONE_HISTORY } from '../../lib/domain/domain';
import { eventually, keysUnder } from '../support/harness';
import { checkInvariants, layout, pending, summary } from './support/checker';
import { useLab } from './support/lab';
import { executionCount } from './support/oracle';
import type { ChildWorker } from './support/workers';

const TASKS = 100_000;
const DUPLICATES = 10_000;
const BATCH = 11_000;
/** A short deadline makes the ack memory (a few deadlines long) expire soon after the drain. */
const COMMAND_TIMEOUT_MS = 2000;
const MiB = 1024 * 1024;
/** Heap growth tolerated per worker between a warm checkpoint and the end of the drain. */
const HEAP_SLACK = 8 * MiB;

const lab = useLab();

async function usedMemory(): Promise<number> {
  const info = await lab.raw.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)![1]);
}

/** The tasks in put order, a tenth of them followed later by a duplicate of an earlier one. */
function items(): Array<{ data: { label: string } }> {
  const out: Array<{ data: { label: string } }> = [];
  const every = TASKS / DUPLICATES;
  for (let i = 0; i < TASKS; i++) {
    out.push({ data: { label: `t8-${i}` } });
    if (i % every === every - 1) out.push({ data: { label: `t8-${Math.floor(Math.random() * i)}` } });
  }
  return out;
}

/** Every put finishes before any worker starts, so each duplicate meets its live original. */
async function putAll(): Promise<number> {
  const producer = await lab.scheduler({ commandTimeout: COMMAND_TIMEOUT_MS });
  const all = items();
  let added = 0;
  for (let i = 0; i < all.length; i += BATCH) {
    const chunk = all.slice(i, i + BATCH);
    const call = producer.putMany(chunk);
    await lab.history.track(
      chunk.map((item) => item.data.label),
      call,
    );
    added += (await call).filter((r) => r.added).length;
  }
  return added;
}

/**
 * One small cycle first (put, claim, ack, ack memory expired): Redis's first big script calls
 * leave about 0.5 MiB of one-off allocations behind (they did not grow over four more cycles in a
 * trial), which belong in the baseline, not in the figure that would reveal a leak. Its 5,000
 * tasks also fill the done history to its count, so the baseline holds a full history too.
 */
async function warmUp(): Promise<void> {
  const s = await lab.scheduler({ commandTimeout: 300 });
  await s.putMany(Array.from({ length: 5000 }, (_, i) => ({ data: { label: `warm-${i}` } })));
  for (let tasks = await s.claimMany(16); tasks.length > 0; tasks = await s.claimMany(16)) await Promise.all(tasks.map((t) => s.ack(t)));
  const acked = layout(lab.prefix, lab.queue).acked;
  await eventually(async () => (await lab.raw.exists(acked)) === 0, 5000);
}

const heaps = (workers: ChildWorker[]) => Promise.all(workers.map((w) => w.heap()));

it('leaves no keys and no memory behind after 100,000 tasks', async () => {
  const started = Date.now();
  await warmUp();
  const baseline = await usedMemory();
  const added = await putAll();
  const peak = await usedMemory();
  const work = { concurrency: 16, leaseMs: 10_000, workMs: [0, 0] as [number, number] };
  const workers = await Promise.all(Array.from({ length: 4 }, () => lab.pool.spawn({ work, commandTimeoutMs: COMMAND_TIMEOUT_MS })));
  await eventually(async () => (await executionCount(lab.oracle, lab.run)) >= TASKS / 5, 60_000);
  const warm = await heaps(workers);
  await eventually(async () => (await pending(lab.raw, lab.prefix, lab.queue)) === 0, 120_000);
  const drained = Date.now();
  const end = await heaps(workers);
  expect(await checkInvariants(lab.raw, lab.prefix, lab.queue)).toEqual([]);
  await Promise.all(workers.map((w) => w.close()));
  const k = layout(lab.prefix, lab.queue);
  await eventually(async () => (await lab.raw.exists(k.acked)) === 0, 10 * COMMAND_TIMEOUT_MS);
  const after = await usedMemory();
  const keys = await keysUnder(lab.raw, lab.prefix);
  const f = await lab.figures();
  const growth = Math.max(...end.map((h, i) => h - warm[i]));
  console.log(
    summary('T8', f, {
      added,
      baselineKiB: baseline >> 10,
      peakKiB: peak >> 10,
      afterKiB: after >> 10,
      heapGrowthKiB: growth >> 10,
      drainMs: drained - started,
      wallMs: Date.now() - started,
    }),
  );
  expect(added).toBe(TASKS);
  expect(Number(await lab.raw.hGet(k.counts, 'deduplicated'))).toBe(DUPLICATES);
  expect(f).toMatchObject({ puts: TASKS + DUPLICATES, ok: TASKS + DUPLICATES, lost: 0, unexpected: 0, duplicated: 0, hashConflicts: 0 });
  // Besides the history: totals, the wake token, the events stream and the per-minute outcome
  // counts (a day's worth at most, expiring a day after the last).
  expect(keys.filter((key) => ![k.counts, k.wake, k.events, k.minutes, k.done, k.history, `${lab.prefix}:queues`].includes(key))).toEqual([]);
  // The history holds its count, no more: the last tasks done, not 100,000.
  expect(await lab.raw.zCard(k.done)).toBe(DONE_HISTORY.count);
  // Each kept run is a row and, its task's latest, a pointer to it (lua/include/runs.lua): the tasks are distinct.
  expect(await lab.raw.hLen(k.history)).toBe(2 * DONE_HISTORY.count);
  // 210,000 outcomes went through the stream; it keeps about its cap (10,000 by default).
  expect(await lab.raw.xLen(k.events)).toBeLessThanOrEqual(11_000);
  expect(after - baseline).toBeLessThanOrEqual(Math.max(MiB, baseline / 10));
  expect(growth).toBeLessThanOrEqual(HEAP_SLACK);
});
