/**
 * Sandboxed handlers (work(module, { sandbox: true })): the handler module runs in worker threads,
 * while claims, lease extensions, heartbeats and acks stay on the main thread.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ValidationError } from '../lib';
import { HEARTBEAT_TTL_MS } from '../lib/life/heartbeat';
import { eventually, serverNow, sleep, useRedis } from './support/harness';

const redis = useRedis();
const HANDLERS = path.join(__dirname, 'support', 'sandbox', 'handlers.js');
const ESM = path.join(__dirname, 'support', 'sandbox', 'esm.mjs');
const KEEP = { keepResult: 60_000 };

async function outcome(s: Awaited<ReturnType<typeof redis.scheduler>>, hash: string) {
  return s.result(hash, { wait: 15_000 });
}

describe('sandboxed handlers', () => {
  it('runs tasks in threads and acks them with their results', async () => {
    const s = await redis.scheduler();
    const worker = s.work(HANDLERS, { sandbox: true, concurrency: 2 });
    const puts = await Promise.all([1, 2, 3].map((n) => s.put({ n }, { name: 'echo', ...KEEP })));
    for (const [i, { hash }] of puts.entries()) {
      const out = await outcome(s, hash);
      expect(out).toMatchObject({ state: 'done', result: { data: { n: i + 1 }, name: 'echo', attempt: 1, queue: 'default', token: false } });
      expect((out as unknown as { result: { threadId: number } }).result.threadId).toBeGreaterThan(0);
    }
    await worker.close();
  });

  it('runs the module in every shard of a sharded queue', async () => {
    const s = await redis.scheduler();
    const jobs = s.sharded('sandboxed', 3);
    const puts = await jobs.putMany([1, 2, 3, 4, 5, 6].map((n) => ({ data: { n }, options: { name: 'echo', ...KEEP } })));
    expect(new Set(puts.map((p) => p.queue)).size).toBeGreaterThan(1);
    const worker = jobs.work(HANDLERS, { sandbox: true, concurrency: 1 });
    for (const [i, { hash, queue }] of puts.entries()) {
      expect(await s.result(hash, { queue, wait: 15_000 })).toMatchObject({ state: 'done', result: { data: { n: i + 1 }, name: 'echo', queue } });
    }
    await worker.close();
  });

  it('takes an ES module as a file URL, its default export the handler', async () => {
    const s = await redis.scheduler();
    const worker = s.work(pathToFileURL(ESM), { sandbox: true });
    const { hash } = await s.put({ n: 21 }, KEEP);
    expect(await outcome(s, hash)).toMatchObject({ state: 'done', result: { doubled: 42 } });
    await worker.close();
  });

  it("carries the handler's progress to the main thread, which stores it", async () => {
    const s = await redis.scheduler();
    const worker = s.work(HANDLERS, { sandbox: true });
    const { hash } = await s.put({ wait: 800 }, { name: 'progress', ...KEEP });
    await eventually(async () => JSON.stringify((await s.get(hash))?.progress) === JSON.stringify({ done: 1, of: 2 }));
    expect(await outcome(s, hash)).toMatchObject({ state: 'done', result: { stored: true } });
    await worker.close();
  });

  it("carries the handler's log lines to the main thread, which stores them", async () => {
    const s = await redis.scheduler();
    const worker = s.work(HANDLERS, { sandbox: true });
    const { hash } = await s.put({ wait: 800 }, { name: 'log', ...KEEP });
    await eventually(async () => (await s.logs(hash)).length === 2);
    expect((await s.logs(hash)).map((l) => l.line)).toEqual(['from the thread', 'second line']);
    expect(await outcome(s, hash)).toMatchObject({ state: 'done', result: { stored: true } });
    await worker.close();
  });

  it.each([
    ['throw-string', /^a plain string$/],
    ['throw-object', /^\[object Object\]$/],
    ['throw-error', /^TypeError: a type error in the thread\n\s+at /],
    ['uncaught', /RangeError: thrown outside the handler/],
    ['exit', /SandboxExitError: the thread running task \w+ exited with code 3/],
    ['function', /^ValidationError: result: function cannot be carried by JSON\n/],
  ])('fails only the attempt of a handler that does %s, with its text as the last error', async (name, text) => {
    const s = await redis.scheduler();
    const worker = s.work(HANDLERS, { sandbox: true });
    const { hash } = await s.put({}, { name, maxAttempts: 1 });
    await eventually(async () => (await s.get(hash))?.state === 'dead', 10_000);
    expect((await s.get(hash))!.lastError).toMatch(text);
    // The worker goes on: the next task runs (in a new thread when the last one died).
    const next = await s.put({ n: 1 }, { name: 'echo', ...KEEP });
    expect(await outcome(s, next.hash)).toMatchObject({ state: 'done' });
    await worker.close();
  });

  it('replaces a thread that exited, and runs the next task in a new one', async () => {
    const s = await redis.scheduler();
    const worker = s.work(HANDLERS, { sandbox: true });
    const first = await s.put({ n: 1 }, { name: 'echo', ...KEEP });
    const before = (await outcome(s, first.hash)) as unknown as { result: { threadId: number } };
    await s.put({}, { name: 'exit', maxAttempts: 1 });
    const second = await s.put({ n: 2 }, { name: 'echo', ...KEEP });
    const after = (await outcome(s, second.hash)) as unknown as { result: { threadId: number } };
    expect(after.result.threadId).not.toBe(before.result.threadId);
    await worker.close();
  });

  it('keeps the lease and heartbeat of a handler that blocks its thread for 5 s', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const redelivered: number[] = [];
    // A 1.5 s lease: without extensions while the thread is busy, it would lapse three times over.
    const a = s.work(HANDLERS, { sandbox: true, lease: 1500 });
    const { hash } = await s.put({ ms: 5000 }, { name: 'busy', ...KEEP });
    await eventually(async () => (await s.get(hash))?.state === 'active');
    // A second worker of the queue, which would take the task if a's heartbeat or lease lapsed.
    const b = s.work(async (task) => void redelivered.push(task.attempt));
    const leased = (await s.get(hash))!.leaseUntil!;
    await sleep(HEARTBEAT_TTL_MS + 1500);
    // Mid-loop: the lease was extended, and the other worker's view of the heartbeats has a alive.
    const now = await serverNow(raw);
    expect((await s.get(hash))!.leaseUntil!).toBeGreaterThan(leased);
    expect(await raw.zScore(`${s.prefix}:{default}:workers`, a.id)).toBeGreaterThan(now);
    expect(await outcome(s, hash)).toMatchObject({ state: 'done', result: { threadId: expect.any(Number) } });
    expect(redelivered).toEqual([]);
    // Acked on its first attempt (the queue's done history keeps it).
    expect(await s.get(hash)).toMatchObject({ state: 'done', attempts: 1 });
    await Promise.all([a.close(), b.close()]);
  }, 20_000);

  it('terminates and replaces a thread that hangs past the run timeout', async () => {
    const s = await redis.scheduler();
    const worker = s.work(HANDLERS, { sandbox: true, timeout: 300 });
    const { hash } = await s.put({}, { name: 'hang', maxAttempts: 1 });
    await eventually(async () => (await s.get(hash))?.state === 'dead', 5000);
    expect((await s.get(hash))!.lastError).toMatch(/RunTimeoutError: task .* ran longer than its timeout of 300 ms/);
    // The slot frees once the thread is terminated (within the abort grace), and the next task runs.
    const next = await s.put({ n: 1 }, { name: 'echo', ...KEEP });
    expect(await outcome(s, next.hash)).toMatchObject({ state: 'done' });
    await worker.close();
  });

  it("aborts the thread's signal with a reason of the same name and message", async () => {
    const s = await redis.scheduler();
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'docket-sandbox-')), 'reason');
    const worker = s.work(HANDLERS, { sandbox: true, timeout: 200 });
    const { hash } = await s.put({ file }, { name: 'aborted', maxAttempts: 1 });
    await eventually(() => {
      try {
        return readFileSync(file, 'utf8').length > 0;
      } catch {
        return false;
      }
    });
    expect(readFileSync(file, 'utf8')).toBe(`RunTimeoutError: task ${hash} ran longer than its timeout of 200 ms`);
    await worker.close();
  });

  it('close() waits for running handlers, then hands back one that outlives the timeout', async () => {
    const s = await redis.scheduler();
    const worker = s.work(HANDLERS, { sandbox: true, concurrency: 2 });
    const stuck = await s.put({}, { name: 'hang' });
    const slow = await s.put({ wait: 300 }, { name: 'progress', ...KEEP });
    // Both handlers have begun: the slow one has reported progress from its thread.
    await eventually(async () => (await s.get(slow.hash))?.progress !== null && (await s.get(stuck.hash))?.state === 'active');
    const started = Date.now();
    await worker.close({ timeout: 1500 });
    expect(Date.now() - started).toBeLessThan(3500);
    expect(await s.result(slow.hash)).toMatchObject({ state: 'done', result: { stored: true } });
    expect(await s.get(stuck.hash)).toMatchObject({ state: 'ready', attempts: 0 });
  });

  it('refuses a bad handler or module synchronously, naming the field', () => {
    return (async () => {
      const s = await redis.scheduler();
      const cases: Array<[unknown, object, string]> = [
        [async () => {}, { sandbox: true }, 'handler'],
        [path.join(__dirname, 'no-such-handler.js'), { sandbox: true }, 'handler'],
        [42, { sandbox: true }, 'handler'],
        [new URL('https://example.com/handler.js'), { sandbox: true }, 'handler'],
        [HANDLERS, {}, 'handler'],
        [HANDLERS, { sandbox: 'yes' }, 'options.sandbox'],
      ];
      for (const [handler, options, field] of cases) {
        let thrown: unknown;
        try {
          (s.work as (h: unknown, o: object) => unknown)(handler, options);
        } catch (err) {
          thrown = err;
        }
        expect(thrown).toBeInstanceOf(ValidationError);
        expect((thrown as ValidationError).field).toBe(field);
      }
    })();
  });
});
