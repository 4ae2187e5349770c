/**
 * Batch handlers (workBatch): a handler gets up to `size` tasks, waiting at most `wait` for a batch
 * to fill; it acks them all, fails them all, or fails single ones with task.fail(), with a result
 * per task; every rule of a single task holds per task (fencing, limits, results, endings); a batch
 * whose worker process is SIGKILLed mid-batch has every task delivered again.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { LeaseLostError, RunTimeoutError, UnrecoverableError, ValidationError, type BatchTask, type DocketError } from '../lib';
import { childModule } from './support/children';
import { eventually, sleep, testUrl, useRedis } from './support/harness';

const redis = useRedis();
const KEEP = { keepResult: 60_000 };

/** Puts `n` tasks (payloads 0 … n-1) and returns their hashes in put order. */
async function putMany(s: Awaited<ReturnType<typeof redis.scheduler>>, n: number, options: object = {}): Promise<string[]> {
  const hashes: string[] = [];
  for (let i = 0; i < n; i++) hashes.push((await s.put(i, { ...KEEP, ...options })).hash);
  return hashes;
}

describe('workBatch: gathering', () => {
  it('hands ready tasks over in batches of up to size, and acks them all', async () => {
    const s = await redis.scheduler();
    const hashes = await putMany(s, 7);
    const sizes: number[] = [];
    const seen: string[] = [];
    const worker = s.workBatch(
      async (tasks) => {
        sizes.push(tasks.length);
        seen.push(...tasks.map((t) => t.hash));
      },
      { size: 3 },
    );
    await eventually(async () => (await s.stats()).totals.completed === 7);
    await worker.close();
    expect(sizes).toEqual([3, 3, 1]);
    expect(seen).toEqual(hashes);
    for (const hash of hashes) expect(await s.result(hash)).toMatchObject({ state: 'done', attempts: 1 });
  });

  it('waits at most `wait` for a batch to fill once it has a task: a lone task runs after about wait', async () => {
    const s = await redis.scheduler();
    let ranAt = 0;
    const worker = s.workBatch(
      async (tasks) => {
        ranAt = Date.now();
        expect(tasks).toHaveLength(1);
      },
      { size: 5, wait: 400 },
    );
    await sleep(100); // idle first: the wait starts at the task, not at the worker
    const putAt = Date.now();
    await s.put('alone');
    await eventually(() => ranAt > 0);
    await worker.close();
    // A lower bound only: the batch waited for company (no claim for speed is timed here).
    expect(ranAt - putAt).toBeGreaterThanOrEqual(350);
  });

  it('fills a waiting batch with tasks put during the wait, and runs it once full', async () => {
    const s = await redis.scheduler();
    const batches: string[][] = [];
    const worker = s.workBatch(async (tasks) => void batches.push(tasks.map((t) => t.data as string)), { size: 3, wait: 20_000, lease: 60_000 });
    await s.put('a');
    await sleep(100);
    await s.put('b');
    await s.put('c');
    // Full at three: it does not wait out the 20 s.
    await eventually(() => batches.length === 1, 5000);
    await worker.close();
    expect(batches[0].sort()).toEqual(['a', 'b', 'c']);
  });

  it('refuses bad options before any I/O, naming the field', () => {
    return redis.scheduler().then((s) => {
      expect(() => s.workBatch(async () => {}, { size: 0 })).toThrow(ValidationError);
      expect(() => s.workBatch(async () => {}, { wait: 20_000, lease: 30_000 })).toThrow(/options\.wait/);
      expect(() => s.workBatch(async () => {}, { prefetch: 2 } as never)).toThrow(ValidationError);
      expect(() => s.workBatch('nope' as never)).toThrow(/handler/);
    });
  });
});

