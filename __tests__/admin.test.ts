/**
 * The operator API: pause and resume, pages of tasks by state, the queue registry and the
 * lifetime totals. All against the real test Redis.
 */
import { ValidationError, type Scheduler } from '../lib';
import type { PreviewListOptions, PreviewPage } from '../lib/types/lists';
import type { TaskState } from '../lib/types/task';
import { eventually, serverNow, sleep, useRedis } from './support/harness';

const redis = useRedis();

/**
 * list() with `preview`. The cast only stands in for Scheduler.list's preview overload, which
 * types the same call once declared.
 */
async function previews(s: Scheduler, state: TaskState, preview: number): Promise<PreviewPage> {
  const options: PreviewListOptions = { preview };
  return s.list(state, options);
}

describe('pause and resume', () => {
  it('stops claims for every worker, keeps accepting puts, and restarts every idle worker on resume', async () => {
    const s = await redis.scheduler();
    const other = await redis.scheduler({ prefix: s.prefix });
    const ran: string[] = [];
    const workers = [s, other].map((sch, w) => sch.work(async (task) => void ran.push(`${w}:${JSON.stringify(task.data)}`), { concurrency: 2 }));
    await s.put('before');
    await eventually(() => ran.length === 1);

    expect(await s.pause()).toBe(true);
    expect(await other.pause()).toBe(false); // already paused
    const puts = await s.putMany([{ data: 1 }, { data: 2 }, { data: 3 }, { data: 4 }]);
    expect(puts.every((p) => p.added)).toBe(true);
    await sleep(300);
    expect(ran).toHaveLength(1);
    expect(await s.claim()).toBeNull(); // direct claims too
    expect(await s.stats()).toMatchObject({ ready: 4, active: 0, paused: true });

    expect(await other.resume()).toBe(true);
    expect(await s.resume()).toBe(false);
    await eventually(() => ran.length === 5);
    expect((await s.stats()).paused).toBe(false);
    await Promise.all(workers.map((w) => w.close()));
  });

  it('lets a held task be acked and failed while paused, and promotes due tasks meanwhile', async () => {
    const s = await redis.scheduler();
    await s.put('held');
    const task = (await s.claim())!;
    await s.put('later', { delay: 50 });
    await s.pause();
    expect(await s.ack(task)).toBe(true);
    await sleep(80);
    expect(await s.claim()).toBeNull(); // housekeeping ran: the delayed task is ready, not leased
    expect(await s.stats()).toMatchObject({ ready: 1, delayed: 0, active: 0 });
    await s.resume();
    expect((await s.claim())?.data).toBe('later');
  });

  it('pauses one queue only', async () => {
    const s = await redis.scheduler();
    await s.pause({ queue: 'a' });
    await s.put(1, { queue: 'a' });
    await s.put(2, { queue: 'b' });
    expect(await s.claim({ queue: 'a' })).toBeNull();
    expect((await s.claim({ queue: 'b' }))?.data).toBe(2);
  });

  it('refuses a bad queue name', async () => {
    const s = await redis.scheduler();
    await expect(s.pause({ queue: 'a b' })).rejects.toBeInstanceOf(ValidationError);
    await expect(s.resume({ queue: 7 } as never)).rejects.toThrow(/^options.queue: /);
    await expect(s.resume(7 as never)).rejects.toThrow(/^options: /);
  });

  it("still takes the queue as a string (before 0.2's one convention), with one deprecation warning per method", async () => {
    const warnings: string[] = [];
    const s = await redis.scheduler({ onWarning: (m) => warnings.push(m) });
    expect(await s.pause('old')).toBe(true);
    expect(await s.pause('old')).toBe(false);
    expect(await s.stats({ queue: 'old' })).toMatchObject({ paused: true });
    expect(await s.resume('old')).toBe(true);
    await s.put('x', { queue: 'old' });
    expect((await s.throughput('old', { window: 60_000 })).buckets.length).toBeGreaterThan(0);
    expect(s.events('old', { from: 'start' })).toBeDefined();
    await expect(s.pause('a b')).rejects.toThrow(/^queue: /);
    const deprecations = warnings.filter((w) => w.includes('deprecated'));
    expect(deprecations).toHaveLength(4);
    expect(deprecations[0]).toMatch(/pause\('queue'\) is deprecated.*\{ queue: 'queue' \}/);
    // The new form says nothing.
    await s.pause({ queue: 'old' });
    expect(warnings.filter((w) => w.includes('deprecated'))).toHaveLength(4);
  });
});

