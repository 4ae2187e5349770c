/**
 * work(): exactly-once in a clean run, concurrency, close(), retries, lease renewal and loss, the
 * idle wait (woken by put and by its own timer, without polling), and surviving Redis errors.
 */
import { createClient } from 'redis';
import { createScheduler, DocketError, LeaseLostError, type Task } from '../lib';
import { eventually, sleep, useRedis } from './support/harness';
import { startRedis } from './support/redis-server';

const redis = useRedis();

describe('work', () => {
  it('runs each task exactly once in a clean run, across two workers', async () => {
    const s = await redis.scheduler();
    const seen = new Map<number, number>();
    const handler = async (task: Task<{ n: number }>) => {
      seen.set(task.data.n, (seen.get(task.data.n) ?? 0) + 1);
      if (task.data.n % 7 === 0) await sleep(2);
    };
    const a = s.work(handler, { concurrency: 8 });
    const b = s.work(handler, { concurrency: 8 });
    await s.putMany(Array.from({ length: 300 }, (_, n) => ({ data: { n }, options: { priority: n % 10 === 0 } })));
    await s.putMany(Array.from({ length: 100 }, (_, i) => ({ data: { n: 300 + i }, options: { delay: 50 + i } })));
    await eventually(() => seen.size === 400, 10_000);
    await Promise.all([a.close(), b.close()]);
    expect([...seen.values()].every((count) => count === 1)).toBe(true);
    expect(await s.stats()).toMatchObject({ ready: 0, delayed: 0, active: 0, dead: 0 });
  });

  it('runs at most `concurrency` handlers at once, and uses all of them', async () => {
    const s = await redis.scheduler();
    let running = 0;
    let most = 0;
    let done = 0;
    const worker = s.work(
      async () => {
        most = Math.max(most, ++running);
        await sleep(20);
        running--;
        done++;
      },
      { concurrency: 4 },
    );
    await s.putMany(Array.from({ length: 40 }, (_, i) => ({ data: i })));
    await eventually(() => done === 40);
    await worker.close();
    expect(most).toBe(4);
  });

  it('close() waits for in-flight handlers and their acks', async () => {
    const s = await redis.scheduler();
    let finished = false;
    let started = false;
    const worker = s.work(async () => {
      started = true;
      await sleep(300);
      finished = true;
    });
    const { hash } = await s.put('slow');
    await eventually(() => started);
    await worker.close();
    expect(finished).toBe(true);
    // Acked: the task is in the queue's done history (on by default), no longer live.
    expect((await s.get(hash))?.state).toBe('done');
    // A closed worker claims nothing more.
    await s.put('left for later');
    await sleep(100);
    expect(await s.stats()).toMatchObject({ ready: 1, active: 0 });
  });

  it('fails a throwing handler with back-off, retries it, and makes it dead after maxAttempts', async () => {
    const s = await redis.scheduler();
    const attempts: number[] = [];
    const errors: unknown[] = [];
    const worker = s.work(
      async (task) => {
        attempts.push(task.attempt);
        throw new Error(`attempt ${task.attempt} failed`);
      },
      { backoff: (attempt) => attempt * 20, maxAttempts: 3, onError: (err) => errors.push(err) },
    );
    const { hash } = await s.put('always fails', { maxAttempts: 10 });
    await eventually(async () => (await s.get(hash))?.state === 'dead');
    await worker.close();
    expect(attempts).toEqual([1, 2, 3]);
    expect((await s.get(hash))!.lastError).toMatch(/^Error: attempt 3 failed/);
    expect(errors).toEqual([]);
  });

  it('falls back to the default back-off when the given one throws, and reports it', async () => {
    const s = await redis.scheduler();
    const errors: unknown[] = [];
    const worker = s.work(
      async () => {
        throw new Error('handler failed');
      },
      {
        backoff: () => {
          throw new Error('bad backoff');
        },
        onError: (e) => errors.push(e),
      },
    );
    const { hash } = await s.put('x');
    await eventually(async () => (await s.get(hash))?.state === 'delayed');
    await worker.close();
    expect(errors).toEqual([expect.objectContaining({ code: 'ERR_VALIDATION', field: 'options.backoff' })]);
  });

  it('takes a close timeout of 0 (hand back at once) and refuses unknown close options', async () => {
    const s = await redis.scheduler();
    const worker = s.work(async (_task, signal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())));
    const { hash } = await s.put('x');
    await eventually(async () => (await s.get(hash))?.state === 'active');
    await expect(worker.close({ tiemout: 5 } as never)).rejects.toMatchObject({ field: 'options.tiemout' });
    await worker.close({ timeout: 0 });
    expect((await s.get(hash))!.state).toBe('ready');
  });

  it('retries after the backoff it was given', async () => {
    const s = await redis.scheduler();
    const starts: number[] = [];
    const worker = s.work(
      async () => {
        starts.push(Date.now());
        if (starts.length === 1) throw new Error('first try fails');
      },
      { backoff: () => 300 },
    );
    await s.put('x');
    await eventually(() => starts.length === 2);
    await worker.close();
    expect(starts[1] - starts[0]).toBeGreaterThanOrEqual(250);
  });

  it('keeps extending the lease while a handler runs longer than it', async () => {
    const s = await redis.scheduler();
    const runs: number[] = [];
    const handler = async (task: Task) => {
      runs.push(task.attempt);
      await sleep(2000);
    };
    // A handler that runs over three leases. A lease of 600 ms, not less: a loaded machine can
    // hold the event loop past a shorter one between two extensions.
    const a = s.work(handler, { lease: 600 });
    const { hash } = await s.put('long');
    await eventually(() => runs.length === 1);
    const b = s.work(handler, { lease: 600 }); // would take the task if the lease lapsed
    await eventually(async () => (await s.get(hash))?.state === 'done', 10_000);
    await Promise.all([a.close(), b.close()]);
    expect(runs).toEqual([1]);
  });

  it('aborts the handler signal with a LeaseLostError once the lease is lost', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    let reason: unknown;
    const errors: unknown[] = [];
    const worker = s.work(
      (_task, signal) =>
        new Promise<void>((resolve) => {
          signal.addEventListener('abort', () => {
            reason = signal.reason;
            resolve();
          });
        }),
      { lease: 300, onError: (err) => errors.push(err) },
    );
    const { hash } = await s.put('taken away');
    await eventually(async () => (await s.get(hash))?.state === 'active');
    // Another holder takes over: lapse the lease by hand and claim the task elsewhere.
    await raw.zAdd(`${s.prefix}:{default}:active`, { score: 0, value: hash });
    const thief = (await s.claim({ lease: 60_000 }))!;
    expect(thief.attempt).toBe(2);
    await eventually(() => reason !== undefined, 2000);
    await worker.close();
    expect(reason).toBeInstanceOf(LeaseLostError);
    expect(errors.some((e) => e instanceof LeaseLostError)).toBe(true);
    expect(await s.ack(thief)).toBe(true);
  });

  it('is closed by scheduler.close(), which waits for its in-flight handlers', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    let started = false;
    let finished = false;
    const worker = s.work(async () => {
      started = true;
      await sleep(200);
      finished = true;
    });
    const { hash } = await s.put('x');
    // The handler, not only the lease: a claim whose reply comes after close() is handed back unrun.
    await eventually(() => started);
    await s.close();
    expect(finished).toBe(true);
    await worker.closed;
    expect(await raw.hExists(`${s.prefix}:{default}:meta`, hash)).toBe(false);
  });

  it('closes at once when its signal was aborted before it started', async () => {
    const s = await redis.scheduler();
    const worker = s.work(async () => {}, { signal: AbortSignal.abort() });
    await worker.closed;
    await s.put('x');
    await sleep(50);
    expect((await s.stats()).ready).toBe(1);
    await s.close();
  });

  it('closes when its signal aborts', async () => {
    const s = await redis.scheduler();
    const controller = new AbortController();
    const worker = s.work(async () => {}, { signal: controller.signal });
    controller.abort();
    await worker.closed;
    await s.put('x');
    await sleep(50);
    expect((await s.stats()).ready).toBe(1);
  });
});

