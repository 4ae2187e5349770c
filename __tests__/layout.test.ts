/**
 * The layout migrations createScheduler runs: a queue written in the layout before one field per
 * task (record in `meta`, payload in `data`) keeps every task, and a queue docket 0.1 kept its
 * until-start pointers for in `waiting` keeps them, in `redirects`, once a current scheduler starts.
 */
import type { RedisClientType } from 'redis';
import { queueKeys, registryKey } from '../lib/domain/keys';
import { keysUnder, uniquePrefix, useRedis } from './support/harness';

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

describe('a queue docket 0.1 kept its until-start pointers for in `waiting`', () => {
  it('keeps de-duplicating the copy put while its twin ran, once a scheduler starts', async () => {
    const raw = await redis.raw();
    const before = await redis.scheduler();
    const k = queueKeys(before.prefix, 'default');
    const first = await before.put('refresh', { unique: 'until-start' });
    const running = await before.claim();
    const copy = await before.put('refresh', { unique: 'until-start' });
    expect(copy).toMatchObject({ added: true });
    expect(copy.hash).not.toBe(first.hash);
    await before.ack(running!);
    await before.close();
    // As 0.1 stored it: the same pointer, under `waiting`.
    const pointers = await raw.hGetAll(k.redirects);
    expect(pointers).toEqual({ [first.hash]: copy.hash });
    await raw.del(k.redirects);
    await raw.hSet(k.waiting, pointers);

    const after = await redis.scheduler({ prefix: before.prefix });
    expect(await raw.exists(k.waiting)).toBe(0);
    expect(await raw.hGetAll(k.redirects)).toEqual(pointers);
    // The base's record went with the ack: only the pointer leads this put to the copy.
    expect(await after.put('refresh', { unique: 'until-start' })).toMatchObject({ added: false, hash: copy.hash });
    expect(await after.stats()).toMatchObject({ ready: 1 });
  });

  it('merges into `redirects` when both exist, in every registered queue, keeping the pointers already there', async () => {
    const raw = await redis.raw();
    const prefix = uniquePrefix('rekey');
    const own = queueKeys(prefix, 'default');
    const other = queueKeys(prefix, 'other');
    await raw.sAdd(registryKey(prefix), 'other');
    // A 0.1 process wrote `waiting` after an upgraded one wrote `redirects`.
    await raw.hSet(own.redirects, { base1: 'new1' });
    await raw.hSet(own.waiting, { base1: 'old1', base2: 'old2' });
    await raw.hSet(other.waiting, { base3: 'old3' });
    await redis.scheduler({ prefix });
    expect(await raw.exists([own.waiting, other.waiting])).toBe(0);
    expect(await raw.hGetAll(own.redirects)).toEqual({ base1: 'new1', base2: 'old2' });
    expect(await raw.hGetAll(other.redirects)).toEqual({ base3: 'old3' });
  });

  it('is deleted by obliterate when one is left over', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await s.put('job');
    // Left by a 0.1 process after this scheduler started.
    await raw.hSet(queueKeys(s.prefix, 'default').waiting, 'base', 'id');
    await s.obliterate();
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
  });
});

describe("a task's field in `tasks`", () => {
  it('holds a pending default task as its creation time alone, and an object once anything else is set', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const k = queueKeys(s.prefix, 'default');
    const field = async (hash: string) => (await raw.hGet(k.tasks, hash))!;
    const plain = await s.put({ plain: true });
    // (Delayed: its put order for ties, `o`, too.)
    const named = await s.put({ named: true }, { name: 'welcome', delay: 60_000 });
    expect(await field(plain.hash)).toMatch(/^\d{13}\n\{"plain":true\}$/);
    expect(JSON.parse((await field(named.hash)).split('\n')[0])).toEqual({ c: expect.any(Number), r: expect.any(Number), nm: 'welcome', o: expect.any(Number) });
    const created = Number((await field(plain.hash)).split('\n')[0]);
    expect(await s.get(plain.hash)).toMatchObject({ state: 'ready', data: { plain: true }, attempts: 0, maxAttempts: 5 });
    expect(await s.get(plain.hash)).toMatchObject({ runAt: created });

    // A lease and a failed attempt make it an object; the done history reads both forms.
    const [task] = await s.claimMany(1);
    expect(task.hash).toBe(plain.hash);
    expect(await field(plain.hash)).toMatch(/^\{/);
    await s.fail(task, { error: new Error('once'), retryIn: 0 });
    const [again] = await s.claimMany(1);
    await s.ack(again, 'ok');
    expect(await s.get(plain.hash)).toMatchObject({ state: 'done', attempts: 2, data: { plain: true }, done: { result: 'ok', putAt: created } });
  });
});