describe('workBatch: outcomes', () => {
  it('keeps one result per task, from the array the handler resolves to', async () => {
    const s = await redis.scheduler();
    const hashes = await putMany(s, 4);
    const worker = s.workBatch<number, number>(async (tasks) => tasks.map((t) => t.data * 10), { size: 4 });
    await eventually(async () => (await s.stats()).totals.completed === 4);
    await worker.close();
    for (const [i, hash] of hashes.entries()) expect(await s.result(hash)).toMatchObject({ state: 'done', result: i * 10 });
  });

  it('fails every task of the batch when the handler throws, with the back-off and endings of a single task', async () => {
    const s = await redis.scheduler();
    const hashes = await putMany(s, 3, { maxAttempts: 5 });
    const attempts: number[] = [];
    const worker = s.workBatch(
      async (tasks) => {
        attempts.push(...tasks.map((t) => t.attempt));
        throw new Error('the bulk API said no');
      },
      { size: 3, backoff: () => 60_000 },
    );
    await eventually(async () => (await s.stats()).delayed === 3);
    await worker.close();
    expect(attempts).toEqual([1, 1, 1]);
    for (const hash of hashes) {
      const info = (await s.get(hash))!;
      expect(info).toMatchObject({ state: 'delayed', attempts: 1, ending: 'failed' });
      expect(info.lastError).toMatch(/the bulk API said no/);
    }
    // An UnrecoverableError thrown by a batch handler ends them all at once.
    const more = await putMany(s, 2, { maxAttempts: 5, queue: 'gone' });
    const w2 = s.workBatch(
      async () => {
        throw new UnrecoverableError('bad batch');
      },
      { queue: 'gone', size: 2 },
    );
    await eventually(async () => (await s.stats({ queue: 'gone' })).dead === 2);
    await w2.close();
    for (const hash of more) expect(await s.get(hash, { queue: 'gone' })).toMatchObject({ state: 'dead', attempts: 1, ending: 'unrecoverable' });
  });

  it('fails single tasks marked with task.fail(error) and acks the rest with their results', async () => {
    const s = await redis.scheduler();
    const hashes = await putMany(s, 3, { maxAttempts: 5 });
    const worker = s.workBatch<number, string>(
      async (tasks: BatchTask<number>[]) => {
        tasks[1].fail(new UnrecoverableError('row 1 is malformed'));
        return tasks.map((t) => `ok ${t.data}`);
      },
      { size: 3 },
    );
    await eventually(async () => (await s.stats()).totals.completed === 2 && (await s.stats()).dead === 1);
    await worker.close();
    expect(await s.result(hashes[0])).toMatchObject({ state: 'done', result: 'ok 0' });
    expect(await s.result(hashes[2])).toMatchObject({ state: 'done', result: 'ok 2' });
    const failed = (await s.get(hashes[1]))!;
    expect(failed).toMatchObject({ state: 'dead', ending: 'unrecoverable' });
    expect(failed.lastError).toMatch(/row 1 is malformed/);
  });

  it('fails the batch with a ValidationError when the handler resolves to anything but undefined or one result per task', async () => {
    const s = await redis.scheduler();
    const hashes = await putMany(s, 2, { maxAttempts: 1 });
    const worker = s.workBatch(async () => ['only one'], { size: 2 });
    await eventually(async () => (await s.stats()).dead === 2);
    await worker.close();
    for (const hash of hashes) expect((await s.get(hash))!.lastError).toMatch(/ValidationError.*one result per task/s);
  });

  it('ends a batch at its run timeout (its tasks shortest): every task fails with a RunTimeoutError', async () => {
    const s = await redis.scheduler();
    const hashes = await putMany(s, 2, { maxAttempts: 1 });
    let reason: unknown;
    const worker = s.workBatch(
      (_tasks, signal) =>
        new Promise<undefined>((resolve) =>
          signal.addEventListener('abort', () => {
            reason = signal.reason;
            resolve(undefined);
          }),
        ),
      { size: 2, timeout: 200 },
    );
    await eventually(async () => (await s.stats()).dead === 2);
    await worker.close();
    expect(reason).toBeInstanceOf(RunTimeoutError);
    for (const hash of hashes) expect((await s.get(hash))!.lastError).toMatch(/RunTimeoutError/);
  });
});

