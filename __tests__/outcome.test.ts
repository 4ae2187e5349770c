/**
 * Task outcomes: results kept for keepResult, result() live and finished, result({ wait }) without
 * polling, and the bad input around them.
 */
import { PayloadTooLargeError, ValidationError, type Scheduler } from '../lib';
import { createClient } from 'redis';
import { eventually, keysUnder, sleep, useRedis } from './support/harness';
import { startRedis } from './support/redis-server';

const redis = useRedis();

/** Runs one worker on `s` until `n` tasks are done (or failed), with `handler`. */
function working(s: Scheduler, handler: Parameters<Scheduler['work']>[0], options: Parameters<Scheduler['work']>[1] = {}) {
  return s.work(handler, { lease: 2000, ...options });
}

describe('results', () => {
  it('keeps a handler result for keepResult, then it is gone, keys and all', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    // keepResult alone: the queue's done history (on by default) would answer result() for a day.
    await s.keep({ done: { count: 0 } });
    const { hash } = await s.put({ n: 2 }, { keepResult: 400 });
    const w = working(s, async (task) => ({ doubled: (task.data as { n: number }).n * 2, big: 2 ** 53 - 1, list: [] }));
    await eventually(async () => (await s.result(hash))?.state === 'done');
    const out = await s.result(hash);
    // The result comes back exactly as returned: no number rounded, an empty array still an array.
    expect(out).toMatchObject({ state: 'done', hash, queue: 'default', attempts: 1, result: { doubled: 4, big: 2 ** 53 - 1, list: [] } });
    expect(typeof (out as { finishedAt: number }).finishedAt).toBe('number');
    await w.close();
    await sleep(500);
    expect(await s.result(hash)).toBeNull();
    // Redis itself deleted both keys once the last span ended (a TTL, no sweep).
    await eventually(async () => (await keysUnder(raw, s.prefix)).every((k) => !/:(results|kept)$/.test(k)), 3000);
  });

  it('keeps no outcome without keepResult (the default): a finished task is known to the history only', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put('plain');
    expect(await s.result(hash)).toMatchObject({ state: 'pending', hash, attempts: 0, progress: null });
    const task = (await s.claim())!;
    expect(task.keepResult).toBeNull();
    expect(await s.result(hash)).toMatchObject({ state: 'active', attempts: 1 });
    expect(await s.ack(task, { with: 'history' })).toBe(true);
    // The queue's done history (on by default) answers it; no kept outcome does.
    expect(await s.result(hash)).toMatchObject({ state: 'done', result: { with: 'history' } });
    expect((await keysUnder(raw, s.prefix)).filter((k) => /:(results|kept|progress)$/.test(k))).toEqual([]);
    // With the history off, a finished task is unknown.
    await s.keep({ done: { count: 0 } });
    const { hash: plain } = await s.put('plain, no history');
    expect(await s.ack((await s.claim())!, { ignored: true })).toBe(true);
    expect(await s.result(plain)).toBeNull();
    expect((await keysUnder(raw, s.prefix)).filter((k) => /:(results|kept|progress)$/.test(k))).toEqual([]);
  });

  it("takes the worker's keepResult when the put gave none; the put's wins", async () => {
    const s = await redis.scheduler();
    const a = await s.put('a');
    const b = await s.put('b', { keepResult: 60_000 });
    const w = working(s, async (task) => `ran ${task.data}`, { keepResult: 30_000 });
    await eventually(async () => (await s.result(b.hash))?.state === 'done' && (await s.result(a.hash))?.state === 'done');
    await w.close();
    expect(await s.result(a.hash)).toMatchObject({ state: 'done', result: 'ran a' });
    const raw = await redis.raw();
    const kept = await raw.zRangeWithScores(`${s.prefix}:{default}:kept`, 0, -1);
    const until = (h: string) => kept.find((k) => k.value === h)!.score;
    // b's outcome lives about 30 s longer than a's: its own keepResult won.
    expect(until(b.hash) - until(a.hash)).toBeGreaterThan(25_000);
  });

  it('a handler that returns nothing keeps done with a null result', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('quiet', { keepResult: 60_000 });
    const w = working(s, async () => {});
    await eventually(async () => (await s.result(hash))?.state === 'done');
    await w.close();
    expect(await s.result(hash)).toMatchObject({ state: 'done', result: null, attempts: 1 });
  });

  it('keeps dead with the last error, expired and cancelled', async () => {
    const s = await redis.scheduler();
    const dead = await s.put('dies', { keepResult: 60_000, maxAttempts: 1 });
    expect(await s.fail((await s.claim())!, { error: new Error('boom') })).toBe('dead');
    expect(await s.result(dead.hash)).toMatchObject({ state: 'dead', error: expect.stringContaining('boom'), attempts: 1 });
    // Purged from the dead set, its kept outcome still tells.
    await s.purgeDead();
    expect(await s.result(dead.hash)).toMatchObject({ state: 'dead', error: expect.stringContaining('boom'), attempts: 1 });

    const expired = await s.put('late', { keepResult: 60_000, expire: 1 });
    await sleep(5);
    expect(await s.claim()).toBeNull();
    expect(await s.result(expired.hash)).toMatchObject({ state: 'expired', attempts: 0 });

    const cancelled = await s.put('never', { keepResult: 60_000, delay: 60_000 });
    expect(await s.cancel(cancelled.hash)).toBe(true);
    expect(await s.result(cancelled.hash)).toMatchObject({ state: 'cancelled', attempts: 0 });
  });

  it('reports a dead task kept for re-drive even without keepResult', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('x', { maxAttempts: 1 });
    await s.fail((await s.claim())!, { error: 'nope' });
    const out = await s.result(hash);
    expect(out).toMatchObject({ state: 'dead', error: 'nope', attempts: 1 });
    expect((out as { finishedAt: number }).finishedAt).toBeGreaterThan(0);
  });

  it('a live task wins over an earlier kept outcome of the same identity', async () => {
    const s = await redis.scheduler();
    const first = await s.put('again', { keepResult: 60_000 });
    await s.ack((await s.claim())!, 1);
    expect(await s.result(first.hash)).toMatchObject({ state: 'done', result: 1 });
    const second = await s.put('again', { keepResult: 60_000 });
    expect(second.hash).toBe(first.hash);
    expect(await s.result(first.hash)).toMatchObject({ state: 'pending' });
    await s.ack((await s.claim())!, 2);
    expect(await s.result(first.hash)).toMatchObject({ state: 'done', result: 2 });
  });

  it('a result that is not JSON, or too large, fails the attempt with a typed error', async () => {
    const s = await redis.scheduler({ maxResultBytes: 100 });
    const a = await s.put('a', { keepResult: 60_000, maxAttempts: 1 });
    const b = await s.put('b', { keepResult: 60_000, maxAttempts: 1 });
    const w = working(s, async (task) => (task.data === 'a' ? (new Map() as unknown as string) : 'x'.repeat(200)));
    await eventually(async () => (await s.result(a.hash))?.state === 'dead' && (await s.result(b.hash))?.state === 'dead');
    await w.close();
    expect(await s.result(a.hash)).toMatchObject({ error: expect.stringMatching(/ValidationError.*result/) });
    expect(await s.result(b.hash)).toMatchObject({ error: expect.stringMatching(/PayloadTooLargeError: result: result is 202 bytes, over the limit of 100 bytes/) });
  });

  it('ack(task, result) refuses a bad result before any write', async () => {
    const s = await redis.scheduler({ maxResultBytes: 100 });
    await s.put('a', { keepResult: 60_000 });
    const task = (await s.claim())!;
    await expect(s.ack(task, (() => 1) as unknown as string)).rejects.toMatchObject({ name: 'ValidationError', field: 'result' });
    const big = await s.ack(task, 'y'.repeat(101)).catch((err: unknown) => err);
    expect(big).toBeInstanceOf(PayloadTooLargeError);
    expect((big as PayloadTooLargeError).message).toMatch(/result is 103 bytes/);
    expect(await s.result(task.hash)).toMatchObject({ state: 'active' });
    expect(await s.ack(task, 'ok')).toBe(true);
    expect(await s.result(task.hash)).toMatchObject({ state: 'done', result: 'ok' });
  });

  it('refuses bad options, naming the field, and writes nothing', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    for (const keepResult of [-1, 0, 31 * 24 * 3600 * 1000, 'soon']) {
      await expect(s.put('x', { keepResult: keepResult as number })).rejects.toMatchObject({ name: 'ValidationError', field: 'options.keepResult' });
    }
    expect(() => s.work(async () => {}, { keepResult: -5 })).toThrow(ValidationError);
    await expect(s.result('h', { wait: -1 })).rejects.toMatchObject({ field: 'options.wait' });
    await expect(s.result('h', { wait: 2 ** 31 })).rejects.toMatchObject({ field: 'options.wait' });
    await expect(s.result('', {})).rejects.toMatchObject({ field: 'hash' });
    await expect(s.result('h', { nope: 1 } as never)).rejects.toMatchObject({ field: 'options.nope' });
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
  });
});

