/**
 * De-dup modes: unique until-start, dedupWindow, onDuplicate replace and debounce, alone, mixed in
 * one putMany, and under races.
 */
import { ValidationError, type Scheduler } from '../lib';
import { eventually, keysUnder, serverNow, sleep, useRedis } from './support/harness';

const redis = useRedis();

describe("unique: 'until-start'", () => {
  it('frees the identity once leased: a put while it runs adds one new task, and no more', async () => {
    const s = await redis.scheduler();
    const first = await s.put('refresh', { unique: 'until-start' });
    expect(first.status).toBe('added');
    expect(await s.put('refresh', { unique: 'until-start' })).toMatchObject({ hash: first.hash, status: 'duplicate' });
    const running = (await s.claim())!;
    const second = await s.put('refresh', { unique: 'until-start' });
    expect(second.status).toBe('added');
    expect(second.hash).not.toBe(first.hash);
    expect(await s.put('refresh', { unique: 'until-start' })).toMatchObject({ hash: second.hash, status: 'duplicate' });
    // The running task finishes and its record goes: the waiting one still holds the identity.
    expect(await s.ack(running)).toBe(true);
    expect(await s.put('refresh', { unique: 'until-start' })).toMatchObject({ hash: second.hash, status: 'duplicate' });
    expect(await s.stats()).toMatchObject({ ready: 1, active: 0 });
    // Once that one is leased too, the next put adds again (back at the first id, now free).
    const next = (await s.claim())!;
    expect(next.hash).toBe(second.hash);
    expect(await s.put('refresh', { unique: 'until-start' })).toMatchObject({ status: 'added' });
    expect(await s.stats()).toMatchObject({ ready: 1, active: 1 });
  });

  it('a failed task whose identity already has a task waiting is merged into it, not retried', async () => {
    const s = await redis.scheduler();
    const first = await s.put({ cache: 'users' }, { unique: 'until-start', keepResult: 60_000 });
    const running = (await s.claim())!;
    const waiting = await s.put({ cache: 'users' }, { unique: 'until-start' });
    expect(await s.fail(running, { error: 'upstream down', retryIn: 0 })).toBe('merged');
    expect(await s.get(first.hash)).toBeNull();
    expect(await s.result(first.hash)).toMatchObject({ state: 'merged', into: waiting.hash, attempts: 1 });
    expect(await s.stats()).toMatchObject({ ready: 1, active: 0, totals: { merged: 1, failed: 1 } });
    const next = (await s.claim())!;
    expect(next.hash).toBe(waiting.hash);
    expect(await s.claim()).toBeNull();
  });

  it('a failed task with nobody waiting is retried, and then holds the identity again', async () => {
    const s = await redis.scheduler();
    const first = await s.put('once', { unique: 'until-start' });
    expect(await s.fail((await s.claim())!, { error: 'x', retryIn: 60_000 })).toBe('retry');
    expect(await s.put('once', { unique: 'until-start' })).toMatchObject({ hash: first.hash, status: 'duplicate' });
  });

  it('a lapsed lease is merged too, and the retry of a task away from its first id keeps its place', async () => {
    const s = await redis.scheduler();
    await s.put('lapse', { unique: 'until-start' });
    await s.claim({ lease: 50 });
    const waiting = await s.put('lapse', { unique: 'until-start' });
    await sleep(80);
    const next = (await s.claim())!; // the lapse is found here: merged, not re-queued
    expect(next.hash).toBe(waiting.hash);
    expect(await s.claim()).toBeNull();
    expect((await s.stats()).totals).toMatchObject({ merged: 1, leaseLost: 1 });

    // `waiting` runs away from its first id; it fails with nobody waiting: retried, and found again.
    expect(await s.fail(next, { error: 'y', retryIn: 60_000 })).toBe('retry');
    expect(await s.put('lapse', { unique: 'until-start' })).toMatchObject({ hash: waiting.hash, status: 'duplicate' });
  });

  it('a dead until-start task does not hold its identity: a new put adds', async () => {
    const s = await redis.scheduler();
    const first = await s.put('dies', { unique: 'until-start', maxAttempts: 1 });
    expect(await s.fail((await s.claim())!, { error: 'boom' })).toBe('dead');
    const again = await s.put('dies', { unique: 'until-start' });
    expect(again.status).toBe('added');
    expect(again.hash).not.toBe(first.hash);
    expect(await s.get(first.hash)).toMatchObject({ state: 'dead' });
  });
});

