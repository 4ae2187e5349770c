/**
 * Compact storage's migration: a queue written in the layout before one field per task (record in
 * `meta`, payload in `data`) keeps every task once a current scheduler starts on it.
 */
import type { RedisClientType } from 'redis';
import { queueKeys } from '../lib/domain/keys';
import { useRedis } from './support/harness';

const redis = useRedis();

/** Rewrites a queue's tasks into the old layout, as an earlier docket left them. */
async function toOldLayout(raw: RedisClientType, prefix: string, queue: string): Promise<number> {
  const k = queueKeys(prefix, queue);
  const fields = await raw.hGetAll(k.tasks);
  for (const [id, field] of Object.entries(fields)) {
    const cut = field.indexOf('\n');
    await raw.hSet(k.meta, id, field.slice(0, cut));
    await raw.hSet(k.data, id, field.slice(cut + 1));
  }
  await raw.del(k.tasks);
  return Object.keys(fields).length;
}

describe('a queue in the layout before compact storage', () => {
  it('keeps every task, ready, delayed and dead, in every registered queue, once a scheduler starts', async () => {
    const raw = await redis.raw();
    const before = await redis.scheduler();
    // 600 ready tasks: more than one migrate call's batch.
    await before.putMany(Array.from({ length: 600 }, (_, i) => ({ data: { i, text: 'line\nbreak "quoted"' } })));
    const later = await before.put({ later: true }, { delay: 60_000 });
    const doomed = await before.put({ doomed: true }, { queue: 'other', maxAttempts: 1 });
    const [task] = await before.claimMany(1, { queue: 'other' });
    await before.fail(task, { error: new Error('boom'), retryIn: 0 });
    await before.close();
    expect(await toOldLayout(raw, before.prefix, 'default')).toBe(601);
    expect(await toOldLayout(raw, before.prefix, 'other')).toBe(1);

    const after = await redis.scheduler({ prefix: before.prefix });
    const k = queueKeys(before.prefix, 'default');
    expect(await raw.exists([k.meta, k.data])).toBe(0);
    expect(await raw.hLen(k.tasks)).toBe(601);
    expect(await after.get(later.hash)).toMatchObject({ state: 'delayed', data: { later: true } });
    expect(await after.get(doomed.hash, { queue: 'other' })).toMatchObject({ state: 'dead', data: { doomed: true }, lastError: expect.stringMatching(/boom/) });
    const claimed = await after.claimMany(600);
    expect(claimed.map((t) => (t.data as { i: number }).i).sort((a, b) => a - b)).toEqual(Array.from({ length: 600 }, (_, i) => i));
    expect(claimed[0].data).toMatchObject({ text: 'line\nbreak "quoted"' });
    for (const t of claimed) await after.ack(t);
    expect(await after.stats()).toMatchObject({ ready: 0, active: 0, delayed: 1 });
    // A put of the same data as a migrated task is a duplicate: its identity moved with it.
    expect((await after.put({ later: true })).added).toBe(false);
  });

  it('moves a large queue whole: 20,000 tasks, past the size where a scan from the start would stall', async () => {
    const raw = await redis.raw();
    const prefix = `layout-${Date.now()}`;
    const k = queueKeys(prefix, 'default');
    const ids = Array.from({ length: 20_000 }, (_, i) => `old${i}`);
    for (let i = 0; i < ids.length; i += 1000) {
      const part = ids.slice(i, i + 1000);
      await raw.hSet(k.meta, Object.fromEntries(part.map((id) => [id, '{"c":1,"r":1,"m":5,"n":0}'])));
      await raw.hSet(k.data, Object.fromEntries(part.map((id) => [id, JSON.stringify({ id })])));
    }
    const s = await redis.scheduler({ prefix });
    expect(await raw.exists([k.meta, k.data])).toBe(0);
    expect(await raw.hLen(k.tasks)).toBe(20_000);
    expect(await raw.hGet(k.tasks, 'old19999')).toBe('{"c":1,"r":1,"m":5,"n":0}\n{"id":"old19999"}');
    await s.close();
  });
});
