/**
 * T7 (issue 3): clocks disagree. The producer's Date.now runs an hour ahead, one worker's an hour
 * ahead and the other's an hour behind. docket decides every time on the Redis clock, so: each
 * run-at is the server's now + delay (not an hour off), no task runs before its run-at by the
 * Redis clock, none runs an hour late, and leases kept alive by skewed workers hold (no duplicate).
 */
import { eventually, serverNow } from '../support/harness';
import { checkInvariants, pending, summary } from './support/checker';
import { useLab } from './support/lab';

const HOUR = 3_600_000;
const TASKS = 200;
/** A few handlers outlive their lease twice over, so the skewed workers must extend it. */
const LEASE_MS = 1000;
const LONG_MS = 2000;

const lab = useLab();

function items() {
  return Array.from({ length: TASKS }, (_, i) => {
    const delay = Math.floor(Math.random() * 2000);
    const data = { label: `t7-${i}`, ...(i % 20 === 0 ? { workMs: LONG_MS } : {}) };
    return { data, options: { delay, priority: i % 3 === 0 } };
  });
}

it('runs no task before its run-at by the Redis clock when client clocks are an hour off', async () => {
  const started = Date.now();
  const work = { concurrency: 8, leaseMs: LEASE_MS, workMs: [0, 20] as [number, number], readServerTime: true };
  const children = await Promise.all([lab.pool.spawn({ clockShiftMs: HOUR }), lab.pool.spawn({ clockShiftMs: HOUR, work }), lab.pool.spawn({ clockShiftMs: -HOUR, work })]);
  const producer = children[0];
  // The shift took: each child's clock is an hour off ours.
  for (const child of children) expect(Math.abs((await child.now()) - Date.now() - child.config.clockShiftMs!)).toBeLessThan(1000);
  const batch = items();
  const before = await serverNow(lab.raw);
  const results = producer.put(batch);
  await lab.history.track(
    batch.map((item) => item.data.label),
    results,
  );
  const after = await serverNow(lab.raw);
  await eventually(async () => (await pending(lab.raw, lab.prefix, lab.queue)) === 0, 20_000);

  const runAts = new Map((await results).map((r, i) => [r.hash, { runAt: r.runAt, delay: batch[i].options.delay }]));
  const execs = await lab.executions();
  const early = execs.filter((e) => e.serverNow! < e.runAt);
  const late = execs.filter((e) => e.serverNow! - e.runAt > 10_000);
  const offClock = [...runAts.values()].filter(({ runAt, delay }) => runAt < before + delay || runAt > after + delay);
  const f = await lab.figures();
  const worstLateMs = Math.max(...execs.map((e) => e.serverNow! - e.runAt));
  console.log(summary('T7', f, { early: early.length, offClock: offClock.length, worstLateMs, wallMs: Date.now() - started }));
  expect(offClock).toEqual([]);
  expect(execs.every((e) => e.runAt === runAts.get(e.hash)?.runAt)).toBe(true);
  expect(early).toEqual([]);
  expect(late).toEqual([]);
  expect(f).toMatchObject({ ok: TASKS, lost: 0, unexpected: 0, duplicated: 0, untyped: 0 });
  expect(await checkInvariants(lab.raw, lab.prefix, lab.queue)).toEqual([]);
});
