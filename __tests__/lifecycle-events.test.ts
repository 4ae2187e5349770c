/**
 * Lifecycle events (BullMQ's QueueEvents): with the scheduler's option `events: 'all'` the stream
 * also gets added, active, lapsed, retrying and drained, in order with the outcome events; with
 * the default, 'outcomes', none of them is written. paused and resumed (of a queue, of a group)
 * are written either way.
 */
import { RetryLaterError, ValidationError, type QueueEvent, type Scheduler } from '../lib';
import { eventually, serverNow, sleep, useRedis } from './support/harness';

const redis = useRedis();

/** Every event the queue's stream holds now, oldest first: read from the start until it goes quiet. */
async function streamOf(s: Scheduler, queue = 'default'): Promise<QueueEvent[]> {
  const seen: QueueEvent[] = [];
  const controller = new AbortController();
  const it = s.events({ queue, from: 'start', signal: controller.signal });
  const timer = setTimeout(() => controller.abort(), 300);
  try {
    for await (const e of it) seen.push(e);
  } catch {
    // aborted: the stream was read to its end
  } finally {
    clearTimeout(timer);
  }
  return seen;
}

const LIFECYCLE = new Set(['added', 'active', 'lapsed', 'retrying', 'drained']);

describe("lifecycle events (events: 'all')", () => {
  it('follow a task through its life: added, active, drained, failed, retrying, active, drained, completed', async () => {
    const s = await redis.scheduler({ events: 'all' });
    const { hash } = await s.put({ n: 1 }, { name: 'mail' });
    const first = (await s.claim())!;
    await s.fail(first, { error: new Error('flaky'), retryIn: 0 });
    await s.ack((await s.claim())!);
    const events = await streamOf(s);
    expect(events.map((e) => [e.type, e.hash])).toEqual([
      ['added', hash],
      ['active', hash],
      ['drained', ''],
      ['failed', hash],
      ['retrying', hash],
      ['active', hash],
      ['drained', ''],
      ['completed', hash],
    ]);
    const [added, active, , , retrying, again] = events;
    expect(added).toMatchObject({ name: 'mail', attempt: null, worker: null, group: null });
    expect(added.runAt).toBeGreaterThan(1.6e12);
    expect(active).toMatchObject({ name: 'mail', attempt: 1, runAt: null });
    expect(active.worker).toEqual(expect.any(String));
    expect(active.worker).not.toBe('');
    expect(retrying).toMatchObject({ attempt: 1, ending: 'failed', worker: null, error: null });
    expect(retrying.runAt).toBeGreaterThanOrEqual(added.runAt!);
    expect(again).toMatchObject({ attempt: 2, worker: active.worker });
  });

  it('gives no added for a duplicate (that is deduplicated) and one for a dead task revived', async () => {
    const s = await redis.scheduler({ events: 'all' });
    const { hash } = await s.put('x', { maxAttempts: 1 });
    await s.put('x');
    await s.fail((await s.claim())!, { error: new Error('no') });
    await s.put('x');
    const types = (await streamOf(s)).filter((e) => e.hash === hash).map((e) => e.type);
    expect(types).toEqual(['added', 'deduplicated', 'active', 'dead', 'added']);
  });

  it("carries a RetryLaterError's run-at and ending on retrying", async () => {
    const s = await redis.scheduler({ events: 'all' });
    const client = await redis.raw();
    const { hash } = await s.put('later');
    const at = (await serverNow(client)) + 60_000;
    await s.fail((await s.claim())!, { error: new RetryLaterError('rate limited', { at }) });
    const retrying = (await streamOf(s)).filter((e) => e.type === 'retrying');
    expect(retrying).toMatchObject([{ hash, attempt: 1, runAt: at, ending: 'retry-later' }]);
  });

  it('writes lapsed when a lease runs out, before the failed and retrying of that attempt', async () => {
    const s = await redis.scheduler({ events: 'all' });
    const { hash } = await s.put('slow');
    await s.claim({ lease: 50 });
    await sleep(120);
    const again = (await s.claim())!;
    expect(again.attempt).toBe(2);
    const events = (await streamOf(s)).filter((e) => e.hash === hash);
    expect(events.map((e) => e.type)).toEqual(['added', 'active', 'lapsed', 'failed', 'retrying', 'active']);
    expect(events[2]).toMatchObject({ attempt: 1, worker: events[1].worker });
    expect(events[3].error).toBe('lease expired');
  });

  it("writes lapsed for a dead worker's task that a heartbeat lapses, then the task runs again", async () => {
    const s = await redis.scheduler({ events: 'all' });
    const client = await redis.raw();
    const { hash } = await s.put('orphan');
    await s.claim({ lease: 60_000 });
    const holder = (await streamOf(s)).find((e) => e.type === 'active')!.worker!;
    // Its holder's heartbeat ran out long ago: the next heartbeat of any worker lapses its lease.
    await client.zAdd(`${s.prefix}:{default}:workers`, { score: (await serverNow(client)) - 1, value: holder });
    const done: string[] = [];
    const worker = s.work(async (task) => void done.push(task.hash));
    try {
      await eventually(() => done.includes(hash));
    } finally {
      await worker.close();
    }
    const events = (await streamOf(s)).filter((e) => e.hash === hash);
    expect(events.map((e) => e.type)).toEqual(['added', 'active', 'lapsed', 'failed', 'retrying', 'active', 'completed']);
    expect(events[2]).toMatchObject({ attempt: 1, worker: holder });
    expect(events[5].worker).not.toBe(holder);
  });

  it('writes drained on the claim that takes the last ready task, of whichever level or group', async () => {
    const s = await redis.scheduler({ events: 'all' });
    await s.put('high', { priority: 5 });
    await s.put('grouped', { group: 'acme' });
    await s.put('plain');
    await s.put('later', { delay: 60_000 });
    const drainedAfter: number[] = [];
    for (let i = 1; i <= 3; i++) {
      expect(await s.claim()).not.toBeNull();
      if ((await streamOf(s)).some((e) => e.type === 'drained')) drainedAfter.push(i);
    }
    // Only the third claim left nothing ready (the delayed task is not ready); a claim that finds
    // nothing writes nothing.
    expect(drainedAfter).toEqual([3]);
    expect(await s.claim()).toBeNull();
    expect((await streamOf(s)).filter((e) => e.type === 'drained')).toMatchObject([{ hash: '', attempt: null }]);
  });

  it('writes drained when a priority level is emptied by a claim that takes exactly what it holds', async () => {
    const s = await redis.scheduler({ events: 'all' });
    await s.put('only', { priority: 9 });
    expect(await s.claim()).not.toBeNull();
    expect((await streamOf(s)).map((e) => e.type)).toEqual(['added', 'active', 'drained']);
  });
});

