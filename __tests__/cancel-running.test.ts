/**
 * Cancelling a running task (cancel with `running: true`), from any process: its holder's lease
 * token goes at once, its handler's signal aborts with a CancelledError at the holder's next beat,
 * and the task ends `cancelled` (kept, an event, counted). A late ack or fail changes nothing; a
 * cancel racing an ack has one winner; a holder that died has its task cancelled at the lapse of
 * its lease, never run again.
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { CancelledError, DocketError, type Task } from '../lib';
import { createDashboard } from '../lib/surfaces/dashboard';
import { childModule } from './support/children';
import { cli } from './support/cli';
import { eventually, serverNow, sleep, testUrl, useRedis } from './support/harness';

const redis = useRedis();

/** The events of the default queue's stream for task `hash`, as their `type` fields. */
async function eventTypes(prefix: string, hash: string): Promise<string[]> {
  const raw = await redis.raw();
  const entries = await raw.xRange(`${prefix}:{default}:events`, '-', '+');
  return entries.filter((e) => e.message.id === hash).map((e) => e.message.type);
}

describe('cancel a running task', () => {
  it('aborts the handler held by another scheduler with a CancelledError at its next beat; the task ends cancelled, kept, with its event, counted', async () => {
    const holder = await redis.scheduler();
    const other = await redis.scheduler({ prefix: holder.prefix });
    let reason: unknown = null;
    let started = false;
    const errors: unknown[] = [];
    // A long lease: only the beat can tell the holder (its lease is never extended before).
    const worker = holder.work(
      async (_task, signal) => {
        started = true;
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        reason = signal.reason;
        throw signal.reason;
      },
      { heartbeatInterval: 200, lease: 60_000, onError: (err) => errors.push(err) },
    );
    const { hash } = await holder.put('long', { keepResult: 60_000 });
    await eventually(() => started);
    expect(await other.cancel(hash, { running: true, explain: true })).toEqual({ done: true, worker: worker.id });
    // Asked again before the beat: the same answer, nothing more.
    expect(await other.cancel(hash, { running: true })).toBe(true);
    await eventually(() => reason !== null);
    expect(reason).toBeInstanceOf(CancelledError);
    expect(reason).toBeInstanceOf(DocketError);
    expect(reason).toMatchObject({ name: 'CancelledError', code: 'ERR_CANCELLED', hash });
    await worker.close();
    // The handler's throw after the abort is no failure: no fail was sent, nothing was refused.
    expect(errors).toEqual([]);
    expect(await other.result(hash)).toMatchObject({ state: 'cancelled', attempts: 1 });
    expect(await eventTypes(holder.prefix, hash)).toEqual(['cancelled']);
    const stats = await other.stats();
    expect(stats).toMatchObject({ active: 0, ready: 0, delayed: 0, dead: 0 });
    expect(stats.totals).toMatchObject({ cancelled: 1, completed: 0, failed: 0, leaseLost: 0 });
    // Nothing of it is left to run, and no mark behind.
    const raw = await redis.raw();
    expect(await raw.exists(`${holder.prefix}:{default}:cancels`)).toBe(0);
    expect(await holder.claim()).toBeNull();
  });

  it('never starts a task whose cancel a beat ended while it was prefetched (a 100 ms heartbeat)', async () => {
    const s = await redis.scheduler();
    const ROUNDS = 100;
    // Each round: x, then y (prefetched behind it), then quick fillers that keep prefetch on (a
    // handler's smoothed run time under 5 ms). x cancels y with `running` and waits up to 15 ms
    // (under the 25 ms a prefetched task is held) for a beat to end y: then y is ended while
    // prefetched, and must not start, or start aborted.
    const put = await s.putMany(
      Array.from({ length: ROUNDS }, (_, round) => [
        { data: { round, role: 'x' } },
        { data: { round, role: 'y' } },
        ...Array.from({ length: 6 }, (_, i) => ({ data: { round, role: 'filler', i } })),
      ]).flat(),
    );
    const y = new Map(put.filter((_, i) => i % 8 === 1).map((p, round) => [round, p.hash]));
    let endedWhilePrefetched = 0;
    const startedEnded: string[] = [];
    const worker = s.work<{ round: number; role: string }>(
      async (task, signal) => {
        if (task.data.role === 'x') {
          const target = y.get(task.data.round)!;
          if ((await s.cancel(target, { running: true, explain: true })).done !== true) return;
          const until = performance.now() + 15;
          while (performance.now() < until) {
            if ((await s.get(target))?.state !== 'active') return void endedWhilePrefetched++;
            await sleep(1);
          }
        } else if (task.data.role === 'y') {
          // On the worker's own connection, so a beat that ended it was read (and acted on) first.
          const info = await s.get(task.hash);
          if (info?.state !== 'active' && !signal.aborted) startedEnded.push(task.hash);
        }
      },
      { concurrency: 1, heartbeatInterval: 100, heartbeatDeadline: 1000, lease: 10_000 },
    );
    await eventually(async () => (await s.stats()).ready === 0 && (await s.stats()).active === 0, 30_000);
    await worker.close();
    // The race was run: some y were ended by a beat while prefetched.
    expect(endedWhilePrefetched).toBeGreaterThan(0);
    expect(startedEnded).toEqual([]);
  }, 40_000);

  it('reaches a holder in another process: its handler aborts with a CancelledError', async () => {
    const s = await redis.scheduler();
    const compiled = childModule(path.join(__dirname, 'support', 'cancel-child.ts'));
    const child = fork(compiled.module, [testUrl(), s.prefix], { execArgv: compiled.execArgv, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await eventually(() => out.includes('ready'), 15_000);
      const { hash } = await s.put('runs in the child', { keepResult: 60_000 });
      await eventually(() => out.includes(`started ${hash}`));
      const answer = await s.cancel(hash, { running: true, explain: true });
      expect(answer).toEqual({ done: true, worker: expect.stringContaining(`:${child.pid}:`) });
      await eventually(() => out.includes('aborted '));
      expect(out).toContain('aborted CancelledError ERR_CANCELLED');
      expect(await s.result(hash)).toMatchObject({ state: 'cancelled' });
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);

  it('refuses an active task without running, as before', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('busy');
    const task = (await s.claim())!;
    expect(await s.cancel(hash, { explain: true })).toEqual({ done: false, reason: 'active', worker: expect.any(String) });
    expect(await s.cancel(hash)).toBe(false);
    expect(await s.ack(task)).toBe(true);
  });

  it("refuses the holder's late ack, fail, extend and progress, and changes nothing with them", async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('late', { keepResult: 60_000 });
    const task = (await s.claim({ lease: 60_000 }))!;
    expect(await s.cancel(hash, { running: true })).toBe(true);
    expect(await s.progress(task, 50)).toBe(false);
    expect(await s.extend(task, 60_000)).toBe(false);
    expect(await s.fail(task, { error: new Error('late') })).toBe('lost');
    expect(await s.ack(task, 'late result')).toBe(false);
    // Still active (no beat of a claim() holder ends it): its concurrency place stays taken.
    expect(await s.stats()).toMatchObject({ active: 1, totals: expect.objectContaining({ completed: 0, failed: 0 }) });
    expect(await s.result(hash)).toMatchObject({ state: 'active', attempts: 1 });
  });

  it('has one winner when a cancel races the holder’s ack: never both, never a run again', async () => {
    const holder = await redis.scheduler();
    const other = await redis.scheduler({ prefix: holder.prefix });
    const N = 30;
    for (let i = 0; i < N; i++) await holder.put(i, { keepResult: 60_000 });
    const tasks = await holder.claimMany(N, { lease: 500 });
    expect(tasks).toHaveLength(N);
    const outcomes = await Promise.all(
      tasks.map(async (task: Task) => {
        const [acked, cancelled] = await Promise.all([holder.ack(task, 'done'), other.cancel(task.hash, { running: true, explain: true })]);
        return { task, acked, cancelled };
      }),
    );
    for (const { acked, cancelled } of outcomes) {
      // Exactly one: the ack finished it (the cancel finds it gone), or the cancel took its token.
      expect(acked !== cancelled.done).toBe(true);
      if (!cancelled.done) expect(cancelled).toEqual({ done: false, reason: 'missing' });
    }
    // The cancelled ones' holder never beats (a claim() caller): they end when their leases lapse.
    await sleep(600);
    expect(await holder.claimMany(N)).toEqual([]);
    for (const { task, acked } of outcomes) expect(await holder.result(task.hash)).toMatchObject({ state: acked ? 'done' : 'cancelled', attempts: 1 });
    const acks = outcomes.filter((o) => o.acked).length;
    const stats = await holder.stats();
    expect(stats.totals).toMatchObject({ completed: acks, cancelled: N - acks, failed: 0, leaseLost: 0 });
    expect(stats).toMatchObject({ active: 0, ready: 0, delayed: 0, dead: 0 });
  });

  it('cancels the task of a holder that died when its lease lapses, and never runs it again', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put('held by a worker that crashed', { keepResult: 60_000 });
    await s.claim({ lease: 60_000 });
    const gone = (await s.get(hash))!.worker!;
    expect(await s.cancel(hash, { running: true, explain: true })).toEqual({ done: true, worker: gone });
    // The holder beat once, then crashed: its heartbeat has run out, and it never beats again.
    await raw.zAdd(`${s.prefix}:{default}:workers`, { score: (await serverNow(raw)) - 1, value: gone });
    const runs: unknown[] = [];
    const worker = s.work(async (task) => void runs.push(task.data), { heartbeatInterval: 100 });
    // A live worker's beat lapses the dead one's lease; its claim then ends the task, cancelled.
    await eventually(async () => (await s.result(hash)) !== null);
    await worker.close();
    expect(runs).toEqual([]);
    expect(await s.result(hash)).toMatchObject({ state: 'cancelled', attempts: 1 });
    expect((await s.stats()).totals).toMatchObject({ cancelled: 1, leaseLost: 0, failed: 0 });
    expect(await raw.exists(`${s.prefix}:{default}:cancels`)).toBe(0);
    expect(await eventTypes(s.prefix, hash)).toEqual(['cancelled']);
  });

  it('gives the concurrency place back only once the task ends', async () => {
    const s = await redis.scheduler();
    await s.limitConcurrency(1);
    const { hash } = await s.put('first');
    await s.put('second');
    const first = (await s.claim({ lease: 300 }))!;
    expect(await s.cancel(hash, { running: true })).toBe(true);
    // Marked, not ended: the holder may still run it, so the queue's one place stays taken.
    expect(await s.claim()).toBeNull();
    await sleep(400);
    // Its lease lapsed: cancelled then, and the place is free.
    const second = (await s.claim())!;
    expect(second.data).toBe('second');
    expect(await s.ack(first)).toBe(false);
    expect(await s.ack(second)).toBe(true);
  });

  it("cancels a running task from the dashboard's Cancel of an active task, and refuses it without running", async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('from the dashboard');
    await s.claim({ lease: 60_000 });
    const server = createServer(createDashboard(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const page = await (await fetch(`${base}/task?queue=default&hash=${hash}`)).text();
      expect(page).toContain('<input type="hidden" name="running" value="1">');
      const csrf = /name="csrf" value="([^"]+)"/.exec(page)![1];
      const post = (body: unknown) => fetch(`${base}/api/cancel`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify(body) });
      expect((await post({ queue: 'default', hash })).status).toBe(409);
      expect((await post({ queue: 'default', hash, running: '1' })).status).toBe(200);
      expect(await s.cancel(hash, { running: true, explain: true })).toEqual({ done: true, worker: expect.any(String) });
    } finally {
      server.close();
    }
  });

  it('cancels a running task from the CLI with --running, and refuses it without', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('from the cli');
    await s.claim({ lease: 60_000 });
    const refused = await cli(s.prefix, ['cancel', 'default', hash]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--running');
    const done = await cli(s.prefix, ['cancel', 'default', hash, '--running', '--json']);
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout)).toEqual({ queue: 'default', hash, cancelled: true, running: true, worker: expect.any(String) });
  });
});
