/**
 * Dead letters: list them with their last error, re-drive them to ready, purge them.
 */
import { ValidationError } from '../lib';
import { keysUnder, sleep, useRedis } from './support/harness';

const redis = useRedis();

async function killAll(s: Awaited<ReturnType<typeof redis.scheduler>>, n: number): Promise<string[]> {
  const put = await s.putMany(Array.from({ length: n }, (_, i) => ({ data: { i }, options: { maxAttempts: 1 } })));
  for (const task of await s.claimMany(n)) {
    await s.fail(task, { error: new Error(`boom ${(task.data as { i: number }).i}`), retryIn: 0 });
    if (n <= 10) await sleep(2); // distinct death times, so the order by age is certain
  }
  return put.map((r) => r.hash);
}

describe('listDead', () => {
  it('lists dead tasks, most recent death first, with last error, attempts and died-at', async () => {
    const s = await redis.scheduler();
    const hashes = await killAll(s, 3);
    const dead = await s.listDead();
    expect(dead.map((d) => d.hash)).toEqual([...hashes].reverse());
    expect(dead[0]).toMatchObject({ state: 'dead', data: { i: 2 }, attempts: 1, maxAttempts: 1 });
    expect(dead[0].lastError).toMatch(/^Error: boom 2/);
    expect(dead[0].diedAt).toBeGreaterThanOrEqual(dead[1].diedAt);
    expect((await s.listDead({ offset: 1, limit: 1 })).map((d) => d.hash)).toEqual([hashes[1]]);
  });

  it('refuses a bad limit', async () => {
    const s = await redis.scheduler();
    await expect(s.listDead({ limit: 0 })).rejects.toBeInstanceOf(ValidationError);
    await expect(s.listDead({ limit: 5000 })).rejects.toThrow('options.limit: must be from 1 to 1000');
  });
});

describe('redrive', () => {
  it('sends one dead task back to ready with its attempts reset', async () => {
    const s = await redis.scheduler();
    const [hash] = await killAll(s, 1);
    expect(await s.redrive(hash)).toBe(true);
    expect(await s.get(hash)).toMatchObject({ state: 'ready', attempts: 0 });
    expect(await s.redrive(hash)).toBe(false); // no longer dead
    expect(await s.redrive('unknown')).toBe(false);
    const task = (await s.claim())!;
    expect(task.attempt).toBe(1);
    expect(await s.ack(task)).toBe(true);
  });

  it('gives a re-driven task a fresh expiry window, so it is not dropped at once', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('x', { maxAttempts: 1, expire: 300 });
    await s.fail((await s.claim())!, { retryIn: 0 });
    await sleep(400);
    expect(await s.redrive(hash)).toBe(true);
    expect((await s.claim())!.hash).toBe(hash);
  });

  it('re-drives a whole dead set, in batches', async () => {
    const s = await redis.scheduler();
    await killAll(s, 600);
    expect(await s.redriveAll()).toBe(600);
    expect(await s.stats()).toMatchObject({ ready: 600, dead: 0 });
    expect(await s.redriveAll()).toBe(0);
  });
});

describe('purgeDead', () => {
  it('deletes every dead task, records and all', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await killAll(s, 520);
    expect(await s.purgeDead()).toBe(520);
    expect(await s.stats()).toMatchObject({ dead: 0 });
    const keys = await keysUnder(raw, s.prefix);
    expect(keys).not.toContain(`${s.prefix}:{default}:tasks`);
  });
});