describe('dedupWindow', () => {
  it('keeps the identity taken after the task is done, until the window ends, then it is gone by itself', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const first = await s.put('ping', { dedupWindow: 400 });
    await s.ack((await s.claim())!);
    const dup = await s.put('ping', { dedupWindow: 400 });
    expect(dup).toMatchObject({ hash: first.hash, status: 'duplicate', added: false });
    // runAt tells when the window ends: when the same put adds again.
    expect(dup.runAt - first.runAt).toBeGreaterThanOrEqual(390);
    expect(dup.runAt - first.runAt).toBeLessThanOrEqual(410);
    const left = dup.runAt - (await serverNow(raw));
    await sleep(left + 20);
    expect(await s.put('ping', { dedupWindow: 400 })).toMatchObject({ hash: first.hash, status: 'added' });
    await s.cancel(first.hash);
    await sleep(450);
    expect((await keysUnder(raw, s.prefix)).filter((k) => k.endsWith(':windows'))).toEqual([]);
  });

  it('holds for cancelled and dead tasks too: a put within the window neither adds nor revives', async () => {
    const s = await redis.scheduler();
    const a = await s.put('a', { dedupWindow: 60_000 });
    await s.cancel(a.hash);
    expect(await s.put('a')).toMatchObject({ hash: a.hash, status: 'duplicate' });
    const b = await s.put('b', { dedupWindow: 60_000, maxAttempts: 1 });
    await s.fail((await s.claim())!, { error: 'x' });
    expect(await s.put('b')).toMatchObject({ hash: b.hash, status: 'duplicate' });
    expect(await s.get(b.hash)).toMatchObject({ state: 'dead' });
    // Without a window the dead task is revived by a put, as ever.
    const c = await s.put('c', { maxAttempts: 1 });
    await s.fail((await s.claim())!, { error: 'x' });
    expect(await s.put('c')).toMatchObject({ hash: c.hash, status: 'revived' });
  });

  it('a window that ends while puts are in flight: every put before its end is a duplicate, the first after it adds', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const first = await s.put('edge', { dedupWindow: 150 });
    await s.cancel(first.hash);
    const statuses: string[] = [];
    let added = null;
    while (!added) {
      const before = await serverNow(raw);
      const r = await s.put('edge', { dedupWindow: 150 });
      statuses.push(r.status);
      if (r.status === 'added') added = r;
      else expect(before).toBeLessThan(r.runAt); // a duplicate only while the window was open
    }
    expect(statuses.slice(0, -1).every((x) => x === 'duplicate')).toBe(true);
    expect(added.runAt).toBeGreaterThanOrEqual(first.runAt + 150);
  });
});

