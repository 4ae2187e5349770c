/**
 * Leases: claim, ack, fail, extend, re-delivery after a lapse, fencing of stale holders, attempts
 * and the dead set.
 */
import { keysUnder, sleep, useRedis } from './support/harness';

const redis = useRedis();

describe('claim and ack', () => {
  it('leases a task with its attempt, lease deadline and token, and ack deletes it', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash, runAt } = await s.put({ x: 1 }, { expire: 60_000 });
    const task = (await s.claim({ lease: 1000 }))!;
    expect(task).toMatchObject({ hash, queue: 'default', data: { x: 1 }, attempt: 1, runAt, expireAt: runAt + 60_000 });
    expect(task.leaseUntil).toBeGreaterThan(runAt);
    expect(task.leaseUntil).toBeLessThanOrEqual(runAt + 1000 + 1000);
    expect(task.token).toMatch(/^[0-9a-f]{16}:1$/);
    expect(await s.stats()).toMatchObject({ ready: 0, active: 1 });
    expect(await s.ack(task)).toBe(true);
    // A finished task leaves no live record behind: only the queue's lifetime and per-minute counters,
    // events and name, and its entry in the queue's bounded done history (on by default,
    // lua/include/history.lua).
    const queueKeys = (names: string[]) => [`${s.prefix}:queues`, ...names.map((k) => `${s.prefix}:{default}:${k}`)];
    expect(await keysUnder(raw, s.prefix)).toEqual(queueKeys(['acked', 'counts', 'done', 'events', 'history', 'minutes', 'wake']));
    // Its run's row, and its pointer to it (lua/include/runs.lua).
    expect((await raw.hKeys(`${s.prefix}:{default}:history`)).sort()).toEqual([expect.stringMatching(new RegExp(`^[0-9a-f]{12}\\|${hash}$`)), hash]);
    expect((await s.get(hash))!.state).toBe('done');
    // With the history off for the queue, an ack leaves nothing of the task at all.
    await s.keep({ done: { count: 0 } });
    const { hash: second } = await s.put({ x: 2 });
    expect(await s.ack((await s.claim())!)).toBe(true);
    expect(await s.get(second)).toBeNull();
    expect(await raw.hExists(`${s.prefix}:{default}:history`, second)).toBe(false);
  });

  it('answers an ack retried with the same token as before, for a while, then forgets it', async () => {
    const s = await redis.scheduler({ commandTimeout: 50 });
    const raw = await redis.raw();
    await s.put('x');
    const task = (await s.claim())!;
    expect(await s.ack(task)).toBe(true);
    expect(await s.ack(task)).toBe(true); // a retry after a lost reply
    expect(await s.ack({ ...task, token: 'forged:1' })).toBe(false);
    await sleep(4 * 50 + 100);
    expect(await s.ack(task)).toBe(false);
    // The memory of acks expired (no `acked` key); the task itself is in the done history.
    expect(await keysUnder(raw, s.prefix)).toEqual([`${s.prefix}:queues`, ...['counts', 'done', 'events', 'history', 'minutes', 'wake'].map((k) => `${s.prefix}:{default}:${k}`)]);
  });

  it('returns null from an empty queue, and claimMany takes up to count in order', async () => {
    const s = await redis.scheduler();
    expect(await s.claim()).toBeNull();
    expect(await s.claimMany(3)).toEqual([]);
    await s.putMany([1, 2, 3, 4].map((n) => ({ data: n })));
    const tasks = await s.claimMany(3);
    expect(tasks.map((t) => t.data)).toEqual([1, 2, 3]);
    expect(new Set(tasks.map((t) => t.token)).size).toBe(3);
    expect((await s.claimMany(3)).map((t) => t.data)).toEqual([4]);
  });
});