describe('workBatch: the rules of a single task', () => {
  it('refuses a stale holder: a task whose lease was taken over is not acked by the batch, its signal aborts, the others are acked', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const hashes = await putMany(s, 2);
    const errors: DocketError[] = [];
    let tasks: BatchTask[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const worker = s.workBatch(
      async (got) => {
        tasks = got;
        await released;
        return got.map(() => 'from the stale batch');
      },
      { size: 2, lease: 300, onError: (err) => errors.push(err) },
    );
    await eventually(() => tasks.length === 2);
    // Another holder takes task 0 over: its lease lapsed by hand, claimed elsewhere.
    await raw.zAdd(`${s.prefix}:{default}:active`, { score: 0, value: hashes[0] });
    const thief = (await s.claim({ lease: 60_000 }))!;
    expect(thief.hash).toBe(hashes[0]);
    await eventually(() => tasks[0].signal.aborted, 2000);
    expect(tasks[0].signal.reason).toBeInstanceOf(LeaseLostError);
    expect(tasks[1].signal.aborted).toBe(false);
    release();
    await eventually(async () => (await s.result(hashes[1]))?.state === 'done');
    await worker.close();
    expect(errors.some((e) => e instanceof LeaseLostError)).toBe(true);
    // The stale batch changed nothing of task 0: the thief still holds it, and its ack counts.
    expect(await s.get(hashes[0])).toMatchObject({ state: 'active', attempts: 2 });
    expect(await s.ack(thief, 'from the thief')).toBe(true);
    expect(await s.result(hashes[0])).toMatchObject({ state: 'done', result: 'from the thief' });
  });

  it('counts the queue concurrency limit per task: a batch never holds more tasks than the limit', async () => {
    const s = await redis.scheduler();
    await s.limitConcurrency(2);
    await putMany(s, 5);
    const sizes: number[] = [];
    const worker = s.workBatch(
      async (tasks) => {
        sizes.push(tasks.length);
        await sleep(50);
      },
      { size: 5 },
    );
    await eventually(async () => (await s.stats()).totals.completed === 5);
    await worker.close();
    expect(Math.max(...sizes)).toBeLessThanOrEqual(2);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(5);
  });

  it('counts the queue rate limit per task: a batch of size 5 under max 2 per minute takes 2', async () => {
    const s = await redis.scheduler();
    await s.limitRate({ max: 2, per: 60_000 });
    await putMany(s, 5);
    const sizes: number[] = [];
    const worker = s.workBatch(async (tasks) => void sizes.push(tasks.length), { size: 5, wait: 300 });
    await eventually(async () => (await s.stats()).totals.completed === 2);
    await sleep(500); // room for a claim that would break the limit
    await worker.close();
    expect(sizes).toEqual([2]);
    expect(await s.stats()).toMatchObject({ ready: 3, active: 0 });
  });
});

describe('workBatch: ordered groups', () => {
  it('holds at most one task of an ordered group in flight, batches or not, and runs each group in put order', async () => {
    const s = await redis.scheduler();
    await s.orderGroups(true);
    const puts: Record<string, string[]> = { a: [], b: [] };
    for (let i = 0; i < 6; i++) for (const g of ['a', 'b']) puts[g].push((await s.put({ g, i }, { group: g })).hash);
    const batches: Array<Array<string | null>> = [];
    const ran: Record<string, string[]> = { a: [], b: [] };
    const worker = s.workBatch(
      async (tasks) => {
        batches.push(tasks.map((t) => t.group));
        for (const t of tasks) ran[t.group!].push(t.hash);
        await sleep(20);
      },
      { size: 5, concurrency: 2 },
    );
    await eventually(async () => (await s.stats()).totals.completed === 12);
    await worker.close();
    // A group's next task is leased only once the one before it finished: never two of a group
    // in one batch, whatever the batch size.
    for (const batch of batches) expect(new Set(batch).size).toBe(batch.length);
    expect(ran).toEqual(puts);
  });
});

