/**
 * T3 and T3b (issue 3): redis-server (appendonly yes, appendfsync always) is SIGKILLed 10 times and
 * restarted on the same dir while 32 producers put 20,000 tasks; in T3b, worker processes ack
 * during the kills. Must hold: no ok put is lost; an indeterminate put retried with the same data
 * is not duplicated (de-dup); NOSCRIPT and LOADING never reach a caller (every error is a typed
 * timeout, unknown outcome or connection error); in T3b an ack that resolved is never re-run, so
 * duplicates stay within what was in flight at the kills; the invariants hold.
 */
import type { Scheduler } from '../../lib';
import { eventually, sleep } from '../support/harness';
import { checkInvariants, layout, pending, summary } from './support/checker';
import { useLab, type Lab } from './support/lab';
import type { WorkConfig } from './support/workers';

const AOF = ['--appendonly', 'yes', '--appendfsync', 'always'];
const KILLS = 10;
const PRODUCERS = 32;
const WORK: WorkConfig = { concurrency: 4, leaseMs: 2000, workMs: [1, 5] };

const t3 = useLab({ redisArgs: AOF });
const t3b = useLab({ redisArgs: AOF });

/** 32 producer loops over 4 schedulers: each label is put until one put of it is answered. */
async function produce(lab: Lab, total: number, seen: Set<string>): Promise<void> {
  const schedulers: Scheduler[] = await Promise.all([1, 2, 3, 4].map(() => lab.scheduler({ commandTimeout: 2000 })));
  let next = 0;
  await Promise.all(
    Array.from({ length: PRODUCERS }, async (_, p) => {
      const s = schedulers[p % schedulers.length];
      for (let i = next++; i < total; i = next++) {
        const label = `t3-${i}`;
        // Retry an unknown outcome with the same data until it is answered: de-dup makes it safe.
        for (;;) {
          try {
            lab.history.ok(label, (await s.put({ label }, { maxAttempts: 50 })).hash);
            break;
          } catch (err) {
            lab.history.error(label, err, true);
            await sleep(50);
          }
        }
        seen.add(label);
      }
    }),
  );
}

/** Kills and restarts the queue's Redis each time another tenth of the puts is answered. */
async function killRepeatedly(lab: Lab, total: number, seen: Set<string>): Promise<number> {
  let inFlight = 0;
  for (let kill = 1; kill <= KILLS; kill++) {
    await eventually(() => seen.size >= (total * kill) / (KILLS + 1), 60_000);
    inFlight += await lab.raw.zCard(layout(lab.prefix, lab.queue).active).catch(() => 0);
    await lab.redis.kill();
    await sleep(100 + Math.random() * 200);
    await lab.redis.restart();
  }
  return inFlight;
}

/** Every error a caller saw must be one a caller can act on: none is "Function not found" or LOADING. */
function errorCodes(lab: Lab): { failed: number; untyped: number } {
  const entries = lab.history.entries();
  return { failed: entries.reduce((n, [, r]) => n + r.failed, 0), untyped: lab.history.untyped };
}

it('T3: loses no acknowledged put across 10 crashes and restarts of Redis', async () => {
  const started = Date.now();
  const total = 20_000;
  const seen = new Set<string>();
  const [inFlight] = await Promise.all([killRepeatedly(t3, total, seen), produce(t3, total, seen)]);
  const k = layout(t3.prefix, t3.queue);
  const stored = await t3.raw.hLen(k.tasks);
  const violations = await checkInvariants(t3.raw, t3.prefix, t3.queue);
  const f = await t3.figures();
  console.log(summary('T3', f, { kills: KILLS, stored, wallMs: Date.now() - started }));
  // Nothing ran (no workers): every ok put must still be there, exactly once per label.
  expect(stored).toBe(total);
  expect(f.hashConflicts).toBe(0);
  expect(errorCodes(t3)).toEqual({ failed: 0, untyped: 0 });
  expect(inFlight).toBe(0);
  expect(violations).toEqual([]);
});

it('T3b: loses nothing and never re-runs an acked task while workers ack through the crashes', async () => {
  const started = Date.now();
  const total = 5000;
  const seen = new Set<string>();
  await Promise.all([1, 2, 3, 4].map(() => t3b.pool.spawn({ work: WORK })));
  const [inFlight] = await Promise.all([killRepeatedly(t3b, total, seen), produce(t3b, total, seen)]);
  await eventually(async () => (await pending(t3b.raw, t3b.prefix, t3b.queue)) === 0, 60_000);
  const violations = await checkInvariants(t3b.raw, t3b.prefix, t3b.queue);
  const f = await t3b.figures();
  console.log(summary('T3b', f, { kills: KILLS, inFlightAtKills: inFlight, wallMs: Date.now() - started }));
  expect(f).toMatchObject({ lost: 0, unexpected: 0, untyped: 0, dead: 0, hashConflicts: 0 });
  expect(f.duplicated).toBeLessThanOrEqual(Math.max(inFlight, WORK.concurrency * 4 * KILLS));
  expect(errorCodes(t3b)).toEqual({ failed: 0, untyped: 0 });
  expect(violations).toEqual([]);
});