describe("onDuplicate: 'replace' and 'debounce'", () => {
  it('replace gives a pending task the new data (key identity) and options; its run-at moves only when given', async () => {
    const s = await redis.scheduler();
    const first = await s.put({ v: 1 }, { key: 'order-7', delay: 60_000 });
    const r = await s.put({ v: 2 }, { key: 'order-7', onDuplicate: 'replace', priority: 5, maxAttempts: 9 });
    expect(r).toMatchObject({ hash: first.hash, status: 'replaced', added: false, runAt: first.runAt });
    expect(await s.get(first.hash)).toMatchObject({ data: { v: 2 }, level: 5, maxAttempts: 9, runAt: first.runAt, state: 'delayed' });
    const moved = await s.put({ v: 3 }, { key: 'order-7', onDuplicate: 'replace', delay: 0 });
    expect(moved.status).toBe('replaced');
    expect(await s.get(first.hash)).toMatchObject({ data: { v: 3 }, level: 0, state: 'ready' });
    expect((await s.stats()).totals).toMatchObject({ replaced: 2, added: 1 });
    const task = (await s.claim())!;
    expect(task.data).toEqual({ v: 3 });
  });

  it('a ready task replaced at the same level keeps its place in line', async () => {
    const s = await redis.scheduler();
    await s.put('x', { key: 'a' });
    await s.put('y', { key: 'b' });
    await s.put('x2', { key: 'a', onDuplicate: 'replace' });
    expect((await s.claim())!.data).toBe('x2');
    expect((await s.claim())!.data).toBe('y');
  });

  it('debounce runs the task once, delay after the puts stop', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const runs: unknown[] = [];
    const w = s.work(async (task) => void runs.push(task.data));
    let last = null;
    for (let i = 0; i < 8; i++) {
      last = await s.put({ doc: 1 }, { onDuplicate: 'debounce', delay: 150 });
      await sleep(40);
    }
    expect(last!.status).toBe('replaced');
    expect(runs).toEqual([]); // each put pushed the run-at on
    const now = await serverNow(raw);
    expect(last!.runAt).toBeGreaterThan(now);
    await eventually(() => runs.length === 1, 3000);
    await sleep(200);
    await w.close();
    expect(runs).toEqual([{ doc: 1 }]);
  });

  it('never replaces an active task: the put is a duplicate and the running data stays', async () => {
    const s = await redis.scheduler();
    const first = await s.put({ v: 1 }, { key: 'k' });
    const task = (await s.claim())!;
    expect(await s.put({ v: 2 }, { key: 'k', onDuplicate: 'replace' })).toMatchObject({ hash: first.hash, status: 'duplicate' });
    expect(await s.put({ v: 2 }, { key: 'k', onDuplicate: 'debounce', delay: 10 })).toMatchObject({ status: 'duplicate' });
    expect(await s.get(first.hash)).toMatchObject({ data: { v: 1 }, state: 'active' });
    expect(await s.ack(task)).toBe(true);
  });

  it('with until-start, a put while the task runs adds the next one; a put while that one waits replaces it', async () => {
    const s = await redis.scheduler();
    await s.put({ v: 1 }, { key: 'k', unique: 'until-start', onDuplicate: 'replace' });
    await s.claim();
    const second = await s.put({ v: 2 }, { key: 'k', unique: 'until-start', onDuplicate: 'replace' });
    expect(second.status).toBe('added');
    const third = await s.put({ v: 3 }, { key: 'k', unique: 'until-start', onDuplicate: 'replace' });
    expect(third).toMatchObject({ hash: second.hash, status: 'replaced' });
    expect((await s.get(second.hash))!.data).toEqual({ v: 3 });
  });

  it('a put racing a claim: replaced before the lease, or a duplicate of the running task, never both', async () => {
    const s = await redis.scheduler();
    const other = await redis.scheduler({ prefix: s.prefix });
    for (let i = 0; i < 40; i++) {
      await s.put({ v: 'old', i }, { key: `race-${i}` });
      const [task, put] = await Promise.all([other.claim(), s.put({ v: 'new', i }, { key: `race-${i}`, onDuplicate: 'replace' })]);
      if (put.status === 'replaced') expect(task!.data).toEqual({ v: 'new', i });
      else {
        expect(put.status).toBe('duplicate');
        expect(task!.data).toEqual({ v: 'old', i });
      }
      await other.ack(task!);
    }
  });
});

