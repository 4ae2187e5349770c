/**
 * Progress: a leased task's latest progress, fenced like ack, throttled, shown by get(), result()
 * and events(), kept across a lapsed lease and deleted with the task.
 */
import { LeaseLostError, PayloadTooLargeError, ValidationError, type QueueEvent } from '../lib';
import { eventually, sleep, useRedis } from './support/harness';

const redis = useRedis();

describe('progress', () => {
  it('is stored by a handler, shown by get() and result(), and goes with the ack', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put('job');
    let seen: unknown = null;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const w = s.work(async (task) => {
      expect(await task.progress({ step: 1, of: 3 })).toBe(true);
      await gate;
    });
    await eventually(async () => (seen = (await s.get(hash))?.progress) !== null);
    expect(seen).toEqual({ step: 1, of: 3 });
    expect(await s.result(hash)).toMatchObject({ state: 'active', progress: { step: 1, of: 3 } });
    release();
    // Done (the queue's history keeps the task, on by default), and its progress went with the ack.
    await eventually(async () => (await s.get(hash))?.state === 'done');
    await w.close();
    expect(await raw.exists(`${s.prefix}:{default}:progress`)).toBe(0);
    expect((await s.get(hash))!.progress).toBeNull();
  });

  it('writes at most one value per 100 ms per task, and always the last', async () => {
    const s = await redis.scheduler();
    const it = s.events();
    const { hash } = await s.put('busy');
    const w = s.work(
      async (task) => {
        for (let i = 1; i <= 500; i++) void task.progress(i);
        await sleep(250);
        for (let i = 501; i <= 600; i++) void task.progress(i);
      },
      { keepResult: 60_000 },
    );
    const progress: QueueEvent[] = [];
    for (;;) {
      const e = (await it.next()).value as QueueEvent;
      if (e.type === 'progress') progress.push(e);
      if (e.type === 'completed') break;
    }
    await w.close();
    // The first value goes at once, the latest of each burst when its 100 ms are up: 600 calls, a handful of writes.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.length).toBeLessThanOrEqual(5);
    expect(progress[0]).toMatchObject({ hash, progress: 1, attempt: 1 });
    expect(progress.map((e) => e.progress)).toContain(500);
    // The last value was written before the ack: nothing was refused as stale.
    expect(progress[progress.length - 1].progress).toBe(600);
    // (The 100 ms spacing is the client's: on the server's clock two writes can land closer, when
    // the first one was held up on the way.)
  });

  it('is fenced: a holder whose lease lapsed is refused, and its worker hears of it', async () => {
    const s = await redis.scheduler();
    await s.put('stale');
    const old = (await s.claim({ lease: 50 }))!;
    await sleep(80);
    const fresh = (await s.claim({ lease: 10_000 }))!;
    expect(fresh.attempt).toBe(2);
    expect(await s.progress(old, 'from the past')).toBe(false);
    expect(await s.progress(fresh, 'now')).toBe(true);
    expect((await s.get(fresh.hash))!.progress).toBe('now');

    const errors: unknown[] = [];
    await s.put('lapses');
    const w = s.work(
      async (task) => {
        // The event loop is blocked past the lease (50 ms): no extension can go out, the lease lapses.
        const end = Date.now() + 150;
        while (Date.now() < end);
        expect(await task.progress('too late')).toBe(false);
      },
      { lease: 50, onError: (err) => errors.push(err), maxAttempts: 1 },
    );
    await eventually(() => errors.some((e) => e instanceof LeaseLostError));
    await w.close({ timeout: 0 });
  });

  it('stays when a worker dies mid-task, and the retry goes on from it', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('crashy');
    const first = (await s.claim({ lease: 400 }))!;
    expect(await s.progress(first, { done: 40 })).toBe(true);
    await sleep(450); // the holder is gone: its lease lapses
    const retry = (await s.claim())!;
    expect(retry.attempt).toBe(2);
    expect(await s.get(hash)).toMatchObject({ progress: { done: 40 }, state: 'active' });
    expect(await s.ack(retry)).toBe(true);
  });

  it('is deleted with a dead task when it is purged, and with a cancelled one', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    await s.put('a', { maxAttempts: 1 });
    const a = (await s.claim())!;
    await s.progress(a, 'half');
    await s.fail(a, { error: 'x' });
    expect((await s.get(a.hash))!.progress).toBe('half');
    await s.purgeDead();
    await s.put('b', { maxAttempts: 2 });
    const b = (await s.claim())!;
    await s.progress(b, 'some');
    await s.fail(b, { error: 'x', retryIn: 60_000 });
    expect(await s.cancel(b.hash)).toBe(true);
    expect(await raw.exists(`${s.prefix}:{default}:progress`)).toBe(0);
  });

  it('refuses a value that is not JSON or too large, at once and with nothing written', async () => {
    const s = await redis.scheduler({ maxResultBytes: 64 });
    await s.put('v');
    const task = (await s.claim())!;
    expect(() => task.progress(undefined as never)).toThrow(ValidationError);
    expect(() => task.progress('z'.repeat(100))).toThrow(PayloadTooLargeError);
    await expect(s.progress(task, NaN)).rejects.toMatchObject({ name: 'ValidationError', field: 'progress' });
    await expect(s.progress({} as never, 1)).rejects.toMatchObject({ field: 'task' });
    expect((await s.get(task.hash))!.progress).toBeNull();
  });
});

describe('progress in list()', () => {
  it('lists active tasks with their progress; a preview cuts it as it cuts payloads', async () => {
    const s = await redis.scheduler();
    await s.put('listed');
    const task = (await s.claim())!;
    await s.progress(task, { stage: 'x'.repeat(40) });
    const page = await s.list('active');
    expect(page.tasks[0].progress).toEqual({ stage: 'x'.repeat(40) });
    const small = await s.list('active', { preview: 10 });
    expect(small.tasks[0]).toMatchObject({ progress: null, progressPreview: '{"stage":"' });
    const big = await s.list('active', { preview: 1000 });
    expect(big.tasks[0]).toMatchObject({ progress: { stage: 'x'.repeat(40) }, progressPreview: `{"stage":"${'x'.repeat(40)}"}` });
  });
});