describe('list', () => {
  it('pages ready tasks in claim order: priority levels, fair groups, normal tasks, then parked ones', async () => {
    const s = await redis.scheduler();
    await s.put('normal-1');
    await s.put('p3', { priority: 3 });
    await s.put('g1', { group: 'g' });
    await s.put('normal-2');
    await s.put('p9', { priority: 9 });
    await s.limitGroups(1, { group: 'h' });
    await s.put('h1', { group: 'h' });
    await s.put('h2', { group: 'h' });
    const page = await s.list('ready');
    expect(page.total).toBe(7);
    const listed = page.tasks.map((t) => t.data);
    // g1 and h1 share a round (their order is the hashes'); h2 is its group's second task.
    expect(listed.slice(0, 2)).toEqual(['p9', 'p3']);
    expect(listed.slice(2, 4).sort()).toEqual(['g1', 'h1']);
    expect(listed.slice(4)).toEqual(['h2', 'normal-1', 'normal-2']);
    expect((await s.list('ready', { offset: 1, limit: 4 })).tasks.map((t) => t.data)).toEqual(listed.slice(1, 5));
    // Claims take them in the listed order, but for h2, which the claim parks (group h is at its
    // limit of 1): then it is listed last, still ready.
    const claimed = await s.claimMany(7);
    expect(claimed.map((t) => t.data)).toEqual(listed.filter((d) => d !== 'h2'));
    for (const t of claimed.filter((t) => t.data !== 'h1')) await s.ack(t);
    await s.put('normal-3');
    const after = await s.list('ready');
    expect(after.tasks.map((t) => [t.data, t.state])).toEqual([
      ['normal-3', 'ready'],
      ['h2', 'ready'],
    ]);
    expect(after.total).toBe(2);
  });

  it('pages delayed (earliest first), active (soonest lease end first, with holder) and dead (latest first)', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await s.put('late', { delay: 60_000 });
    await s.put('soon', { delay: 30_000 });
    const delayed = await s.list('delayed');
    expect(delayed.tasks.map((t) => t.data)).toEqual(['soon', 'late']);
    expect(Math.abs(delayed.now - (await serverNow(raw)))).toBeLessThan(1000);
    expect(delayed.tasks[0].runAt - delayed.now).toBeGreaterThan(29_000);

    await s.put('long');
    await s.put('short');
    const long = (await s.claim({ lease: 60_000 }))!;
    await s.claim({ lease: 10_000 });
    const active = await s.list('active');
    expect(active.tasks.map((t) => t.data)).toEqual(['short', 'long']);
    expect(active.tasks[0].worker).toMatch(/:\d+:[0-9a-f]{8}$/);
    expect(active.tasks[1].leaseUntil! - active.now).toBeGreaterThan(50_000);

    await s.fail(long, { maxAttempts: 1, error: new Error('first') });
    await sleep(5);
    await s.put('x', { maxAttempts: 1 });
    await s.fail((await s.claim())!, { error: new Error('second') });
    const dead = await s.list('dead');
    expect(dead.tasks.map((t) => [t.data, t.lastError?.split('\n')[0]])).toEqual([
      ['x', 'Error: second'],
      ['long', 'Error: first'],
    ]);
    expect(dead.tasks[0].diedAt).toBeGreaterThanOrEqual(dead.tasks[1].diedAt!);
  });

  it('pages waiting tasks longest waiting first, each with how many of its dependencies are not done yet', async () => {
    const s = await redis.scheduler();
    await s.put('x', { queue: 'other' });
    const a = await s.put('a');
    const b = await s.put('b');
    const first = await s.put('first', { after: [a.hash, b.hash, { queue: 'other', hash: 'f'.repeat(32) }], delay: 60_000 });
    await sleep(5);
    const second = await s.put('second', { after: [a.hash] });
    // Another queue's unknown hash counts as done once its registration is carried there: 2 left.
    await eventually(async () => (await s.list('waiting')).tasks[0]?.waitingOn === 2);
    const page = await s.list('waiting');
    expect(page.total).toBe(2);
    expect(page.tasks.map((t) => [t.hash, t.data, t.state, t.waitingOn, t.diedAt])).toEqual([
      [first.hash, 'first', 'waiting', 2, null],
      [second.hash, 'second', 'waiting', 1, null],
    ]);
    expect(page.tasks[0].runAt - page.now).toBeGreaterThan(50_000);
    expect((await s.list('waiting', { offset: 1 })).tasks.map((t) => t.hash)).toEqual([second.hash]);
    expect(await s.list('waiting', { offset: 1, limit: 1 })).toMatchObject({ total: 2, tasks: [{ hash: second.hash }] });
    expect((await s.list('waiting', { limit: 1 })).tasks.map((t) => t.hash)).toEqual([first.hash]);
    // Only waiting tasks carry the count.
    expect((await s.list('ready')).tasks.map((t) => [t.data, t.waitingOn])).toEqual([
      ['a', null],
      ['b', null],
    ]);

    // a done: second is released (ready), first waits on b alone.
    expect(await s.ack((await s.claim())!)).toBe(true);
    const after = await s.list('waiting');
    expect(after.tasks.map((t) => [t.hash, t.waitingOn])).toEqual([[first.hash, 1]]);
    expect(after.total).toBe(1);
    expect((await previews(s, 'waiting', 4)).tasks).toMatchObject([{ hash: first.hash, preview: '"fir', bytes: 7, waitingOn: 1 }]);
    expect(await s.stats()).toMatchObject({ ready: 2, waiting: 1, delayed: 0 });
  });

  it('refuses a bad state or limit and reads nothing', async () => {
    const s = await redis.scheduler();
    await expect(s.list('gone' as never)).rejects.toThrow('state: expected one of ready, delayed, waiting, active, dead');
    await expect(s.list('ready', { limit: 0 })).rejects.toBeInstanceOf(ValidationError);
    await expect(s.list('ready', { queue: 'a*' })).rejects.toThrow(/^options\.queue: /);
    for (const preview of [0, -1, 1.5, 65_537, '10']) {
      await expect(s.list('ready', { preview } as never)).rejects.toThrow(/^options\.preview: must be a whole number of bytes from 1 to 65536/);
    }
  });

  it('returns the first bytes of each payload and its size with `preview`, and the whole payload without', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put({ text: 'a'.repeat(100_000) });
    await s.put('é'.repeat(10), { delay: 60_000 }); // 2 bytes each in UTF-8
    const whole = await s.list('ready');
    expect(whole.tasks[0]).toMatchObject({ hash, data: { text: 'a'.repeat(100_000) } });
    expect(whole.tasks[0]).not.toHaveProperty('preview');

    const { preview, bytes, progressPreview, ...rest } = (await previews(s, 'ready', 20)).tasks[0];
    expect({ preview, bytes, progressPreview }).toEqual({ preview: '{"text":"aaaaaaaaaaa', bytes: 100_000 + '{"text":""}'.length, progressPreview: null });
    const { data: _, ...info } = whole.tasks[0];
    expect(rest).toEqual(info); // everything but the data, as without preview

    // 6 bytes of '"éééé…' would end inside the third é: the cut comes before it.
    expect((await previews(s, 'delayed', 6)).tasks[0]).toMatchObject({ preview: '"éé', bytes: 22 });
    expect((await previews(s, 'delayed', 22)).tasks[0]).toMatchObject({ preview: `"${'é'.repeat(10)}"`, bytes: 22 });
  });
});

