/**
 * T4 (issue 3): every client goes through a TCP proxy that injects latency (200 ± 100 ms), a 5 s
 * black hole, 10 connection resets, 3 s of refused connections, and a cut right after an ack is
 * written (its reply lost). Must hold: nothing is lost; every API call settles, resolved or
 * rejected with a typed error, within its timeout + 1 s, with none left pending; throughput is
 * back to 80% of its baseline within 5 s of the heal; no unhandled rejection anywhere.
 */
import { eventually, sleep } from '../support/harness';
import { checkInvariants, pending, summary } from './support/checker';
import { useLab } from './support/lab';
import { executionCount } from './support/oracle';
import { RedisProxy } from './support/proxy';
import type { WorkConfig } from './support/workers';

const TIMEOUT_MS = 2000;
const WORK: WorkConfig = { concurrency: 4, leaseMs: 3000, workMs: [1, 5] };
const lab = useLab();

/** Executions per second over the next `ms`. */
async function rate(ms: number): Promise<number> {
  const before = await executionCount(lab.oracle, lab.run);
  await sleep(ms);
  return ((await executionCount(lab.oracle, lab.run)) - before) / (ms / 1000);
}

it('settles every call and loses nothing through latency, black hole, resets, refusals and lost replies', async () => {
  const started = Date.now();
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  const proxy = await RedisProxy.start(lab.redis.port);
  try {
    const workers = await Promise.all([1, 2].map(() => lab.pool.spawn({ url: proxy.url, work: WORK })));
    const producer = await lab.scheduler({ url: proxy.url, commandTimeout: TIMEOUT_MS });
    let stop = false;
    let n = 0;
    let slowest = 0;
    let faulty = false;
    // A steady producer: one put at a time, each timed.
    const producing = (async () => {
      while (!stop) {
        const label = `t4-${n++}`;
        const t = Date.now();
        await lab.history.track(
          [label],
          producer.put({ label }, { maxAttempts: 50 }).then((r) => [r]),
          () => faulty,
        );
        slowest = Math.max(slowest, Date.now() - t);
        await sleep(2);
      }
    })();
    const baseline = await rate(2000);
    faulty = true;
    await proxy.latency(200, 100);
    await sleep(3000);
    await proxy.blackhole();
    await sleep(5000);
    await proxy.pass();
    for (let i = 0; i < 10; i++) {
      proxy.reset();
      await sleep(300);
    }
    await proxy.refuse();
    proxy.reset();
    await sleep(3000);
    await proxy.pass();
    // An ack whose reply is lost: the ack script names the `acked` key.
    await Promise.race([proxy.cutAfterNextWrite((chunk) => chunk.includes(':acked')), sleep(5000)]);
    faulty = false;
    const healedAt = Date.now();
    await sleep(5000 - (Date.now() - healedAt));
    const after = await rate(2000);
    stop = true;
    await producing;

    // Put again what came back unknown: de-dup makes it safe.
    const unsure = lab.history
      .entries()
      .filter(([, r]) => r.ok === 0)
      .map(([label]) => label);
    for (const label of unsure)
      await lab.history.track(
        [label],
        producer.put({ label }, { maxAttempts: 50 }).then((r) => [r]),
      );
    await eventually(async () => (await pending(lab.raw, lab.prefix, lab.queue)) === 0, 30_000);
    const violations = await checkInvariants(lab.raw, lab.prefix, lab.queue);
    const f = await lab.figures();
    console.log(
      summary('T4', f, { baselinePerS: Math.round(baseline), afterHealPerS: Math.round(after), slowestCallMs: slowest, retriedUnsure: unsure.length, wallMs: Date.now() - started }),
    );
    expect(f).toMatchObject({ lost: 0, unexpected: 0, untyped: 0, dead: 0, hashConflicts: 0 });
    expect(slowest).toBeLessThanOrEqual(TIMEOUT_MS + 1000);
    expect(after).toBeGreaterThanOrEqual(0.8 * baseline);
    expect(workers.every((w) => w.alive)).toBe(true);
    expect(unhandled).toEqual([]);
    expect(violations).toEqual([]);
  } finally {
    process.removeListener('unhandledRejection', onUnhandled);
    await proxy.close();
  }
});
