/**
 * A hot queue split into shards: puts land on the shard of their identity (so de-dup holds),
 * putMany keeps the caller's order, workers drain every shard, stats add up.
 */
import { randomBytes } from 'node:crypto';
import { ClosedError, ValidationError, type Task } from '../lib';
import { eventually, keysUnder, useRedis } from './support/harness';

const redis = useRedis();

describe('sharded', () => {
  it('spreads distinct tasks over the shards, and sends the same data to the same shard', async () => {
    const s = await redis.scheduler();
    const emails = s.sharded('emails', 4);
    expect(emails.queues).toEqual(['emails:0', 'emails:1', 'emails:2', 'emails:3']);
    for (let i = 0; i < 200; i++) await emails.put({ to: `user${i}@example.com` });
    const per = await Promise.all(emails.queues.map((queue) => s.stats({ queue })));
    for (const st of per) expect(st.ready).toBeGreaterThan(20); // 50 expected per shard
    expect(per.reduce((n, st) => n + st.ready, 0)).toBe(200);

    const again = await emails.put({ to: 'user7@example.com' });
    expect(again.added).toBe(false);
    expect(again.queue).toBe(emails.shardOf({ to: 'user7@example.com' }));
    const keyed = await emails.put({ any: 1 }, { key: 'k-1' });
    expect(keyed.queue).toBe(emails.shardOf({ other: 2 }, 'k-1'));
    expect((await emails.put({ other: 2 }, { key: 'k-1' })).added).toBe(false);
    expect(await emails.stats()).toMatchObject({ ready: 201, deduplicated: 2 });
  });

  it('finds a task by its hash under encryption too, whose ids are bound to their queue', async () => {
    const s = await redis.scheduler({ encryption: { keys: [{ id: 'k', key: randomBytes(32) }] } });
    const jobs = s.sharded('sealed', 8);
    const puts = await Promise.all(Array.from({ length: 40 }, (_, i) => jobs.put({ i }, { keepResult: 60_000 })));
    for (const [i, p] of puts.entries()) expect(p.queue).toBe(jobs.shardOf({ i }));
    expect(new Set(puts.map((p) => p.queue)).size).toBeGreaterThan(1);
    // result() picks the shard from the hash, as put placed it.
    for (const p of puts) expect(await jobs.result(p.hash)).toMatchObject({ state: 'pending', hash: p.hash });
    expect((await jobs.put({ i: 3 })).added).toBe(false);
  });

  it('puts many in the caller order, de-duplicating across the call', async () => {
    const s = await redis.scheduler();
    const jobs = s.sharded('jobs', 3);
    const items = [{ data: 'a' }, { data: 'b' }, { data: 'c' }, { data: 'a' }, { data: 'd', options: { priority: true } }];
    const results = await jobs.putMany(items);
    expect(results.map((r) => r.added)).toEqual([true, true, true, false, true]);
    expect(results[3].hash).toBe(results[0].hash);
    for (const [i, r] of results.entries()) expect(r.queue).toBe(jobs.shardOf(items[i].data));
  });

  it('limits groups on every shard: at most the limit of a group active per shard', async () => {
    const s = await redis.scheduler();
    const jobs = s.sharded('limited', 2);
    await expect(jobs.limitGroups(0)).rejects.toBeInstanceOf(ValidationError);
    await expect(jobs.limitGroups(1, { queue: 'x' } as never)).rejects.toThrow(/options.queue/);
    expect(await jobs.groupLimits()).toMatchObject({ default: null, groups: {} });
    await jobs.limitGroups(1, { group: 'acme' });
    for (const queue of jobs.queues) expect(await s.groupLimits({ queue })).toMatchObject({ groups: { acme: 1 } });
    // Enough tasks of one group that both shards hold some.
    await jobs.putMany(Array.from({ length: 20 }, (_, i) => ({ data: { i }, options: { group: 'acme' } })));
    const leased = (await Promise.all(jobs.queues.map((queue) => s.claimMany(10, { queue })))).map((tasks) => tasks.length);
    expect(leased).toEqual([1, 1]);
    const limits = await jobs.groupLimits();
    expect(limits).toMatchObject({ groups: { acme: 1 }, active: { acme: 2 } });
    await jobs.limitGroups(null, { group: 'acme' });
    expect((await jobs.groupLimits()).groups).toEqual({});
  });

  it('works every shard, and closes all its workers', async () => {
    const s = await redis.scheduler();
    const jobs = s.sharded('jobs', 3);
    await jobs.putMany(Array.from({ length: 60 }, (_, i) => ({ data: { i } })));
    const seen = new Set<number>();
    const worker = jobs.work(async (task: Task) => void seen.add((task.data as { i: number }).i), { concurrency: 2 });
    expect(worker.workers).toHaveLength(3);
    await eventually(() => seen.size === 60, 10_000);
    await worker.close();
    expect(await jobs.stats()).toMatchObject({ ready: 0, delayed: 0, active: 0 });
  });

  it('refuses a bad name or count, a queue option, and a closed scheduler', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    expect(() => s.sharded('a{b}', 2)).toThrow(ValidationError);
    expect(() => s.sharded('emails', 0)).toThrow('count: must be a whole number from 1 to 1024');
    expect(() => s.sharded('emails', 2.5)).toThrow(ValidationError);
    const emails = s.sharded('emails', 2);
    await expect(emails.put('x', { queue: 'other' } as never)).rejects.toThrow('options.queue: is chosen by the shard, not given');
    await expect(emails.putMany([{ data: 'x' }, { data: 1n as never }])).rejects.toThrow('items[1].data');
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
    await s.close();
    expect(() => s.sharded('emails', 2)).toThrow(ClosedError);
  });
});
