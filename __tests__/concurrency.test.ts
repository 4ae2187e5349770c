/**
 * Queue concurrency: at most N tasks of a queue leased at once across every worker and process,
 * decided in the claim; slots come back through acks, fails and the recovery of lapsed leases.
 */
import { ValidationError } from '../lib';
import { eventually, keysUnder, sleep, useRedis } from './support/harness';

const redis = useRedis();

describe('limitConcurrency', () => {
  it('holds every worker of every scheduler to the limit, and all tasks still run', async () => {
    const s = await redis.scheduler();
    const others = await Promise.all([1, 2].map(() => redis.scheduler({ prefix: s.prefix })));
    await s.limitConcurrency(3);
    expect(await s.concurrencyLimit()).toEqual({ limit: 3, active: 0 });
    await s.putMany(Array.from({ length: 60 }, (_, i) => ({ data: i })));
    let running = 0;
    let most = 0;
    let done = 0;
    const handler = async () => {
      most = Math.max(most, ++running);
      await sleep(5 + Math.random() * 10);
      running--;
      done++;
    };
    const workers = [s, ...others].flatMap((x) => [x.work(handler, { concurrency: 4 }), x.work(handler, { concurrency: 2 })]);
    await eventually(() => done === 60, 15_000);
    await Promise.all(workers.map((w) => w.close()));
    expect(most).toBeLessThanOrEqual(3);
    expect(most).toBe(3);
  });

  it('gives a slot back when a lease lapses (a dead holder), and on ack and fail', async () => {
    const s = await redis.scheduler();
    await s.limitConcurrency(2);
    await s.putMany([1, 2, 3, 4].map((n) => ({ data: n })));
    // 500 ms: the empty claim below must come while both are held, even on a loaded machine.
    const held = await s.claimMany(4, { lease: 500 });
    expect(held).toHaveLength(2);
    expect(await s.claimMany(4)).toEqual([]);
    await sleep(600); // the holder is gone: both leases lapse, and their slots come back
    const next = await s.claimMany(4, { lease: 10_000 });
    expect(next).toHaveLength(2);
    expect(await s.claim()).toBeNull();
    expect(await s.ack(next[0])).toBe(true);
    expect(await s.claim({ lease: 10_000 })).not.toBeNull();
    expect(await s.fail(next[1], { retryIn: 60_000 })).toBe('retry');
    expect(await s.claim()).not.toBeNull();
    expect(await s.concurrencyLimit()).toEqual({ limit: 2, active: 2 });
  });

  it('a limit raised or removed while workers wait lets them lease at once', async () => {
    const s = await redis.scheduler();
    await s.limitConcurrency(1);
    await s.putMany(Array.from({ length: 6 }, (_, i) => ({ data: i })));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started = 0;
    const w = s.work(
      async () => {
        started++;
        await gate;
      },
      { concurrency: 6 },
    );
    await eventually(() => started === 1);
    await sleep(100);
    expect(started).toBe(1);
    await s.limitConcurrency(4);
    await eventually(() => started === 4, 2000);
    await s.limitConcurrency(null);
    await eventually(() => started === 6, 2000);
    release();
    await w.close();
    expect(await s.concurrencyLimit()).toEqual({ limit: null, active: 0 });
  });

  it('refuses bad limits, naming the field, and writes nothing', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    for (const bad of [0, -1, 1.5, 'many', 100_001]) {
      const err = await s.limitConcurrency(bad as number).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect(err).toMatchObject({ field: 'limit' });
    }
    await expect(s.limitConcurrency(2, { queue: 'a b' })).rejects.toMatchObject({ field: 'options.queue' });
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
  });
});