describe('result({ wait })', () => {
  it('resolves as soon as the task finishes', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('slow', { keepResult: 60_000 });
    const started = Date.now();
    const waiting = s.result(hash, { wait: 10_000 });
    await sleep(100);
    const task = (await s.claim())!;
    await sleep(100);
    await s.ack(task, { answer: 42 });
    expect(await waiting).toMatchObject({ state: 'done', result: { answer: 42 } });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('answers at once for a task that finished before the wait began, and null for an unknown one', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('quick', { keepResult: 60_000 });
    await s.ack((await s.claim())!, 'done before');
    const started = Date.now();
    expect(await s.result(hash, { wait: 10_000 })).toMatchObject({ state: 'done', result: 'done before' });
    expect(await s.result('f'.repeat(32), { wait: 10_000 })).toBeNull();
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('gives the live state when the wait runs out', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('never claimed');
    expect(await s.result(hash, { wait: 300 })).toMatchObject({ state: 'pending' });
  });

  it('tells a finish without a kept outcome from its event', async () => {
    const s = await redis.scheduler();
    const done = await s.put('no keep');
    const dead = await s.put('no keep, dies', { maxAttempts: 1 });
    const w1 = s.result(done.hash, { wait: 10_000 });
    const w2 = s.result(dead.hash, { wait: 10_000 });
    await sleep(50);
    await s.ack((await s.claim())!);
    await s.fail((await s.claim())!, { error: 'bad' });
    expect(await w1).toMatchObject({ state: 'done', result: null, attempts: 1 });
    expect(await w2).toMatchObject({ state: 'dead', error: 'bad', attempts: 1 });
  });

  it('1,000 callers waiting at once share one connection, and are all answered', async () => {
    // A server of its own: XREAD connections are counted, and other test files open some too.
    const server = await startRedis();
    const s = await redis.scheduler({ url: server.url });
    const raw = createClient({ url: server.url }) as Awaited<ReturnType<typeof redis.raw>>;
    await raw.connect();
    try {
      const puts = await s.putMany(Array.from({ length: 1000 }, (_, i) => ({ data: i, options: { keepResult: 60_000 } })));
      expect(await xreads(raw)).toBe(0);
      const waits = puts.map((p) => s.result(p.hash, { wait: 30_000 }));
      // Each caller reads the outcome once before it waits, so the reader starts within a moment,
      // and stays the only one.
      await eventually(async () => (await xreads(raw)) > 0, 5000);
      await sleep(200);
      expect(await xreads(raw)).toBe(1);
      const w = working(s, async (task) => (task.data as number) * 10, { concurrency: 50 });
      const outs = await Promise.all(waits);
      await w.close();
      outs.forEach((o, i) => expect(o).toMatchObject({ state: 'done', result: i * 10 }));
      // Nobody waits any more: the reader's connection is gone.
      await eventually(async () => (await xreads(raw)) === 0, 3000);
    } finally {
      await s.close();
      await raw.quit();
      await server.stop();
    }
  });

  it('rejects with ClosedError when the scheduler closes during the wait', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('w');
    const waiting = s.result(hash, { wait: 30_000 });
    await sleep(50);
    await s.close();
    await expect(waiting).rejects.toMatchObject({ name: 'ClosedError' });
  });

  it('works on a sharded queue', async () => {
    const s = await redis.scheduler();
    const shards = s.sharded('hot', 4);
    const r = await shards.put({ job: 1 }, { keepResult: 60_000 });
    const waiting = shards.result(r.hash, { wait: 10_000 });
    const w = shards.work(async (task) => task.queue);
    expect(await waiting).toMatchObject({ state: 'done', result: r.queue });
    await w.close();
  });
});

