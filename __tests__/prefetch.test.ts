/**
 * Prefetch (lib/life/prefetch.ts): a worker with quick handlers leases a few tasks beyond its free slots; a
 * slow handler hands them back; close() hands them back; `prefetch: 0` turns it off.
 */
import { ValidationError, type Scheduler } from '../lib';
import { eventually, sleep, useRedis } from './support/harness';

const redis = useRedis();

/** The most tasks seen leased at once by handlers of a one-slot worker, over `n` quick tasks. */
async function mostLeased(s: Scheduler, n: number, prefetch?: number): Promise<{ most: number; order: number[] }> {
  const order: number[] = [];
  let most = 0;
  const worker = s.work<number>(
    async (task) => {
      order.push(task.data);
      // Every fourth task looks at the queue: quick enough (one round trip) to keep prefetch on.
      if (task.data % 4 === 3) most = Math.max(most, (await s.stats()).active);
    },
    { concurrency: 1, ...(prefetch === undefined ? {} : { prefetch }) },
  );
  await s.putMany(Array.from({ length: n }, (_, i) => ({ data: i })));
  await eventually(() => order.length === n, 10_000);
  await worker.close();
  return { most, order };
}

describe('prefetch', () => {
  it('leases more than one task at a time for a one-slot worker with quick handlers, in order, each once', async () => {
    const s = await redis.scheduler();
    const { most, order } = await mostLeased(s, 200);
    expect(most).toBeGreaterThan(1);
    expect(order).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(await s.stats()).toMatchObject({ ready: 0, active: 0, dead: 0 });
  });

  it('is off with prefetch: 0', async () => {
    const s = await redis.scheduler();
    const { most } = await mostLeased(s, 60, 0);
    expect(most).toBe(1);
  });

  it('hands prefetched tasks back once a handler is slow, for other workers to take', async () => {
    const s = await redis.scheduler();
    const ran: Array<{ n: number; by: string }> = [];
    let slowStarted = false;
    const a = s.work<number>(
      async (task) => {
        ran.push({ n: task.data, by: 'a' });
        if (task.data === 10) {
          slowStarted = true;
          await sleep(1500);
        }
      },
      { concurrency: 1 },
    );
    await s.putMany(Array.from({ length: 20 }, (_, i) => ({ data: i })));
    await eventually(() => slowStarted);
    // The tasks a had leased beyond task 10 go back to the queue: only the slow one stays leased.
    await eventually(async () => (await s.stats()).active === 1, 1000);
    const b = s.work<number>(async (task) => void ran.push({ n: task.data, by: 'b' }), { concurrency: 1 });
    await eventually(() => ran.length === 20, 5000);
    expect(ran.filter((r) => r.by === 'b').map((r) => r.n)).toEqual(Array.from({ length: 9 }, (_, i) => 11 + i));
    await Promise.all([a.close(), b.close()]);
    expect(await s.stats()).toMatchObject({ ready: 0, active: 0, dead: 0 });
  });

  it('hands prefetched tasks back on close(), leaving none leased', async () => {
    const s = await redis.scheduler();
    let done = 0;
    const worker = s.work(
      async () => {
        done++;
        // Quick until the tenth: then slow enough for close() to come while tasks wait behind it.
        if (done === 10) await sleep(15);
      },
      { concurrency: 1 },
    );
    await s.putMany(Array.from({ length: 100 }, (_, i) => ({ data: i })));
    await eventually(() => done >= 10);
    await worker.close();
    const stats = await s.stats();
    expect(stats.active).toBe(0);
    expect(stats.ready).toBe(100 - done);
    expect(stats.dead).toBe(0);
  });

  it('refuses a prefetch that is not a whole number from 0 to 100, naming the field', async () => {
    const s = await redis.scheduler();
    for (const prefetch of [-1, 101, 1.5, '2']) {
      expect(() => s.work(async () => {}, { prefetch } as never)).toThrow(ValidationError);
      expect(() => s.work(async () => {}, { prefetch } as never)).toThrow(/options\.prefetch/);
    }
  });
});
