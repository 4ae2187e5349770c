/**
 * Queue events: every task outcome lands in the queue's capped stream, and events() follows it
 * from any process.
 */
import { ValidationError, type QueueEvent } from '../lib';
import { useRedis } from './support/harness';

const redis = useRedis();

/** The next `n` events of an iterator. */
async function take(it: AsyncIterator<QueueEvent>, n: number): Promise<QueueEvent[]> {
  const out: QueueEvent[] = [];
  while (out.length < n) {
    const next = await it.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

describe('events', () => {
  it('reports completed, failed, dead, expired and deduplicated, with attempt and error, in order', async () => {
    const s = await redis.scheduler();
    const watcher = await redis.scheduler({ prefix: s.prefix });
    const it = watcher.events();
    const { hash: a } = await s.put('a');
    await s.put('a');
    const { hash: b } = await s.put('b', { maxAttempts: 2 });
    const { hash: c } = await s.put('c', { expire: 1 });
    await s.ack((await s.claim())!);
    const bTask = (await s.claim())!;
    await s.fail(bTask, { error: new Error('flaky'), retryIn: 0 });
    await new Promise((r) => setTimeout(r, 5));
    await s.fail((await s.claim())!, { error: new Error('broken') }); // c expired on the way
    const events = await take(it, 5);
    expect(events.map((e) => [e.type, e.hash, e.attempt])).toEqual([
      ['deduplicated', a, null],
      ['completed', a, 1],
      ['failed', b, 1],
      ['expired', c, null],
      ['dead', b, 2],
    ]);
    expect(events[2].error).toMatch(/^Error: flaky/);
    expect(events[4].error).toMatch(/^Error: broken/);
    expect(events.every((e) => e.queue === 'default' && e.at > 1.6e12)).toBe(true);
    expect(new Set(events.map((e) => e.id)).size).toBe(5);
    await it.return!();
  });

  it('lets a producer wait for its own task: events() before put never misses the outcome', async () => {
    const s = await redis.scheduler();
    const worker = s.work(async () => {}, { concurrency: 4 });
    for (let i = 0; i < 20; i++) {
      const it = s.events();
      const { hash } = await s.put({ i });
      for await (const e of it) if (e.hash === hash && e.type === 'completed') break;
    }
    await worker.close();
  });

  it("reads from the start, or after a given id, and 'now' skips the past", async () => {
    const s = await redis.scheduler();
    await s.putMany([{ data: 1 }, { data: 1 }, { data: 1 }]);
    const all = await take(s.events({ from: 'start' }), 2);
    expect(all.map((e) => e.type)).toEqual(['deduplicated', 'deduplicated']);
    const after = s.events({ queue: 'default', from: all[0].id });
    expect((await take(after, 1))[0].id).toBe(all[1].id);
    const now = s.events();
    await s.put(1);
    expect((await take(now, 1))[0].id > all[1].id).toBe(true);
  });

  it('ends when its signal aborts, even while it waits', async () => {
    const s = await redis.scheduler();
    const ac = new AbortController();
    const it = s.events({ queue: 'q', signal: ac.signal });
    const pending = it.next();
    setTimeout(() => ac.abort(), 50);
    expect(await pending).toEqual({ done: true, value: undefined });
  });

  it('keeps the stream near eventsMaxLength, and writes none at 0', async () => {
    const s = await redis.scheduler({ eventsMaxLength: 100 });
    const raw = await redis.raw();
    for (let i = 0; i < 5; i++) await s.putMany(Array.from({ length: 200 }, () => ({ data: 'same' })));
    const length = await raw.xLen(`${s.prefix}:{default}:events`);
    expect(length).toBeGreaterThanOrEqual(100);
    expect(length).toBeLessThan(400); // MAXLEN ~ trims whole nodes, so a little over the cap
    const none = await redis.scheduler({ eventsMaxLength: 0 });
    await none.put('x');
    await none.put('x');
    expect(await raw.exists(`${none.prefix}:{default}:events`)).toBe(0);
    expect((await none.stats()).deduplicated).toBe(1);
  });

  it('refuses bad options before reading anything', async () => {
    const s = await redis.scheduler();
    expect(() => s.events({ from: 'yesterday' })).toThrow(ValidationError);
    expect(() => s.events({ queue: 'a b' })).toThrow(/^options.queue: /);
    await expect(redis.scheduler({ eventsMaxLength: -1 })).rejects.toThrow('options.eventsMaxLength: must be from 0 to 10000000');
  });
});

describe('throughput', () => {
  it('counts outcomes per bucket over the window, oldest first, ending at the server clock', async () => {
    const s = await redis.scheduler();
    await s.putMany([{ data: 1 }, { data: 2 }, { data: 3 }, { data: 1 }]);
    for (const task of await s.claimMany(2)) await s.ack(task);
    await s.fail((await s.claim())!, { error: 'x', maxAttempts: 1 });
    const t = await s.throughput({ queue: 'default', window: 60_000, bucket: 1000 });
    expect(t.buckets).toHaveLength(60);
    expect(t.buckets[59].at + 1000).toBe(t.now);
    const sum = (k: 'completed' | 'dead' | 'deduplicated' | 'failed') => t.buckets.reduce((n, b) => n + b[k], 0);
    expect([sum('completed'), sum('dead'), sum('deduplicated'), sum('failed')]).toEqual([2, 1, 1, 0]);
    expect(t.since).toBe(t.buckets[0].at);
    await expect(s.throughput({ window: 60_000, bucket: 10 })).rejects.toThrow('options.bucket: must be 100 or more');
  });

  it('says from when its counts are whole once the capped stream dropped the window start', async () => {
    const s = await redis.scheduler({ eventsMaxLength: 10 });
    for (let i = 0; i < 3; i++) await s.putMany(Array.from({ length: 200 }, () => ({ data: 'same' })));
    const t = await s.throughput();
    expect(t.since).toBeGreaterThan(t.buckets[0].at);
    expect(t.since).toBeLessThanOrEqual(t.now + 1);
  });
});
