/**
 * put and putMany: de-duplication, the key option, collisions, priority and FIFO order.
 */
import { performance } from 'node:perf_hooks';
import { createClient, type RedisClientType } from 'redis';
import { createScheduler, RetryLaterError, type HashFunction, type Scheduler } from '../lib';
import { keysUnder, serverNow, sleep, useRedis } from './support/harness';
import { startRedis } from './support/redis-server';

const redis = useRedis();

describe('de-duplication', () => {
  it('treats the same data with keys in any order as one task', async () => {
    const s = await redis.scheduler();
    const first = await s.put({ user: 7, action: { kind: 'mail', to: ['a', 'b'] } });
    const second = await s.put({ action: { to: ['a', 'b'], kind: 'mail' }, user: 7 });
    expect(first).toMatchObject({ added: true, status: 'added' });
    expect(second).toEqual({ ...first, added: false, status: 'duplicate' });
    expect(await s.stats()).toMatchObject({ ready: 1, deduplicated: 1 });
  });

  it('keeps array order significant', async () => {
    const s = await redis.scheduler();
    const a = await s.put([1, 2]);
    const b = await s.put([2, 1]);
    expect(b.hash).not.toBe(a.hash);
    expect(b.added).toBe(true);
  });

  it('de-duplicates per queue', async () => {
    const s = await redis.scheduler();
    const a = await s.put({ job: 1 }, { queue: 'one' });
    const b = await s.put({ job: 1 }, { queue: 'two' });
    expect(a.added && b.added).toBe(true);
    expect(b.hash).toBe(a.hash);
    expect((await s.put({ job: 1 }, { queue: 'two' })).added).toBe(false);
  });

  it('frees the identity once the task is acked', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('once');
    const task = await s.claim();
    expect(await s.put('once')).toMatchObject({ hash, added: false });
    expect(await s.ack(task!)).toBe(true);
    expect(await s.put('once')).toMatchObject({ hash, added: true });
  });

  it('de-duplicates on the key option instead of the payload', async () => {
    const s = await redis.scheduler();
    const a = await s.put({ v: 1 }, { key: 'order-42' });
    const b = await s.put({ v: 2 }, { key: 'order-42' });
    const c = await s.put({ v: 1 }, { key: 'order-43' });
    const d = await s.put({ v: 1 });
    expect(a.added).toBe(true);
    expect(b).toMatchObject({ hash: a.hash, added: false });
    expect(c.added && d.added).toBe(true);
    expect(new Set([a.hash, c.hash, d.hash]).size).toBe(3);
    expect((await s.get(a.hash))!.data).toEqual({ v: 1 });
    expect((await s.get(a.hash))!.key).toBe('order-42');
  });

  it('revives a dead task when the same data is put again', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('doomed', { maxAttempts: 1 });
    expect(await s.fail((await s.claim())!, { retryIn: 0 })).toBe('dead');
    expect((await s.get(hash))!.state).toBe('dead');
    expect(await s.put('doomed')).toMatchObject({ hash, added: true, status: 'revived' });
    expect(await s.put('doomed')).toMatchObject({ hash, added: false, status: 'duplicate' });
    expect(await s.get(hash)).toMatchObject({ state: 'ready', attempts: 0, lastError: null });
    expect(await s.stats()).toMatchObject({ ready: 1, dead: 0 });
  });
});

