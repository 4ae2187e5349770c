/**
 * T18 (issue 17): a handler blocks its worker's event loop for 3 s (synchronous work), so no
 * heartbeat goes out meanwhile, while a worker of another process polls the same queue. With a
 * heartbeat deadline of 10 s the blocked worker is not taken for dead: its task runs once and is
 * acked by it. With the default deadline of 2 s the same block has the other worker run the task
 * again, and the blocked worker reports EventLoopBlockedError, which says what to change: the
 * contrast shows that the deadline is what holds it.
 */
import { eventually } from '../support/harness';
import { pending } from './support/checker';
import { useLab } from './support/lab';
import type { WorkConfig } from './support/workers';

const BLOCK_MS = 3000;
const WORK: WorkConfig = { concurrency: 1, leaseMs: 30_000, workMs: [10, 10], recordStarts: true };

const lab = useLab();

/**
 * Starts two workers with the same deadline, then puts one task whose first attempt blocks:
 * whichever worker takes it blocks, and the other polls the queue meanwhile.
 */
async function blockOnce(label: string, deadlineMs?: number) {
  const workers = [await lab.pool.spawn({ work: { ...WORK, heartbeatDeadlineMs: deadlineMs } }), await lab.pool.spawn({ work: { ...WORK, heartbeatDeadlineMs: deadlineMs } })];
  const producer = await lab.scheduler();
  await lab.history.track([label], producer.putMany([{ data: { label, blockMs: BLOCK_MS } }]));
  await eventually(async () => (await pending(lab.raw, lab.prefix, lab.queue)) === 0, 20_000);
  const first = () => lab.starts().then((all) => all.find((s) => s.label === label && s.attempt === 1)?.pid);
  const blocker = (await first())!;
  // The blocked worker's own run (its late ack, or its refusal) is in before the workers go.
  await eventually(async () => (await lab.executions()).some((e) => e.label === label && e.pid === blocker), 10_000);
  await Promise.all(workers.map((w) => w.close()));
  const runs = (await lab.executions()).filter((e) => e.label === label);
  const reported = (await lab.events()).filter((e) => e.kind === 'error' && e.pid === blocker && e.code === 'ERR_EVENT_LOOP_BLOCKED');
  return { runs, reported, blocker };
}

it('keeps a worker that blocks its loop for 3 s alive with a 10 s heartbeat deadline; the 2 s default does not', async () => {
  const long = await blockOnce('long', 10_000);
  console.log(`[T18] deadline 10 s: runs=${long.runs.length} reported=${long.reported.length}`);
  expect(long.runs).toHaveLength(1);
  expect(long.runs[0].pid).toBe(long.blocker);
  expect(long.reported).toEqual([]);

  const short = await blockOnce('short');
  console.log(`[T18] deadline 2 s (default): runs=${short.runs.length} reported=${short.reported.length}`);
  expect(short.runs).toHaveLength(2);
  expect(new Set(short.runs.map((r) => r.pid)).size).toBe(2);
  expect(short.reported.length).toBeGreaterThanOrEqual(1);
});
