/**
 * Sandboxed handlers that return, report, log or throw hostile values (issue 34): "a sandboxed
 * attempt always settles, whatever its handler returns" (guarantees.md), done or failed with the
 * typed error the same handler gets in one thread. The handlers are in support/sandbox/hostile.js.
 */
import path from 'node:path';
import type { Handlers, Json } from '../lib';
import { eventually, useRedis } from './support/harness';

const redis = useRedis();
const HOSTILE = path.join(__dirname, 'support', 'sandbox', 'hostile.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const inProcess = require(HOSTILE) as Handlers;
/** Generous next to the milliseconds a settled attempt takes, short next to "never" (the bug). */
const SETTLES_WITHIN_MS = 8000;

type S = Awaited<ReturnType<typeof redis.scheduler>>;

/** Waits (bounded) until the task has left 'active' for good: dead, or done (in the queue's history, or gone). */
async function settled(s: S, hash: string, queue?: string) {
  await eventually(async () => {
    const info = await s.get(hash, { queue });
    return info === null || info.state === 'dead' || info.state === 'done';
  }, SETTLES_WITHIN_MS);
  return s.get(hash, { queue });
}

/** The first line of a dead task's last error: the error's name and message, without its stack. */
async function lastError(s: S, hash: string, queue?: string): Promise<string | null> {
  const info = await settled(s, hash, queue);
  return info?.lastError?.split('\n')[0] ?? null;
}

describe('hostile values from sandboxed handlers', () => {
  it('settles an attempt whose sandboxed result the main thread could not read: a 4,000-deep array, a 5,000-node list', async () => {
    // A sandboxed attempt always settles (guarantees.md): with concurrency 1, a stranded run would
    // also keep the next task from running.
    const s = await redis.scheduler();
    const worker = s.work(HOSTILE, { sandbox: true, concurrency: 1 });
    const deep = await s.put({}, { name: 'deep', maxAttempts: 1 });
    const list = await s.put({}, { name: 'list', maxAttempts: 1 });
    expect(await lastError(s, deep.hash)).toMatch(/^ValidationError: result(\[0\]){100}: is nested deeper than the limit of 100 levels/);
    expect(await lastError(s, list.hash)).toMatch(/^ValidationError: result(\.next){100}: is nested deeper than the limit of 100 levels/);
    const next = await s.put({ label: 'after' }, { name: 'normal', keepResult: 60_000 });
    expect(await s.result(next.hash, { wait: SETTLES_WITHIN_MS })).toMatchObject({ state: 'done', result: { label: 'after' } });
    await worker.close();
  });

  it('fails an attempt at once whose sandboxed progress value is not JSON, as task.progress throws in one thread', async () => {
    const s = await redis.scheduler();
    const worker = s.work(HOSTILE, { sandbox: true, concurrency: 1 });
    const deep = await s.put({}, { name: 'progress-deep', maxAttempts: 1 });
    const list = await s.put({}, { name: 'progress-list', maxAttempts: 1 });
    expect(await lastError(s, deep.hash)).toMatch(/^ValidationError: progress(\[0\]){100}: is nested deeper than the limit/);
    expect(await lastError(s, list.hash)).toMatch(/^ValidationError: progress(\.next){100}: is nested deeper than the limit/);
    await worker.close();
  });

  it('keeps an own "__proto__" key of a sandboxed result and progress value as data', async () => {
    const s = await redis.scheduler();
    const worker = s.work(HOSTILE, { sandbox: true });
    const result = await s.put({}, { name: 'proto', keepResult: 60_000, maxAttempts: 1 });
    const progress = await s.put({ label: 'p' }, { name: 'progress-proto', keepResult: 60_000, maxAttempts: 1 });
    const done = await s.result(result.hash, { wait: SETTLES_WITHIN_MS });
    expect(done?.state).toBe('done');
    const kept = (done as { result: Json }).result as Record<string, Json>;
    expect(Object.keys(kept)).toEqual(['__proto__', 'b']);
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
    expect(JSON.stringify(kept)).toBe('{"__proto__":{"a":1},"b":2}');
    expect(await s.result(progress.hash, { wait: SETTLES_WITHIN_MS })).toMatchObject({ state: 'done', result: { label: 'p' } });
    await worker.close();
  });

  it('gives each hostile value the outcome it gets in one thread: the same error, or the same result', async () => {
    const s = await redis.scheduler();
    const kinds = Object.keys(inProcess).filter((name) => name !== 'normal' && name !== 'log-deep');
    const local = s.work(inProcess, { queue: 'local', concurrency: 4 });
    const sandboxed = s.work(HOSTILE, { queue: 'sandboxed', sandbox: true, concurrency: 4 });
    const options = (name: string, queue: string) => ({ data: { label: name }, options: { name, queue, keepResult: 60_000, maxAttempts: 1 } });
    const a = await s.putMany(kinds.map((name) => options(name, 'local')));
    const b = await s.putMany(kinds.map((name) => options(name, 'sandboxed')));
    const outcomes = async (puts: typeof a, queue: string) => {
      const out: Record<string, string | null> = {};
      for (const [i, name] of kinds.entries()) {
        const error = await lastError(s, puts[i].hash, queue);
        const outcome = (await s.result(puts[i].hash, { queue })) as { state: string; result?: Json } | null;
        out[name] = error ?? `${outcome?.state} ${JSON.stringify(outcome?.result)}`;
      }
      return out;
    };
    const inOneThread = await outcomes(a, 'local');
    // Every hostile result and progress value failed in one thread, but for the __proto__ ones.
    expect(Object.entries(inOneThread).filter(([, error]) => !/^(ValidationError|PayloadTooLargeError): /.test(error!))).toEqual([
      ['proto', 'done {"__proto__":{"a":1},"b":2}'],
      ['progress-proto', 'done {"label":"progress-proto"}'],
      ['throw-deep', '[object Array]'],
      ['throw-unreadable', '[a thrown value that cannot be shown]'],
    ]);
    expect(await outcomes(b, 'sandboxed')).toEqual(inOneThread);
    await Promise.all([local.close(), sandboxed.close()]);
  }, 30_000);

  it('fails the attempt, and replaces the thread, of a handler that sends a log line the main thread cannot read', async () => {
    const s = await redis.scheduler();
    const worker = s.work(HOSTILE, { sandbox: true, concurrency: 1 });
    const { hash } = await s.put({}, { name: 'log-deep', maxAttempts: 1 });
    expect(await lastError(s, hash)).toMatch(/^ValidationError: value: sent by the handler's thread could not be read on the main thread/);
    const next = await s.put({ label: 'after' }, { name: 'normal', keepResult: 60_000 });
    expect(await s.result(next.hash, { wait: SETTLES_WITHIN_MS })).toMatchObject({ state: 'done', result: { label: 'after' } });
    await worker.close();
  });
});