describe('hash collisions', () => {
  // A deliberately weak hash: every identity maps to the same id.
  const weak: HashFunction = () => 'same';

  it('stores a colliding task apart instead of dropping it', async () => {
    const s = await redis.scheduler({ hash: weak });
    const a = await s.put({ n: 1 });
    const b = await s.put({ n: 2 });
    const c = await s.put({ n: 3 });
    expect([a.added, b.added, c.added]).toEqual([true, true, true]);
    expect(new Set([a.hash, b.hash, c.hash]).size).toBe(3);
    expect(a.hash).toBe('same');
    // A true duplicate still finds its own record behind the colliding ones.
    expect(await s.put({ n: 3 })).toMatchObject({ hash: c.hash, added: false });
    expect(await s.put({ n: 2 })).toMatchObject({ hash: b.hash, added: false });
    const seen = [];
    for (let task = await s.claim(); task; task = await s.claim()) {
      seen.push(task.data);
      await s.ack(task);
    }
    expect(seen).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  it('keeps colliding de-dup keys apart too', async () => {
    const s = await redis.scheduler({ hash: weak });
    const a = await s.put('x', { key: 'k1' });
    const b = await s.put('x', { key: 'k2' });
    const c = await s.put('x');
    expect([a.added, b.added, c.added]).toEqual([true, true, true]);
    expect(await s.put('y', { key: 'k2' })).toMatchObject({ hash: b.hash, added: false });
  });
});

describe('priority and order', () => {
  it('claims priority tasks before every normal task, and normal tasks FIFO', async () => {
    const s = await redis.scheduler();
    for (let i = 0; i < 5; i++) await s.put({ normal: i });
    await s.put({ urgent: 1 }, { priority: true });
    const order = [];
    for (let task = await s.claim(); task; task = await s.claim()) order.push(task.data);
    expect(order).toEqual([{ urgent: 1 }, { normal: 0 }, { normal: 1 }, { normal: 2 }, { normal: 3 }, { normal: 4 }]);
  });

  it('claims higher levels first, FIFO within a level, true as level 9 and false as normal', async () => {
    const s = await redis.scheduler();
    const puts: Array<[string, boolean | number]> = [
      ['n1', false],
      ['l3a', 3],
      ['t1', true],
      ['l3b', 3],
      ['n2', 0],
      ['l9', 9],
      ['l1', 1],
      ['t2', true],
      ['l3c', 3],
    ];
    for (const [data, priority] of puts) await s.put(data, { priority });
    const order = [];
    for (let task = await s.claim(); task; task = await s.claim()) order.push(task.data);
    expect(order).toEqual(['t1', 'l9', 't2', 'l3a', 'l3b', 'l3c', 'l1', 'n1', 'n2']);
    expect(await s.stats()).toMatchObject({ ready: 0, active: 9 });
  });

  it('takes a batch across levels in one claim, and counts every level as ready', async () => {
    const s = await redis.scheduler();
    await s.putMany([
      { data: 'n', options: { priority: 0 } },
      { data: 'a', options: { priority: 2 } },
      { data: 'b', options: { priority: 7 } },
      { data: 'c', options: { priority: 2 } },
    ]);
    expect(await s.stats()).toMatchObject({ ready: 4 });
    expect((await s.claimMany(3)).map((t) => t.data)).toEqual(['b', 'a', 'c']);
    expect((await s.get((await s.put('b', { priority: 7 })).hash))?.level).toBe(7);
    expect((await s.claimMany(3)).map((t) => t.data)).toEqual(['n']);
  });

  it('keeps the level through fail, release, reschedule, cancel and re-drive', async () => {
    const s = await redis.scheduler();
    await s.put('normal');
    const p = await s.put('urgent', { priority: 5, maxAttempts: 1 });
    // A failed priority task that goes dead comes back at its level when re-driven.
    const first = (await s.claim())!;
    expect(first.data).toBe('urgent');
    expect(await s.fail(first, { retryIn: 0 })).toBe('dead');
    expect(await s.redrive(p.hash)).toBe(true);
    expect((await s.claim())!.data).toBe('urgent');
    // Rescheduled into the future and back to now, it returns to its level.
    const q = await s.put('urgent2', { priority: 5 });
    expect(await s.reschedule(q.hash, Date.now() + 60_000)).toBe(true);
    expect(await s.reschedule(q.hash, 0)).toBe(true);
    expect((await s.claim())!.data).toBe('urgent2');
    // Cancel removes it from its level's list.
    const r = await s.put('urgent3', { priority: 5 });
    expect(await s.cancel(r.hash)).toBe(true);
    expect((await s.claim())!.data).toBe('normal');
    expect(await s.stats()).toMatchObject({ ready: 0 });
  });

  it('puts a due priority task ahead of the ready backlog when it is promoted', async () => {
    const s = await redis.scheduler();
    await s.put('normal');
    await s.put('late-urgent', { priority: true, delay: 100 });
    await new Promise((r) => setTimeout(r, 150));
    expect((await s.claim())!.data).toBe('late-urgent');
  });
});

describe('tasks due at the same instant', () => {
  /** Claims every ready task, `count` a call: their data, in claim order. */
  async function drainMany(s: Scheduler, count: number): Promise<unknown[]> {
    const order = [];
    for (let batch = await s.claimMany(count); batch.length > 0; batch = await s.claimMany(count)) order.push(...batch.map((t) => t.data));
    return order;
  }

  it('run in put order: 43 puts with one `at`, and a putMany with one `delay`', async () => {
    const s = await redis.scheduler();
    const at = (await serverNow(await redis.raw())) + 300;
    for (let i = 0; i < 43; i++) await s.put({ single: i }, { at });
    await s.putMany(Array.from({ length: 10 }, (_, i) => ({ data: { many: i }, options: { at: at + 1 } })));
    await s.putMany(Array.from({ length: 10 }, (_, i) => ({ data: { delayed: i }, options: { delay: 250 } })));
    await sleep(400);
    const order = await drainMany(s, 5);
    const pick = (field: string) => order.flatMap((d) => (field in (d as object) ? [(d as Record<string, number>)[field]] : []));
    expect(pick('single')).toEqual(Array.from({ length: 43 }, (_, i) => i));
    expect(pick('many')).toEqual(Array.from({ length: 10 }, (_, i) => i));
    expect(pick('delayed')).toEqual(Array.from({ length: 10 }, (_, i) => i));
    // And each run-at's tasks before the next run-at's.
    const kinds = order.map((d) => Object.keys(d as object)[0]);
    expect(kinds.indexOf('many')).toBeGreaterThan(kinds.lastIndexOf('single'));
  });

  it('run in put order when their run-at straddles a promotion batch (100), or alone passes it', async () => {
    const s = await redis.scheduler();
    const at = (await serverNow(await redis.raw())) + 400;
    // 60 tasks at `at`, then 250 at `at + 1` (a tie bigger than a batch, cut after its first 40 by
    // the first batch), put in chunks of 50 across calls.
    const items = [
      ...Array.from({ length: 60 }, (_, i) => ({ data: { first: i }, options: { at } })),
      ...Array.from({ length: 250 }, (_, i) => ({ data: { second: i }, options: { at: at + 1 } })),
    ];
    for (let i = 0; i < items.length; i += 50) await s.putMany(items.slice(i, i + 50));
    await sleep(500);
    expect(await drainMany(s, 7)).toEqual(items.map((item) => item.data));
  });

  it('keep their level first, and put order within it; retried to one instant, put order again', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const at = (await serverNow(raw)) + 300;
    await s.putMany(Array.from({ length: 12 }, (_, i) => ({ data: i, options: { at, priority: i % 2 === 0 ? 4 : 0 } })));
    await sleep(400);
    const tasks = await s.claimMany(12);
    expect(tasks.map((t) => t.data)).toEqual([0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11]);
    // Failed in reverse, each retried at the same instant: they come back in put order.
    const again = (await serverNow(raw)) + 300;
    for (const task of tasks.reverse()) expect(await s.fail(task, { error: new RetryLaterError('later', { at: again }) })).toBe('retry');
    await sleep(400);
    expect(await drainMany(s, 3)).toEqual([0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11]);
  });
});

/** Keeps this process's event loop busy for `ms`: a put made before it waits that long to be sent. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('a delay counts from the put() call', () => {
  // guarantees.md, "No task runs early": the time a put waited in this process is taken off its delay.
  it('takes off the time a put waited in the client before it was sent, and no more', async () => {
    const s = await redis.scheduler();
    await s.put('warm'); // the library is loaded, the connection open
    const raw = await redis.raw();
    const before = await serverNow(raw);
    const waiting = s.put({ late: 1 }, { delay: 2_000 });
    busy(400); // the put is made, but nothing can be sent until this turn ends
    const { runAt } = await waiting;
    const after = await serverNow(raw);
    // Counted from when Redis ran the put, the run-at would be at least `before` + 400 + 2,000.
    expect(runAt).toBeLessThan(before + 2_000 + 200);
    // Never from before the call: at least the delay after `before` (taken before put() was called).
    expect(runAt).toBeGreaterThanOrEqual(before + 2_000);
    expect(after - before).toBeGreaterThanOrEqual(400);
    expect((await s.get((await waiting).hash))!.runAt).toBe(runAt);
  });

  it('keeps put order for one delay across calls, though a later call waited longer', async () => {
    const s = await redis.scheduler();
    await s.put('warm');
    await s.claim(); // out of the way
    // 60 single puts in one turn go in three calls (25 a call), the later ones sent later; a
    // putMany of 600 in three calls of 250. Each call's anchor is its now less what it waited, and
    // never before the one of an earlier call.
    const singles = Array.from({ length: 60 }, (_, i) => s.put({ single: i }, { delay: 300 }));
    busy(50);
    const results = await Promise.all(singles);
    const many = s.putMany(Array.from({ length: 600 }, (_, i) => ({ data: { many: i }, options: { delay: 300 } })));
    busy(50);
    results.push(...(await many));
    const runAts = results.map((r) => r.runAt);
    expect(runAts).toEqual([...runAts].sort((a, b) => a - b));
    await sleep(400);
    const order: unknown[] = [];
    for (let batch = await s.claimMany(50); batch.length > 0; batch = await s.claimMany(50)) order.push(...batch.map((t) => t.data));
    expect(order).toEqual([...Array.from({ length: 60 }, (_, i) => ({ single: i })), ...Array.from({ length: 600 }, (_, i) => ({ many: i }))]);
  });

  it("counts a debounced put's delay from its call too", async () => {
    const s = await redis.scheduler();
    await s.put('warm');
    const raw = await redis.raw();
    await s.put({ v: 1 }, { key: 'k', onDuplicate: 'debounce', delay: 2_000 });
    const before = await serverNow(raw);
    const waiting = s.put({ v: 2 }, { key: 'k', onDuplicate: 'debounce', delay: 2_000 });
    busy(400);
    const r = await waiting;
    expect(r.status).toBe('replaced');
    expect(r.runAt).toBeLessThan(before + 2_000 + 200);
    expect(r.runAt).toBeGreaterThanOrEqual(before + 2_000);
  });
});

describe('putMany', () => {
  it('puts many tasks, in order, de-duplicating within the call as well', async () => {
    const s = await redis.scheduler();
    const results = await s.putMany([{ data: 'a' }, { data: 'b', options: { priority: true } }, { data: 'a' }, { data: 'c', options: { queue: 'other' } }]);
    expect(results.map((r) => [r.added, r.status, r.queue])).toEqual([
      [true, 'added', 'default'],
      [true, 'added', 'default'],
      [false, 'duplicate', 'default'],
      [true, 'added', 'other'],
    ]);
    expect(results[2].hash).toBe(results[0].hash);
    expect((await s.claimMany(10)).map((t) => t.data)).toEqual(['b', 'a']);
  });

  // guarantees.md: "Every operation is a function call of docket's library; a node that lost it loads it again, and no caller sees "Function not found".
  it('stores a many-chunk putMany in put order on a Redis that lost its functions (Function not found, then FUNCTION LOAD)', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    // The first call of a new scheduler, then calls after FUNCTION FLUSH once the library was loaded
    // (a chunk's answer, then its registry write, must not let a later chunk overtake the one behind it).
    for (const round of [0, 1, 2, 3]) {
      if (round > 0) await raw.sendCommand(['FUNCTION', 'FLUSH']);
      const items = Array.from({ length: 2500 }, (_, i) => ({ data: { round, i } }));
      await s.putMany(items);
      const claimed = [];
      while (claimed.length < items.length) claimed.push(...(await s.claimMany(1000)));
      const got = claimed.map((t) => (t.data as { i: number }).i);
      expect(got).toEqual(items.map((_, i) => i));
      for (const t of claimed) await s.ack(t);
    }
  });

  it('keeps put order when a busy process reads the first answer between its chunks', async () => {
    // A new scheduler knows no script cached: its second chunk waits for the first's answer. With
    // the event loop slowed (10 ms per turn), that answer (and the registry write after it) arrive
    // between chunk turns; a later chunk must still not overtake those waiting before it.
    for (const round of [0, 1]) {
      const s = await redis.scheduler({ queue: `busy${round}` });
      let busy = true;
      const spin = () => {
        const until = Date.now() + 10;
        while (Date.now() < until);
        if (busy) setImmediate(spin);
      };
      setImmediate(spin);
      const items = Array.from({ length: 2000 }, (_, i) => ({ data: { round, i } }));
      await s.putMany(items).finally(() => (busy = false));
      const claimed = [];
      while (claimed.length < items.length) claimed.push(...(await s.claimMany(1000)));
      expect(claimed.map((t) => (t.data as { i: number }).i)).toEqual(items.map((_, i) => i));
    }
  });

  it('makes one script call per chunk of 250', async () => {
    // A server of its own, so its command counters see no other test's calls.
    const server = await startRedis();
    try {
      const s = await createScheduler({ url: server.url, warnings: { aof: false } });
      const raw = createClient({ url: server.url });
      await raw.connect();
      await s.put('loads the script');
      const before = await fcalls(raw as never);
      const results = await s.putMany(Array.from({ length: 1200 }, (_, i) => ({ data: { i } })));
      expect(results.filter((r) => r.added)).toHaveLength(1200);
      expect((await fcalls(raw as never)) - before).toBe(5);
      expect(await s.stats()).toMatchObject({ ready: 1201 });
      expect(await keysUnder(raw as never, 'docket')).toEqual(['docket:queues', ...['counts', 'ready', 'tasks', 'wake'].map((k) => `docket:{default}:${k}`)]);
      await s.close();
      await raw.quit();
    } finally {
      await server.stop();
    }
  });
});

async function fcalls(raw: RedisClientType): Promise<number> {
  const info = await raw.info('commandstats');
  return Number(/cmdstat_fcall:calls=(\d+)/.exec(info)?.[1] ?? 0);
}