describe('paused and resumed', () => {
  it.each(['outcomes', 'all'] as const)("are written for a queue and for one group, once a change (events: '%s')", async (mode) => {
    const s = await redis.scheduler({ events: mode });
    expect(await s.pause()).toBe(true);
    expect(await s.pause()).toBe(false);
    expect(await s.resume()).toBe(true);
    expect(await s.resume()).toBe(false);
    expect(await s.pause({ group: 'acme' })).toBe(true);
    expect(await s.pause({ group: 'acme' })).toBe(false);
    expect(await s.resume({ group: 'acme' })).toBe(true);
    const events = await streamOf(s);
    expect(events.map((e) => [e.type, e.group, e.hash])).toEqual([
      ['paused', null, ''],
      ['resumed', null, ''],
      ['paused', 'acme', ''],
      ['resumed', 'acme', ''],
    ]);
  });

  it('are not written with eventsMaxLength 0', async () => {
    const s = await redis.scheduler({ events: 'all', eventsMaxLength: 0 });
    const client = await redis.raw();
    await s.pause();
    await s.resume({ group: 'acme' });
    await s.pause({ group: 'acme' });
    expect(await client.exists(`${s.prefix}:{default}:events`)).toBe(0);
  });
});

describe("events: 'outcomes' (the default)", () => {
  it('writes none of the per-task lifecycle events, and the outcome events as before', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('a');
    await s.fail((await s.claim())!, { error: new Error('flaky'), retryIn: 0 });
    await s.claim({ lease: 50 });
    await sleep(120);
    await s.ack((await s.claim())!);
    await s.pause();
    await s.resume();
    const events = await streamOf(s);
    expect(events.filter((e) => LIFECYCLE.has(e.type))).toEqual([]);
    expect(events.map((e) => [e.type, e.hash])).toEqual([
      ['failed', hash],
      ['failed', hash],
      ['completed', hash],
      ['paused', ''],
      ['resumed', ''],
    ]);
  });

  it('is checked: another value is a ValidationError naming the option', async () => {
    await expect(redis.scheduler({ events: 'some' as 'all' })).rejects.toThrow(ValidationError);
    await expect(redis.scheduler({ events: 'some' as 'all' })).rejects.toThrow(/events/);
  });
});
