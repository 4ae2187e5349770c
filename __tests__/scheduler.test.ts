/**
 * The scheduler's time and state operations: delay, at, reschedule, expire, cancel, get, stats,
 * and the rule that every time decision is made on the Redis server's clock.
 */
import { DocketError, HashFunctionError, UnreadableRecordError, ValidationError } from '../lib';
import { keysUnder, serverNow, sleep, useRedis, writeRecord } from './support/harness';

const redis = useRedis();

describe('delay and at', () => {
  it('holds a delayed task back until its run-at', async () => {
    const s = await redis.scheduler();
    const { hash, runAt } = await s.put('later', { delay: 300 });
    expect(await s.claim()).toBeNull();
    expect(await s.get(hash)).toMatchObject({ state: 'delayed', runAt });
    await sleep(350);
    expect((await s.claim())!.data).toBe('later');
  });

  it('takes a Duration and measures it from the server clock', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const before = await serverNow(raw);
    const { runAt } = await s.put('in a minute', { delay: { minutes: 1 } });
    const after = await serverNow(raw);
    expect(runAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(runAt).toBeLessThanOrEqual(after + 60_000);
  });

  it('takes an absolute at, as a Date or epoch ms', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const now = await serverNow(raw);
    const a = await s.put('date', { at: new Date(now + 200) });
    const b = await s.put('ms', { at: now + 200 });
    expect([a.runAt, b.runAt]).toEqual([now + 200, now + 200]);
    const past = await s.put('past', { at: now - 1000 });
    expect((await s.get(past.hash))!.state).toBe('ready');
    expect(await s.stats()).toMatchObject({ ready: 1, delayed: 2 });
  });

  it('uses the server clock, not a client clock that is an hour ahead', async () => {
    const s = await redis.scheduler();
    const real = Date.now;
    const skew = jest.spyOn(Date, 'now').mockImplementation(() => real() + 3_600_000);
    try {
      const { runAt } = await s.put('not yet', { delay: 500 });
      expect(runAt).toBeLessThan(real() + 5000);
      expect(await s.claim()).toBeNull();
      const ran: number[] = [];
      const worker = s.work(async () => {
        ran.push(real());
      });
      await sleep(200);
      expect(ran).toEqual([]);
      await sleep(500);
      await worker.close();
      expect(ran).toHaveLength(1);
    } finally {
      skew.mockRestore();
    }
  });
});

describe('reschedule', () => {
  it('makes a delayed task moved to now ready', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put('soon', { delay: 60_000 });
    expect(await s.reschedule(hash, await serverNow(raw))).toBe(true);
    expect((await s.get(hash))!.state).toBe('ready');
    expect((await s.claim())!.hash).toBe(hash);
  });

  it('moves a ready task into the future and back into the delayed set', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put('now');
    const at = (await serverNow(raw)) + 250;
    expect(await s.reschedule(hash, new Date(at))).toBe(true);
    expect(await s.get(hash)).toMatchObject({ state: 'delayed', runAt: at });
    expect(await s.stats()).toMatchObject({ ready: 0, delayed: 1 });
    expect(await s.claim()).toBeNull();
    await sleep(300);
    expect((await s.claim())!.hash).toBe(hash);
  });

  it('moves a delayed task later', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put('x', { delay: 100 });
    const at = (await serverNow(raw)) + 60_000;
    expect(await s.reschedule(hash, at)).toBe(true);
    await sleep(150);
    expect(await s.claim()).toBeNull();
    expect((await s.get(hash))!.runAt).toBe(at);
  });

  it('refuses an active, dead or unknown task', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('busy');
    const task = await s.claim();
    expect(await s.reschedule(hash, Date.now() + 1000)).toBe(false);
    expect(await s.reschedule('no-such-task', Date.now())).toBe(false);
    await s.fail(task!, { maxAttempts: 1 });
    expect((await s.get(hash))!.state).toBe('dead');
    expect(await s.reschedule(hash, Date.now())).toBe(false);
  });

  it('moves the expiry window with the run-at', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('x', { delay: 1000, expire: 500 });
    const info = (await s.get(hash))!;
    expect(info.expireAt).toBe(info.runAt + 500);
    await s.reschedule(hash, info.runAt + 10_000);
    expect((await s.get(hash))!.expireAt).toBe(info.runAt + 10_500);
  });
});

describe('expire', () => {
  it('drops a task still unclaimed after its expiry, and counts it', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put('stale', { expire: 100 });
    await s.put('fresh', { expire: 60_000 });
    await sleep(150);
    expect((await s.claim())!.data).toBe('fresh');
    expect(await s.claim()).toBeNull();
    expect(await s.get(hash)).toBeNull();
    expect(await s.stats()).toMatchObject({ expired: 1, ready: 0, active: 1 });
    const keys = await keysUnder(raw, s.prefix);
    expect(keys).not.toContain(`${s.prefix}:{default}:delayed`);
  });

  it('counts the expiry from run-at, not from put', async () => {
    const s = await redis.scheduler();
    await s.put('delayed', { delay: 200, expire: 200 });
    await sleep(300);
    expect((await s.claim())!.data).toBe('delayed');
    expect((await s.stats()).expired).toBe(0);
  });
});