describe('workBatch: running batches', () => {
  it('runs up to `concurrency` batches at once', async () => {
    const s = await redis.scheduler();
    await putMany(s, 4);
    let running = 0;
    let most = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const worker = s.workBatch(
      async () => {
        most = Math.max(most, ++running);
        await released;
        running--;
      },
      { size: 2, concurrency: 2 },
    );
    await eventually(() => most === 2);
    // Both slots taken: nothing more is leased while they run.
    expect(await s.stats()).toMatchObject({ active: 4, ready: 0 });
    release();
    await eventually(async () => (await s.stats()).totals.completed === 4);
    await worker.close();
    expect(most).toBe(2);
  });

  it('is on typed queues too, bound to their queue', async () => {
    const s = await redis.scheduler();
    const numbers = s.queue<number, number>('numbers');
    const { hash } = await numbers.put(20, KEEP);
    const worker = numbers.workBatch(async (tasks) => tasks.map((t) => t.data + 1), { size: 4 });
    await eventually(async () => (await numbers.result(hash))?.state === 'done');
    await worker.close();
    expect(await numbers.result(hash)).toMatchObject({ result: 21 });
    expect(() => numbers.workBatch(async () => {}, { queue: 'other' })).toThrow(/options\.queue/);
  });

  it('keeps the stored schedules of its queue going, as a work() loop does', async () => {
    const s = await redis.scheduler();
    const got: unknown[] = [];
    const worker = s.workBatch(async (tasks) => void got.push(...tasks.map((t) => t.data)), { queue: 'ticks' });
    await s.schedule('tick', 200, 'tick', { queue: 'ticks' });
    await eventually(() => got.length >= 2, 5000);
    await worker.close();
    expect(got.slice(0, 2)).toEqual(['tick', 'tick']);
  });

  it('tells a task cancelled while its batch still gathers through its signal once the batch starts', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('first', KEEP);
    let tasks: BatchTask[] = [];
    const worker = s.workBatch(async (got) => void (tasks = got), { size: 5, wait: 1500, heartbeatInterval: 100, heartbeatDeadline: 1000 });
    await eventually(async () => (await s.get(hash))?.state === 'active');
    expect(await s.cancel(hash, { running: true })).toBe(true);
    await eventually(() => tasks.length === 1, 5000);
    await worker.close();
    expect(tasks[0].signal.reason).toMatchObject({ name: 'CancelledError' });
    expect(await s.result(hash)).toMatchObject({ state: 'cancelled' });
  });

  it('takes tasks of any name: the handler reads task.name', async () => {
    const s = await redis.scheduler();
    await s.put(1, { name: 'resize' });
    await s.put(2, { name: 'email' });
    await s.put(3);
    const names: Array<string | null> = [];
    const worker = s.workBatch(async (tasks) => void names.push(...tasks.map((t) => t.name)), { size: 3 });
    await eventually(() => names.length === 3);
    await worker.close();
    expect(names).toEqual(['resize', 'email', null]);
  });

  it('lets one task snooze and another be cancelled while the rest of its batch is acked', async () => {
    const s = await redis.scheduler();
    const hashes = await putMany(s, 3);
    let tasks: BatchTask[] = [];
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const worker = s.workBatch(
      async (got) => {
        tasks = got;
        await got[0].snooze(60_000);
        await released;
      },
      { size: 3, heartbeatInterval: 100, heartbeatDeadline: 1000 },
    );
    await eventually(() => tasks.length === 3);
    expect(await s.cancel(hashes[1], { running: true })).toBe(true);
    await eventually(() => tasks[1].signal.aborted);
    expect(tasks[1].signal.reason).toMatchObject({ name: 'CancelledError' });
    release();
    await eventually(async () => (await s.result(hashes[2]))?.state === 'done');
    await worker.close();
    expect(await s.get(hashes[0])).toMatchObject({ state: 'delayed', attempts: 0, ending: 'snoozed' });
    expect(await s.result(hashes[1])).toMatchObject({ state: 'cancelled' });
  });

  it('hands a running batch back on close() after its shutdown timeout, the delivery not counted', async () => {
    const s = await redis.scheduler();
    const hashes = await putMany(s, 3);
    let signal: AbortSignal | undefined;
    const worker = s.workBatch(
      (_tasks, batchSignal) => {
        signal = batchSignal;
        return new Promise(() => {});
      },
      { size: 3 },
    );
    await eventually(() => signal !== undefined);
    await worker.close({ timeout: 100 });
    expect(signal!.aborted).toBe(true);
    expect(signal!.reason).toMatchObject({ name: 'ClosedError' });
    expect(await s.stats()).toMatchObject({ ready: 3, active: 0 });
    for (const hash of hashes) expect(await s.get(hash)).toMatchObject({ state: 'ready', attempts: 0 });
  });
});

describe('workBatch: a worker process SIGKILLed mid-batch', () => {
  it('has every task of its batch delivered again, none lost', async () => {
    const s = await redis.scheduler();
    const hashes = await putMany(s, 5);
    const compiled = childModule(path.join(__dirname, 'support', 'batch-child.ts'));
    const child = fork(compiled.module, [testUrl(), s.prefix, '5'], { execArgv: compiled.execArgv, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await eventually(() => out.includes('batch '), 15_000);
      const batch = /batch (\S+)/.exec(out)![1].split(',');
      expect(batch.sort()).toEqual([...hashes].sort());
      child.kill('SIGKILL');
    } finally {
      child.kill('SIGKILL');
    }
    // The child's heartbeat runs out (2 s by default): this worker's beat hands its tasks back.
    const again: BatchTask[] = [];
    const worker = s.workBatch(async (tasks) => void again.push(...tasks), { size: 5 });
    await eventually(() => again.length === 5, 15_000);
    await worker.close();
    expect(again.map((t) => t.hash).sort()).toEqual([...hashes].sort());
    expect(again.every((t) => t.attempt === 2)).toBe(true);
    for (const hash of hashes) expect(await s.result(hash)).toMatchObject({ state: 'done', attempts: 2 });
  }, 40_000);
});