describe('lease expiry and fencing', () => {
  it('re-delivers a task whose lease ran out, and refuses the stale holder', async () => {
    const s = await redis.scheduler();
    await s.put('slow');
    const stale = (await s.claim({ lease: 100 }))!;
    await sleep(150);
    const fresh = (await s.claim({ lease: 10_000 }))!;
    expect(fresh.hash).toBe(stale.hash);
    expect(fresh.attempt).toBe(2);
    expect(fresh.token).not.toBe(stale.token);
    expect(await s.ack(stale)).toBe(false);
    expect(await s.fail(stale)).toBe('lost');
    expect(await s.extend(stale, 10_000)).toBe(false);
    expect(await s.ack(fresh)).toBe(true);
  });

  it('refuses a holder whose lease has run out even before anyone re-claims it', async () => {
    const s = await redis.scheduler();
    await s.put('x');
    const task = (await s.claim({ lease: 50 }))!;
    await sleep(100);
    expect(await s.ack(task)).toBe(false);
    expect(await s.extend(task, 1000)).toBe(false);
    // Still there, and delivered again.
    expect((await s.claim())!.attempt).toBe(2);
  });

  it('extends a held lease from the server now, and keeps other workers off', async () => {
    const s = await redis.scheduler();
    await s.put('long');
    const task = (await s.claim({ lease: 150 }))!;
    const before = task.leaseUntil;
    expect(await s.extend(task, { seconds: 10 })).toBe(true);
    expect(task.leaseUntil).toBeGreaterThanOrEqual(before + 9000);
    await sleep(200);
    expect(await s.claim()).toBeNull();
    expect(await s.ack(task)).toBe(true);
  });

  it('makes a task dead once its lease has lapsed maxAttempts times', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('crashes its worker', { maxAttempts: 2 });
    expect((await s.claim({ lease: 30 }))!.attempt).toBe(1);
    await sleep(50);
    expect((await s.claim({ lease: 30 }))!.attempt).toBe(2);
    await sleep(50);
    expect(await s.claim()).toBeNull();
    expect(await s.get(hash)).toMatchObject({ state: 'dead', attempts: 2, lastError: 'lease expired' });
  });
});

describe('fail, retry and dead', () => {
  it('retries with back-off and goes dead after maxAttempts, keeping the last error', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('flaky', { maxAttempts: 3 });
    for (let attempt = 1; attempt <= 3; attempt++) {
      const task = (await s.claim())!;
      expect(task.attempt).toBe(attempt);
      const outcome = await s.fail(task, { error: new Error(`try ${attempt}`), retryIn: 0 });
      expect(outcome).toBe(attempt < 3 ? 'retry' : 'dead');
    }
    expect(await s.claim()).toBeNull();
    const info = (await s.get(hash))!;
    expect(info).toMatchObject({ state: 'dead', attempts: 3 });
    expect(info.lastError).toMatch(/^Error: try 3/);
    expect(await s.stats()).toMatchObject({ dead: 1, ready: 0, delayed: 0, active: 0 });
  });

  it('delays a retry by the default back-off when no retryIn is given', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('x');
    const task = (await s.claim())!;
    expect(await s.fail(task, { error: 'nope' })).toBe('retry');
    const info = (await s.get(hash))!;
    expect(info.state).toBe('delayed');
    // Attempt 1 waits 0.5-1 s.
    expect(info.runAt - task.runAt).toBeGreaterThanOrEqual(500);
    expect(info.lastError).toBe('nope');
  });

  it('delays a retry by retryIn (ms or Duration)', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('x');
    expect(await s.fail((await s.claim())!, { retryIn: { minutes: 2 } })).toBe('retry');
    expect((await s.get(hash))!.runAt).toBeGreaterThan(Date.now() + 100_000);
  });

  it('keeps the dead set within its count cap', async () => {
    const s = await redis.scheduler({ deadMaxCount: 3 });
    const put = await s.putMany([0, 1, 2, 3, 4].map((i) => ({ data: i, options: { maxAttempts: 1 } })));
    for (const task of await s.claimMany(5)) {
      await s.fail(task, { retryIn: 0 });
      await sleep(3); // distinct death times: ties in the dead set break by id, not by age
    }
    expect((await s.stats()).dead).toBe(5);
    await s.claim(); // claim trims the dead set
    expect((await s.stats()).dead).toBe(3);
    // The oldest went, records and all.
    expect(await s.get(put[0].hash)).toBeNull();
    expect(await s.get(put[1].hash)).toBeNull();
    expect((await s.get(put[4].hash))!.state).toBe('dead');
  });

  it('purges dead tasks older than deadMaxAge', async () => {
    const s = await redis.scheduler({ deadMaxAge: 100 });
    const raw = await redis.raw();
    const { hash } = await s.put('x', { maxAttempts: 1 });
    await s.fail((await s.claim())!, { retryIn: 0 });
    await s.claim();
    expect((await s.get(hash))!.state).toBe('dead');
    await sleep(150);
    await s.claim();
    expect(await s.get(hash)).toBeNull();
    expect(await keysUnder(raw, s.prefix)).toEqual([`${s.prefix}:queues`, ...['counts', 'events', 'minutes', 'wake'].map((k) => `${s.prefix}:{default}:${k}`)]);
  });
});