describe('errors in the loop', () => {
  it('survives its connections being killed, reports, and goes on', async () => {
    const server = await startRedis();
    const s = await createScheduler({ url: server.url, warnings: { aof: false } });
    const raw = createClient({ url: server.url });
    await raw.connect();
    try {
      const done: string[] = [];
      const errors: unknown[] = [];
      const worker = s.work(async (task) => void done.push(task.data as string), { onError: (e) => errors.push(e) });
      await s.put('before');
      await eventually(() => done.length === 1);
      await sleep(50);
      await raw.sendCommand(['CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes']);
      await eventually(async () => {
        try {
          await s.put('after');
          return true;
        } catch {
          return false;
        }
      });
      await eventually(() => done.includes('after'), 8000);
      await worker.close();
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.every((e) => e instanceof DocketError)).toBe(true);
    } finally {
      await s.close();
      await raw.quit();
      await server.stop();
    }
  });
});

/** A value every read of which throws: a Proxy whose every trap throws (its type, its prototype, any property). */
function hostileProxy(): object {
  const refuse = (): never => {
    throw new Error('no reading me');
  };
  const traps = [
    'get',
    'has',
    'ownKeys',
    'getPrototypeOf',
    'getOwnPropertyDescriptor',
    'defineProperty',
    'set',
    'deleteProperty',
    'isExtensible',
    'preventExtensions',
    'apply',
    'construct',
    'setPrototypeOf',
  ];
  return new Proxy({}, Object.fromEntries(traps.map((t) => [t, refuse])));
}

