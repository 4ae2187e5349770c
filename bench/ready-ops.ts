/**
 * Per-task operations on a queue with many ready tasks (issue 17): cancel, reschedule into the
 * future and changePriority of a ready task, each at 1e3 and 1e6 ready tasks, taken from near the
 * tail of the list (the worst place for a scan from the head). Reports the Redis time of each call
 * (the `usec` of its EVALSHA in INFO commandstats: the time Redis was blocked by it), median and
 * worst of SAMPLES calls, on a throwaway redis-server of its own. Run it on two commits to compare:
 * `npm run bench:ready-ops` (`-- --quick` for 1e3 and 1e5, `-- --out file.md` to write the report).
 * bench/READY_OPS.md has the figures before and after ghosts (issue 17).
 */
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { createClient } from 'redis';
import { createScheduler, type Scheduler } from '../lib';
import { startRedis } from '../__tests__/support/redis-server';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, out: { type: 'string' } } });
const SIZES = values.quick ? [1_000, 100_000] : [1_000, 1_000_000];
const SAMPLES = 20;
const BATCH = 1_000;

type Admin = ReturnType<typeof createClient>;

/** usec and calls of EVALSHA so far. */
async function evalsha(admin: Admin): Promise<{ calls: number; usec: number }> {
  const m = (await admin.info('commandstats')).match(/cmdstat_evalsha:calls=(\d+),usec=(\d+)/);
  return m ? { calls: Number(m[1]), usec: Number(m[2]) } : { calls: 0, usec: 0 };
}

/** The Redis time of one call that makes one EVALSHA. */
async function timed(admin: Admin, call: () => Promise<unknown>): Promise<number> {
  const before = await evalsha(admin);
  await call();
  const after = await evalsha(admin);
  if (after.calls - before.calls !== 1) throw new Error(`expected one script call, saw ${after.calls - before.calls}`);
  return after.usec - before.usec;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function fill(s: Scheduler, n: number): Promise<string[]> {
  const hashes: string[] = [];
  for (let i = 0; i < n; i += BATCH) {
    const put = await s.putMany(Array.from({ length: Math.min(BATCH, n - i) }, (_, j) => ({ data: { n: i + j } })));
    for (const r of put) hashes.push(r.hash);
  }
  return hashes;
}

async function main(): Promise<void> {
  const redis = await startRedis();
  const admin = createClient({ url: redis.url });
  await admin.connect();
  const rows: string[] = [];
  try {
    for (const size of SIZES) {
      await admin.flushAll();
      const s = await createScheduler({ url: redis.url, prefix: 'ops', onWarning: () => {} });
      const hashes = await fill(s, size);
      // Three disjoint samples near the tail: the last 3 × SAMPLES tasks put.
      const tail = hashes.slice(-3 * SAMPLES);
      const at = (await s.time()) + 3600_000;
      const ops: Array<[string, (h: string) => Promise<unknown>]> = [
        ['cancel', (h) => s.cancel(h)],
        ['reschedule (ready → +1 h)', (h) => s.reschedule(h, at)],
        ['changePriority (0 → 5)', (h) => s.changePriority(h, 5)],
      ];
      for (const [k, [name, op]] of ops.entries()) {
        const us: number[] = [];
        for (const h of tail.slice(k * SAMPLES, (k + 1) * SAMPLES)) us.push(await timed(admin, () => op(h)));
        rows.push(`| ${name} | ${size.toLocaleString('en')} | ${median(us)} µs | ${Math.max(...us)} µs |`);
        console.log(rows[rows.length - 1]);
      }
      await s.close();
    }
  } finally {
    await admin.quit();
    await redis.stop();
  }
  const report = [
    '# Per-task operations on a large ready list',
    '',
    `Redis time of one call (EVALSHA usec), median and worst of ${SAMPLES} calls on tasks near the tail of the normal-priority ready list. ${cpus().length} cores, ${cpus()[0]?.model.trim() ?? 'unknown CPU'}; Node ${process.version}.`,
    '',
    '| Operation | Ready tasks | Median | Worst |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
  // bench/READY_OPS.md holds a before-and-after pair: a run writes a file only when asked to.
  if (values.out) writeFileSync(values.out, report);
  else console.log(`\n${report}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