describe('modes together', () => {
  it('putMany with mixed modes in one call, a replace of a task added earlier in that call included', async () => {
    const s = await redis.scheduler();
    const results = await s.putMany([
      { data: { v: 1 }, options: { key: 'm' } },
      { data: { v: 2 }, options: { key: 'm', onDuplicate: 'replace', priority: 3 } },
      { data: 'plain' },
      { data: 'plain' },
      { data: 'win', options: { dedupWindow: 60_000 } },
      { data: 'deb', options: { onDuplicate: 'debounce', delay: 60_000 } },
      { data: 'deb', options: { onDuplicate: 'debounce', delay: 120_000 } },
      { data: 'us', options: { unique: 'until-start' } },
      { data: 'us', options: { unique: 'until-start' } },
    ]);
    expect(results.map((r) => r.status)).toEqual(['added', 'replaced', 'added', 'duplicate', 'added', 'added', 'replaced', 'added', 'duplicate']);
    expect(await s.get(results[0].hash)).toMatchObject({ data: { v: 2 }, level: 3, state: 'ready' });
    expect(results[6].runAt - results[5].runAt).toBeGreaterThanOrEqual(59_000);
    expect(await s.stats()).toMatchObject({ ready: 4, delayed: 1 });
    expect(await s.list('ready')).toMatchObject({ total: 4 });
  });

  it('50 concurrent identical puts of each mode make one task; every caller gets its hash and a right status', async () => {
    const s = await redis.scheduler();
    const clients = await Promise.all(Array.from({ length: 5 }, () => redis.scheduler({ prefix: s.prefix })));
    const modes = [{ unique: 'until-start' as const }, { onDuplicate: 'debounce' as const, delay: 60_000 }, { onDuplicate: 'replace' as const }, { dedupWindow: 60_000 }];
    for (const [m, mode] of modes.entries()) {
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => clients[i % 5].put({ same: m }, mode)));
      expect(new Set(results.map((r) => r.hash)).size).toBe(1);
      expect(results.filter((r) => r.status === 'added')).toHaveLength(1);
      const others = 'onDuplicate' in mode ? 'replaced' : 'duplicate';
      expect(results.filter((r) => r.status === others)).toHaveLength(49);
    }
    expect(await s.stats()).toMatchObject({ ready: 3, delayed: 1 });
  });

  it('two clients debouncing the same key at once leave one task, at the latest run-at', async () => {
    const s = await redis.scheduler();
    const t = await redis.scheduler({ prefix: s.prefix });
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? s : t).put({ n: i }, { key: 'typing', onDuplicate: 'debounce', delay: 5000 })));
    expect(new Set(results.map((r) => r.hash)).size).toBe(1);
    expect(await s.stats()).toMatchObject({ delayed: 1, ready: 0 });
    const info = (await s.get(results[0].hash))!;
    expect(info.runAt).toBe(Math.max(...results.map((r) => r.runAt)));
  });

  it('works on a sharded queue', async () => {
    const s = await redis.scheduler();
    const shards = s.sharded('modes', 3);
    const a = await shards.put({ x: 1 }, { onDuplicate: 'debounce', delay: 60_000 });
    expect(await shards.put({ x: 1 }, { onDuplicate: 'debounce', delay: 60_000 })).toMatchObject({ hash: a.hash, status: 'replaced', queue: a.queue });
  });

  it('refuses unknown modes and bad windows, naming the field, and writes nothing', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ unique: 'until-success' }, 'options.unique'],
      [{ onDuplicate: 'overwrite' }, 'options.onDuplicate'],
      [{ dedupWindow: -1 }, 'options.dedupWindow'],
      [{ dedupWindow: 0 }, 'options.dedupWindow'],
      [{ dedupWindow: 31 * 24 * 3600 * 1000 }, 'options.dedupWindow'],
      [{ dedupWindow: 'soon' }, 'options.dedupWindow'],
    ];
    for (const [options, field] of bad) {
      const err = await s.put('x', options as never).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect(err).toMatchObject({ field, code: 'ERR_VALIDATION' });
    }
    await expect(s.putMany([{ data: 1 }, { data: 2, options: { unique: 'never' as never } }])).rejects.toMatchObject({ field: 'items[1].options.unique' });
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
  });
});

/** Keeps the type checker honest about the modes' option shapes. */
export type Modes = Parameters<Scheduler['put']>[1];