describe('time', () => {
  it("reads the Redis server's clock, not this process's", async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const [before, t, after] = [await serverNow(raw), await s.time(), await serverNow(raw)];
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(after);
  });
});

describe('queue registry and totals', () => {
  it('registers each queue a put reaches, and no other', async () => {
    const s = await redis.scheduler();
    expect(await s.queues()).toEqual([]);
    await s.put(1, { queue: 'orders' });
    await s.put(2, { queue: 'emails' });
    await s.put(3, { queue: 'orders' });
    await s.sharded('hot', 2).put('x');
    const other = await redis.scheduler({ prefix: s.prefix });
    expect(await other.queues()).toEqual(['emails', expect.stringMatching(/^hot:[01]$/), 'orders']);
    await expect(s.put(1, { queue: 'bad queue' })).rejects.toBeInstanceOf(ValidationError);
    expect(await other.queues()).toHaveLength(3);
  });

  it('counts waiting tasks by state, and sums them over a sharded queue', async () => {
    const s = await redis.scheduler();
    const a = await s.put('a');
    await s.put('b', { after: [a.hash] });
    await s.put('c', { after: [a.hash], delay: 60_000 });
    expect(await s.stats()).toMatchObject({ ready: 1, delayed: 0, waiting: 2, active: 0, dead: 0 });
    const hot = s.sharded('hot', 2);
    const roots = await Promise.all([0, 1, 2, 3].map((n) => hot.put(`root-${n}`)));
    // A task waits in its own shard: put one after each root, each in the root's shard.
    for (const [n, root] of roots.entries()) await s.put(`leaf-${n}`, { queue: root.queue, after: [root.hash] });
    expect(await hot.stats()).toMatchObject({ ready: 4, waiting: 4 });
    await s.ack((await s.claim())!);
    expect(await s.stats()).toMatchObject({ ready: 1, delayed: 1, waiting: 0 });
  });

  it('counts added, deduplicated, completed, failed, dead, expired and lost leases across processes', async () => {
    const s = await redis.scheduler();
    const other = await redis.scheduler({ prefix: s.prefix });
    await s.put('a');
    await other.put('a'); // duplicate
    await s.put('b', { maxAttempts: 1 });
    await s.put('c', { expire: 1 });
    await s.put('d');
    const [a, b] = await s.claimMany(2);
    await s.ack(a);
    await other.fail(b, { error: 'no' });
    await sleep(10);
    const d = (await s.claim({ lease: 20 }))!; // c has expired: dropped on the way to d
    expect(d.data).toBe('d');
    await sleep(40);
    expect(await s.claim()).not.toBeNull(); // d's lease lapsed: re-queued, and leased again
    expect((await other.stats()).totals).toEqual({ added: 4, deduplicated: 1, replaced: 0, merged: 0, completed: 1, failed: 2, dead: 1, expired: 1, leaseLost: 1, cancelled: 0 });
  });
});