describe('cancel', () => {
  it('deletes a ready, delayed or dead task and frees its identity', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const ready = await s.put('r');
    const delayed = await s.put('d', { delay: 60_000 });
    const dead = await s.put('x', { maxAttempts: 1 });
    await s.reschedule(dead.hash, 0);
    // 'x' sits behind 'r': claim both, ack 'r' later.
    const [r, x] = await s.claimMany(2);
    expect(x.hash).toBe(dead.hash);
    expect(await s.fail(x, { retryIn: 0 })).toBe('dead');
    await s.ack(r);
    const again = await s.put('r');
    expect(await s.cancel(again.hash)).toBe(true);
    expect(await s.cancel(delayed.hash)).toBe(true);
    expect(await s.cancel(dead.hash)).toBe(true);
    expect(await s.cancel(ready.hash)).toBe(false);
    expect(await s.stats()).toMatchObject({ ready: 0, delayed: 0, active: 0, dead: 0 });
    expect(await keysUnder(raw, s.prefix)).not.toEqual(expect.arrayContaining([`${s.prefix}:{default}:data`]));
    expect((await s.put('d', { delay: 60_000 })).added).toBe(true);
  });

  it('leaves an active task to its worker', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('busy');
    const task = await s.claim();
    expect(await s.cancel(hash)).toBe(false);
    expect(await s.ack(task!)).toBe(true);
  });
});

describe('get and stats', () => {
  it('reports each state and its fields', async () => {
    const s = await redis.scheduler();
    const a = await s.put({ a: 1 }, { priority: true, maxAttempts: 3 });
    expect(await s.get(a.hash)).toEqual({
      hash: a.hash,
      queue: 'default',
      data: { a: 1 },
      state: 'ready',
      runAt: a.runAt,
      expireAt: null,
      attempts: 0,
      maxAttempts: 3,
      priority: true,
      level: 9,
      group: null,
      key: null,
      lastError: null,
      leaseUntil: null,
      worker: null,
      progress: null,
      keepResult: null,
      timeout: null,
      name: null,
      ending: null,
      schedule: null,
    });
    const task = (await s.claim())!;
    expect(await s.get(a.hash)).toMatchObject({ state: 'active', attempts: 1, leaseUntil: task.leaseUntil });
    expect((await s.get(a.hash))!.worker).toMatch(/^.+:\d+:[0-9a-f]{8}$/);
    await s.fail(task, { error: new Error('boom'), retryIn: 60_000 });
    expect(await s.get(a.hash)).toMatchObject({ state: 'delayed', attempts: 1, leaseUntil: null });
    expect((await s.get(a.hash))!.lastError).toMatch(/^Error: boom/);
    expect(await s.get('missing')).toBeNull();
  });

  it('counts per queue', async () => {
    const s = await redis.scheduler({ queue: 'main' });
    await s.put(1);
    await s.put(2, { delay: 60_000 });
    await s.put(3, { queue: 'side' });
    await s.claim();
    expect(await s.stats()).toEqual({
      ready: 0,
      delayed: 1,
      waiting: 0,
      active: 1,
      dead: 0,
      expired: 0,
      deduplicated: 0,
      replaced: 0,
      paused: false,
      pausedGroups: [],
      totals: { added: 2, deduplicated: 0, replaced: 0, merged: 0, completed: 0, failed: 0, dead: 0, expired: 0, leaseLost: 0, cancelled: 0 },
      byName: {},
    });
    expect(await s.stats({ queue: 'side' })).toMatchObject({ ready: 1, delayed: 0, active: 0 });
  });
});

describe('every rejection is a DocketError', () => {
  it('turns what a hash function throws, or a hash that is no string, into a HashFunctionError before any I/O', async () => {
    const boom = new Error('boom');
    const s = await redis.scheduler({
      hash: () => {
        throw boom;
      },
    });
    const err = await s.put('x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HashFunctionError);
    expect(err).toMatchObject({ code: 'ERR_HASH_FUNCTION', message: expect.stringMatching(/^options\.hash threw: /), cause: boom });
    const numbers = await redis.scheduler({ hash: (() => 42) as never });
    await expect(numbers.put('x')).rejects.toThrow('options.hash returned number');
    const empty = await redis.scheduler({ hash: () => '' });
    await expect(empty.put('x')).rejects.toThrow('options.hash returned an empty string');
    expect(await keysUnder(await redis.raw(), s.prefix)).toEqual([]);
    await expect(redis.scheduler({ hash: 'xxh' as never })).rejects.toThrow('options.hash: expected a function');
    await expect(redis.scheduler({ onWarning: 1 as never })).rejects.toThrow(ValidationError);
  });

  it('turns a record that is not JSON into an UnreadableRecordError naming it', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put('t', { queue: 'q' });
    await writeRecord(raw, s.prefix, 'q', hash, '{"r":');
    for (const call of [() => s.get(hash, { queue: 'q' }), () => s.result(hash, { queue: 'q' }), () => s.list('ready', { queue: 'q' })]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnreadableRecordError);
      expect(err).toBeInstanceOf(DocketError);
      expect(err).toMatchObject({ code: 'ERR_UNREADABLE_RECORD', what: `the metadata of task ${hash}`, cause: expect.any(SyntaxError) });
    }
  });
});
