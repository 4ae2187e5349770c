/**
 * Worker liveness: heartbeats, fast re-delivery of a gone worker's tasks, graceful shutdown.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { ClosedError, EventLoopBlockedError, ValidationError } from '../lib';
import { HEARTBEAT_TTL_MS } from '../lib/life/heartbeat';
import { childModule, forkChild } from './support/children';
import { eventually, serverNow, sleep, testUrl, useRedis } from './support/harness';

const redis = useRedis();

describe('heartbeats', () => {
  it('keeps a running worker in the workers set, and takes it out on close', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const worker = s.work(async () => {});
    const key = `${s.prefix}:{default}:workers`;
    await eventually(async () => (await raw.zScore(key, worker.id)) !== null);
    expect(await raw.zScore(key, worker.id)).toBeGreaterThan(await serverNow(raw));
    await worker.close();
    expect(await raw.zScore(key, worker.id)).toBeNull();
  });

  it("re-delivers a gone worker's task within about the heartbeat ttl, not after its lease", async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put('held by a worker that crashed');
    await s.claim({ lease: 60_000 });
    const holder = (await s.get(hash))!.worker!;
    // The holder beat once, then stopped (crashed): its heartbeat has run out.
    await raw.zAdd(`${s.prefix}:{default}:workers`, { score: (await serverNow(raw)) - 1, value: holder });
    const started = Date.now();
    const attempts: number[] = [];
    const worker = s.work(async (task) => void attempts.push(task.attempt));
    await eventually(() => attempts.length === 1, HEARTBEAT_TTL_MS + 2000);
    await worker.close();
    expect(attempts).toEqual([2]);
    expect(Date.now() - started).toBeLessThan(HEARTBEAT_TTL_MS);
    // Acked on its second attempt (the queue's done history keeps it).
    expect(await s.get(hash)).toMatchObject({ state: 'done', attempts: 2 });
  });

  it('leaves alone the tasks of a worker whose heartbeat is alive', async () => {
    const s = await redis.scheduler();
    const runs: number[] = [];
    const a = s.work(async (task) => {
      runs.push(task.attempt);
      await sleep(HEARTBEAT_TTL_MS + 500);
    });
    await s.put('long');
    await eventually(() => runs.length === 1);
    const b = s.work(async (task) => void runs.push(task.attempt));
    await sleep(HEARTBEAT_TTL_MS + 800);
    await Promise.all([a.close(), b.close()]);
    expect(runs).toEqual([1]);
  });
});

describe('a worker killed while idle ones wait', () => {
  it('has its task back within 2.5 s: the idle worker, told when it turned busy, looks at its deadline', async () => {
    const s = await redis.scheduler();
    const ran: Array<{ data: unknown; attempt: number; at: number }> = [];
    // Idle before the child takes its task: it learns of the busy child from the wake its claim sent.
    const worker = s.work(async (task) => void ran.push({ data: task.data, attempt: task.attempt, at: Date.now() }));
    const { child, out } = forkChild('work-child', [testUrl(), s.prefix]);
    try {
      await eventually(() => out().includes('ready'), 15_000);
      await sleep(300); // both idle
      // Put until the child holds one (the idle worker here may take one first: it ends at once).
      let n = 0;
      while (!out().includes('"hang":true')) {
        await s.put({ hang: true, n: n++ });
        await sleep(300);
      }
      const held = JSON.parse(/ran (\{"hang":true[^\n]*\})/.exec(out())![1]) as { n: number };
      await sleep(1000); // it beats, busy; the idle worker sleeps until its deadline
      const killed = Date.now();
      child.kill('SIGKILL');
      await eventually(() => ran.some((r) => (r.data as { n?: number }).n === held.n), 5000);
      const back = ran.find((r) => (r.data as { n?: number }).n === held.n)!;
      expect(back.attempt).toBe(2);
      expect(back.at - killed).toBeLessThan(2500);
    } finally {
      child.kill('SIGKILL');
      await worker.close();
    }
  }, 40_000);
});

describe('heartbeat timing', () => {
  it('beats at the interval given, with the deadline given, on the Redis clock', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const worker = s.work(async () => {}, { heartbeatInterval: 200, heartbeatDeadline: { seconds: 10 } });
    const key = `${s.prefix}:{default}:workers`;
    await eventually(async () => (await raw.zScore(key, worker.id)) !== null);
    // The entry's score is its deadline: about 10 s ahead, not the default 2 s.
    expect((await raw.zScore(key, worker.id))! - (await serverNow(raw))).toBeGreaterThan(8000);
    await worker.close();
  });

  it('reports a handler that blocks the event loop for half the deadline or more, saying what to change', async () => {
    const s = await redis.scheduler();
    const errors: unknown[] = [];
    await s.put('blocks');
    let ran = 0;
    const worker = s.work(
      async () => {
        ran++;
        const until = Date.now() + 800;
        while (Date.now() < until); // synchronous work: no beat can fire meanwhile
      },
      { heartbeatInterval: 100, heartbeatDeadline: 1000, onError: (err) => errors.push(err) },
    );
    await eventually(() => errors.length > 0, 5000);
    await worker.close();
    expect(ran).toBe(1);
    const err = errors[0] as EventLoopBlockedError;
    expect(err).toBeInstanceOf(EventLoopBlockedError);
    expect(err).toMatchObject({ name: 'EventLoopBlockedError', code: 'ERR_EVENT_LOOP_BLOCKED', worker: worker.id, deadlineMs: 1000 });
    expect(err.lagMs).toBeGreaterThanOrEqual(500);
    expect(err.message).toMatch(/sandbox: true.*heartbeatDeadline/);
  });

  it('says nothing for a worker whose loop stays free', async () => {
    const s = await redis.scheduler();
    const errors: unknown[] = [];
    const worker = s.work(async () => void (await sleep(300)), { heartbeatInterval: 100, heartbeatDeadline: 1000, onError: (err) => errors.push(err) });
    await s.put('sleeps');
    await sleep(800);
    await worker.close();
    expect(errors).toEqual([]);
  });

  it('refuses an interval or deadline out of bounds with a ValidationError naming it', async () => {
    const sch = await redis.scheduler();
    for (const [options, field] of [
      [{ heartbeatInterval: 50 }, 'options.heartbeatInterval'],
      [{ heartbeatInterval: 61_000 }, 'options.heartbeatInterval'],
      [{ heartbeatDeadline: 11 * 60_000 }, 'options.heartbeatDeadline'],
      [{ heartbeatInterval: 1000, heartbeatDeadline: 1500 }, 'options.heartbeatDeadline'],
      [{ heartbeatDeadline: 'soon' }, 'options.heartbeatDeadline'],
    ] as const) {
      let err: unknown;
      try {
        sch.work(async () => {}, options as never);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ValidationError);
      expect(err).toMatchObject({ field });
    }
  });
});

describe('graceful shutdown', () => {
  it('hands back a task whose handler outlives the shutdown timeout, without counting the attempt', async () => {
    const s = await redis.scheduler();
    let reason: unknown;
    const worker = s.work(
      (_task, signal) =>
        new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => {
            reason = signal.reason;
            resolve();
          }),
        ),
    );
    const { hash } = await s.put('stuck');
    await eventually(async () => (await s.get(hash))?.state === 'active');
    const started = Date.now();
    await worker.close({ timeout: 200 });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(reason).toBeInstanceOf(ClosedError);
    expect(await s.get(hash)).toMatchObject({ state: 'ready', attempts: 0 });
    expect((await s.claim())!.attempt).toBe(1);
  });

  it('closes on SIGTERM with handleSignals, after the in-flight handler finishes', async () => {
    const s = await redis.scheduler();
    const compiled = childModule(path.join(__dirname, 'support', 'signal-child.ts'));
    const child = fork(compiled.module, [testUrl(), s.prefix], {
      execArgv: compiled.execArgv,
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | number | null>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
    try {
      await eventually(() => out.includes('ready'), 15_000);
      const { hash } = await s.put('in flight at SIGTERM');
      await eventually(() => out.includes('started'));
      child.kill('SIGTERM');
      expect(await exited).toBe('SIGTERM');
      expect(out).toContain('finished');
      // Acked before the exit: the queue's done history keeps it.
      expect((await s.get(hash))?.state).toBe('done');
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});