describe('work, with handlers that throw odd values', () => {
  const unprintable = {
    'Object.create(null)': () => Object.create(null),
    'an object whose toString throws': () => ({
      toString: () => {
        throw new Error('no');
      },
    }),
    'an Error whose stack getter throws': () =>
      Object.defineProperty(new Error('x'), 'stack', {
        get: () => {
          throw new Error('no');
        },
      }),
    'a Proxy whose every trap throws': () => hostileProxy(),
  };

  it.each(Object.entries(unprintable))('records %s as a failure and retries the task', async (_, make) => {
    const s = await redis.scheduler();
    const errors: unknown[] = [];
    let runs = 0;
    const worker = s.work(
      async () => {
        if (++runs === 1) throw make();
      },
      { backoff: () => 0, onError: (e) => errors.push(e) },
    );
    const { hash } = await s.put('throws once');
    await eventually(() => runs === 2, 5000);
    await worker.close();
    expect(errors).toEqual([]);
    const info = await s.get(hash);
    expect(info).toMatchObject({ state: 'done', attempts: 2 }); // acked on its second run (the done history keeps it)
    expect((await s.stats()).totals).toMatchObject({ failed: 1, completed: 1 });
  });

  it('fail() records such a value too', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('failed by hand');
    const task = (await s.claim())!;
    expect(await s.fail(task, { error: Object.create(null), retryIn: 10_000 })).toBe('retry');
    expect((await s.get(hash))!.lastError).toEqual(expect.any(String));
  });

  it('records a value no property of which can be read, on the claim() path and through work(), as such', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('unreadable by hand', { maxAttempts: 3 });
    expect(await s.fail((await s.claim())!, { error: hostileProxy(), retryIn: 0 })).toBe('retry');
    expect((await s.get(hash))!).toMatchObject({ attempts: 1, lastError: '[a thrown value that cannot be shown]' });
    // Through work() too, within its lease: the failure is recorded at once, not left to lapse.
    const errors: unknown[] = [];
    const worker = s.work(
      async () => {
        throw hostileProxy();
      },
      { lease: 60_000, backoff: () => 0, onError: (e) => errors.push(e) },
    );
    await eventually(async () => (await s.get(hash))?.state === 'dead', 5000);
    await worker.close();
    expect(errors).toEqual([]);
    expect((await s.get(hash))!).toMatchObject({ attempts: 3, lastError: '[a thrown value that cannot be shown]' });
  });
});
