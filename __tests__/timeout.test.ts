/**
 * Run timeouts: an attempt that runs longer than its `timeout` has its signal aborted with a
 * RunTimeoutError and fails (retried, or dead), whether or not the handler heeds the signal; its
 * lease is not extended past the timeout.
 */
import { RunTimeoutError, ValidationError } from '../lib';
import { eventually, keysUnder, sleep, useRedis } from './support/harness';

const redis = useRedis();

describe('timeout', () => {
  it('aborts the signal with a RunTimeoutError and fails the attempt, which is retried', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('slow', { timeout: 100, maxAttempts: 2 });
    const reasons: unknown[] = [];
    let calls = 0;
    const w = s.work(
      async (task, signal) => {
        calls++;
        if (task.attempt === 1) {
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          reasons.push(signal.reason);
          return;
        }
        return 'second time lucky';
      },
      { backoff: () => 0, keepResult: 60_000 },
    );
    await eventually(async () => (await s.result(hash))?.state === 'done', 5000);
    await w.close();
    expect(calls).toBe(2);
    expect(reasons[0]).toBeInstanceOf(RunTimeoutError);
    expect(reasons[0]).toMatchObject({ code: 'ERR_RUN_TIMEOUT', hash, timeoutMs: 100 });
    expect((await s.stats()).totals).toMatchObject({ failed: 1, completed: 1 });
  });

  it('fails the attempt at the timeout even when the handler ignores its signal, and holds its slot until it returns', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('stubborn', { timeout: 80, maxAttempts: 1 });
    await s.put('next');
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const w = s.work(async (task) => {
      started.push(task.data as string);
      if (task.data === 'stubborn') await gate; // ignores the signal
    });
    await eventually(async () => (await s.get(hash))?.state === 'dead', 3000);
    expect((await s.get(hash))!.lastError).toMatch(/RunTimeoutError: task .* ran longer than its timeout of 80 ms/);
    // concurrency 1: the handler still runs, so the next task waits for its slot.
    await sleep(100);
    expect(started).toEqual(['stubborn']);
    release();
    await eventually(() => started.length === 2, 3000);
    await w.close();
  });

  it("takes the worker's timeout when the put gave none; the put's wins", async () => {
    const s = await redis.scheduler();
    await s.put('own', { timeout: 5000 });
    await s.put('default');
    const seen = new Map<string, unknown>();
    const w = s.work(
      async (task, signal) => {
        await sleep(150);
        seen.set(task.data as string, signal.aborted ? signal.reason : null);
      },
      { timeout: 60, maxAttempts: 1, concurrency: 2 },
    );
    await eventually(() => seen.size === 2, 3000);
    await w.close();
    expect(seen.get('own')).toBeNull();
    expect(seen.get('default')).toBeInstanceOf(RunTimeoutError);
  });

  it('does not extend the lease past the timeout', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put('lease', { timeout: 1200, maxAttempts: 1 });
    let leaseUntil = 0;
    const w = s.work(
      async (task, signal) => {
        leaseUntil = task.leaseUntil;
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      },
      { lease: 600, maxAttempts: 1 },
    );
    let latest = 0;
    await eventually(async () => {
      const score = await raw.zScore(`${(s as { prefix: string }).prefix}:{default}:active`, hash);
      if (score !== null) latest = Math.max(latest, score);
      return (await s.get(hash))?.state === 'dead';
    }, 10_000);
    await w.close();
    // Extended every 200 ms, never past the timeout's end plus the grace of min(lease, 1 s) = 600 ms
    // (so to at most the first lease end + 1200 + 600 - 600, with slack for the handler's start).
    // A lease and a grace of 600 ms, not 120: the fail must land within the grace, and a loaded
    // machine (CI runs a fault scenario beside this) can hold the event loop for over 120 ms.
    expect(latest).toBeGreaterThan(0);
    expect(latest - leaseUntil).toBeLessThanOrEqual(1200 + 300);
    // The fail landed within the lease: the attempt failed once, no lease lapsed.
    expect((await s.stats()).totals).toMatchObject({ failed: 1, leaseLost: 0, dead: 1 });
  });

  it('is shown by claim and get, and bad timeouts are refused, naming the field, writing nothing', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    for (const timeout of [0, -1, 2 ** 31, 'soon']) {
      await expect(s.put('x', { timeout: timeout as number })).rejects.toMatchObject({ name: 'ValidationError', field: 'options.timeout' });
    }
    expect(() => s.work(async () => {}, { timeout: 0 })).toThrow(ValidationError);
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
    const { hash } = await s.put('x', { timeout: { seconds: 2 } });
    expect((await s.get(hash))!.timeout).toBe(2000);
    expect((await s.claim())!.timeout).toBe(2000);
  });
});