/** How many clients are blocked in XREAD now. */
async function xreads(raw: Awaited<ReturnType<typeof redis.raw>>): Promise<number> {
  const list = String(await raw.sendCommand(['CLIENT', 'LIST']));
  return list.split('\n').filter((line) => / cmd=xread /.test(line)).length;
}

describe('every() with keepResult', () => {
  it("keeps each occurrence's outcome", async () => {
    const s = await redis.scheduler();
    const seen: string[] = [];
    const w = s.work(async (task) => {
      seen.push(task.hash);
      return 'tick';
    });
    await s.every('ticker', 100, { job: 'tick' }, { keepResult: 60_000 });
    await eventually(() => seen.length >= 1, 3000);
    await eventually(async () => (await s.result(seen[0]))?.state === 'done', 3000);
    expect(await s.result(seen[0])).toMatchObject({ state: 'done', result: 'tick' });
    await s.unschedule('ticker');
    await w.close();
  });
});

describe('result({ wait }) leaves nothing behind', () => {
  it('many waiters add no listener per caller, and a finished reader leaves none', async () => {
    const s = await redis.scheduler();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const puts = await s.putMany(Array.from({ length: 30 }, (_, i) => ({ data: `l${i}`, options: { keepResult: 60_000 } })));
      const waits = puts.map((p) => s.result(p.hash, { wait: 10_000 }));
      await sleep(50);
      const w = s.work(async (task) => task.data, { concurrency: 10 });
      const outs = await Promise.all(waits);
      await w.close();
      expect(outs.every((o) => o?.state === 'done')).toBe(true);
      // A waiter whose task had already finished never starts a reader, and keeps nothing either.
      expect(await s.result(puts[0].hash, { wait: 1000 })).toMatchObject({ state: 'done', result: 'l0' });
      await sleep(50);
      expect(warnings.filter((x) => x.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a completed event carries a small kept result', async () => {
    const s = await redis.scheduler();
    const it = s.events();
    const { hash } = await s.put('e', { keepResult: 60_000 });
    await s.ack((await s.claim())!, { small: true });
    for (;;) {
      const e = (await it.next()).value as Awaited<ReturnType<typeof it.next>>['value'];
      if (e && e.type === 'completed') {
        expect(e).toMatchObject({ hash, result: { small: true } });
        break;
      }
    }
  });
});
