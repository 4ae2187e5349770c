/**
 * The handler decides how its attempt ends: an UnrecoverableError makes the task dead at once, a
 * RetryLaterError sets when the next attempt runs (and counts as one), task.snooze() ends the
 * attempt without counting it (fenced like an ack), backoff() sees the error, and the task's
 * record, its kept outcome, result(), get(), the events and the CLI say which ending it was.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RetryLaterError, UnrecoverableError, ValidationError, type QueueEvent, type Scheduler, type Task } from '../lib';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { outcomeText } from '../lib/surfaces/cli/outcome';
import { taskText } from '../lib/surfaces/cli/tasks';
import { createDashboard } from '../lib/surfaces/dashboard';
import { eventually, serverNow, sleep, useRedis } from './support/harness';

const redis = useRedis();
const KEEP = { keepResult: 60_000 };

/** The events of `hash` among the queue's newest, oldest first. */
async function eventsOf(s: Scheduler, hash: string): Promise<QueueEvent[]> {
  const seen: QueueEvent[] = [];
  const controller = new AbortController();
  const it = s.events({ from: 'start', signal: controller.signal });
  const timer = setTimeout(() => controller.abort(), 300);
  try {
    for await (const e of it) if (e.hash === hash) seen.push(e);
  } catch {
    // aborted: the stream was read to its end
  } finally {
    clearTimeout(timer);
  }
  return seen;
}

describe('UnrecoverableError', () => {
  it('makes the task dead at once, whatever attempts are left, its error and ending recorded', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('bad address', { maxAttempts: 5, ...KEEP });
    let calls = 0;
    const w = s.work(
      async () => {
        calls++;
        throw new UnrecoverableError('400: no such address');
      },
      { backoff: () => 0 },
    );
    const out = await s.result(hash, { wait: 5000 });
    await w.close();
    expect(calls).toBe(1);
    expect(out).toMatchObject({ state: 'dead', attempts: 1, ending: 'unrecoverable' });
    expect((out as { error: string }).error).toMatch(/UnrecoverableError: 400: no such address/);
    const info = (await s.get(hash))!;
    expect(info).toMatchObject({ state: 'dead', attempts: 1, ending: 'unrecoverable' });
    expect(info.lastError).toMatch(/400: no such address/);
    expect(taskText(info, Date.now())).toMatch(/ending\s+unrecoverable/);
    const dead = (await eventsOf(s, hash)).filter((e) => e.type === 'dead');
    expect(dead).toMatchObject([{ ending: 'unrecoverable', attempt: 1 }]);
    // The CLI's view of the kept outcome, and the dashboard's task page, say it too.
    expect(outcomeText(out!, Date.now())).toMatch(/ending\s+unrecoverable/);
    const server = createServer(createDashboard(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/task?queue=default&hash=${hash}`);
      expect(await res.text()).toContain('data-ending="unrecoverable"');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('is a DocketError with its name and code, exported', () => {
    const err = new UnrecoverableError('gone', { cause: 'x' });
    expect(err).toMatchObject({ name: 'UnrecoverableError', code: 'ERR_UNRECOVERABLE', message: 'gone', cause: 'x' });
  });

  it('counts one of another copy of docket (by name and code), and on the claim() path through fail()', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('foreign', { maxAttempts: 5 });
    const task = (await s.claim())!;
    const foreign = Object.assign(new Error('from elsewhere'), { name: 'UnrecoverableError', code: 'ERR_UNRECOVERABLE' });
    expect(await s.fail(task, { error: foreign })).toBe('dead');
    expect(await s.get(hash)).toMatchObject({ state: 'dead', attempts: 1, ending: 'unrecoverable' });
    // Without keepResult, result() reads it from the dead task's record.
    expect(await s.result(hash)).toMatchObject({ state: 'dead', ending: 'unrecoverable' });
    // A plain failure is 'failed'.
    const { hash: plain } = await s.put('plain', { maxAttempts: 1 });
    expect(await s.fail((await s.claim())!, { error: new Error('boom') })).toBe('dead');
    expect(await s.get(plain)).toMatchObject({ state: 'dead', ending: 'failed' });
    expect(await s.result(plain)).toMatchObject({ state: 'dead', ending: 'failed' });
  });
});

describe('RetryLaterError', () => {
  it('runs the next attempt after its delay, not the back-off, and counts the attempt', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put('rate limited', { maxAttempts: 3 });
    const before = await serverNow(raw);
    const w = s.work(
      async () => {
        throw new RetryLaterError('429', { delay: { minutes: 2 } });
      },
      { backoff: () => 0 },
    );
    await eventually(async () => (await s.get(hash))?.state === 'delayed');
    await w.close();
    const after = await serverNow(raw);
    const info = (await s.get(hash))!;
    expect(info).toMatchObject({ attempts: 1, ending: 'retry-later' });
    expect(info.runAt).toBeGreaterThanOrEqual(before + 120_000);
    expect(info.runAt).toBeLessThanOrEqual(after + 120_000);
    const failed = (await eventsOf(s, hash)).filter((e) => e.type === 'failed');
    expect(failed).toMatchObject([{ ending: 'retry-later', attempt: 1 }]);
  });

  it('runs it at `at` exactly (on the claim() path too), and at the last attempt the task goes dead', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put('retry at', { maxAttempts: 2, ...KEEP });
    const at = new Date((await serverNow(raw)) + 3_600_000);
    expect(await s.fail((await s.claim())!, { error: new RetryLaterError('later', { at }), retryIn: 5 })).toBe('retry');
    expect(await s.get(hash)).toMatchObject({ state: 'delayed', runAt: at.getTime(), attempts: 1, ending: 'retry-later' });
    // Due now: the second attempt is its last, so the RetryLaterError makes it dead.
    await s.reschedule(hash, Date.now() - 1000);
    const w = s.work(async () => {
      throw new RetryLaterError('still later', { delay: 1000 });
    });
    const out = await s.result(hash, { wait: 5000 });
    await w.close();
    expect(out).toMatchObject({ state: 'dead', attempts: 2, ending: 'retry-later' });
    expect(await s.get(hash)).toMatchObject({ state: 'dead', ending: 'retry-later' });
  });

  it('refuses bad options with a ValidationError naming the field', () => {
    const bad: Array<[unknown, string]> = [
      [undefined, 'options'],
      [{}, 'options'],
      [{ delay: 1, at: 2 }, 'options'],
      [{ delay: -1 }, 'options.delay'],
      [{ delay: Infinity }, 'options.delay'],
      [{ delay: { fortnights: 1 } }, 'options.delay'],
      [{ delay: '5s' }, 'options.delay'],
      [{ at: new Date(NaN) }, 'options.at'],
      [{ at: 1e300 }, 'options.at'],
      [{ wait: 5 }, 'options'],
    ];
    for (const [options, field] of bad) {
      let thrown: unknown;
      try {
        new RetryLaterError('x', options as never);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ValidationError);
      expect(thrown).toMatchObject({ field });
    }
    expect(new RetryLaterError('ok', { delay: 5 })).toMatchObject({ name: 'RetryLaterError', code: 'ERR_RETRY_LATER', delay: 5, at: null });
    expect(new RetryLaterError('ok', { at: new Date(1000) })).toMatchObject({ delay: null, at: 1000 });
  });

  it('refuses a Duration whose whole span passes 100 years, as task.snooze() refuses the same value', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('too far', { maxAttempts: 2 });
    const refused: unknown[] = [];
    const w = s.work(async (task) => {
      // Each field alone is in bounds; the sum (200 years) is not.
      for (const delay of [{ years: 200 }, { years: 60, months: 600 }]) {
        await task.snooze(delay).catch((err: unknown) => refused.push(err));
        try {
          new RetryLaterError('x', { delay });
        } catch (err) {
          refused.push(err);
        }
      }
      throw new RetryLaterError('in bounds', { delay: { years: 99, months: 11 } });
    });
    await eventually(async () => (await s.get(hash))?.ending === 'retry-later');
    await w.close();
    expect(refused).toHaveLength(4);
    for (const err of refused) expect(err).toBeInstanceOf(ValidationError);
    expect(refused[0]).toMatchObject({ field: 'span' });
    expect(refused[1]).toMatchObject({ field: 'options.delay' });
    // The same bound in the same words: only the field differs.
    expect((refused[1] as ValidationError).message.replace('options.delay', 'span')).toBe((refused[0] as ValidationError).message);
  });
});

describe('backoff(attempt, error)', () => {
  it('gets the error that failed the attempt', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('x', { maxAttempts: 2 });
    const seen: Array<[number, unknown]> = [];
    const boom = new Error('503');
    const w = s.work(
      async () => {
        throw boom;
      },
      {
        backoff: (attempt, error) => {
          seen.push([attempt, error]);
          return 0;
        },
      },
    );
    await eventually(async () => (await s.get(hash))?.state === 'dead');
    await w.close();
    expect(seen).toEqual([
      [1, boom],
      [2, boom],
    ]);
  });
});

describe('task.snooze(span)', () => {
  it('ends the attempt without counting it: delayed by the span, lease released, the later return ignored', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const { hash } = await s.put('not yet', { maxAttempts: 1, ...KEEP });
    const snoozed: boolean[] = [];
    const attempts: number[] = [];
    const before = await serverNow(raw);
    const reported: unknown[] = [];
    const w = s.work(
      async (task) => {
        attempts.push(task.attempt);
        if (attempts.length === 1) {
          await task.log('looked; too early');
          snoozed.push(await task.snooze({ minutes: 5 }));
          return 'ignored';
        }
        return 'done';
      },
      { onError: (err) => reported.push(err), lease: 300 },
    );
    await eventually(async () => (await s.get(hash))?.state === 'delayed');
    await sleep(50);
    const info = (await s.get(hash))!;
    expect(snoozed).toEqual([true]);
    // Not counted: a maxAttempts 1 task is still alive, its attempts 0, and nothing was acked or failed.
    expect(info).toMatchObject({ state: 'delayed', attempts: 0, ending: 'snoozed', worker: null, leaseUntil: null });
    expect(info.runAt).toBeGreaterThanOrEqual(before + 300_000);
    expect(await s.result(hash)).toMatchObject({ state: 'pending' });
    expect((await s.stats()).totals).toMatchObject({ completed: 0, failed: 0 });
    // Its log line, written before the snooze, is kept.
    expect((await s.logs(hash)).map((l) => l.line)).toEqual(['looked; too early']);
    const ev = (await eventsOf(s, hash)).filter((e) => e.type === 'snoozed');
    expect(ev).toMatchObject([{ ending: 'snoozed', attempt: 1 }]);
    // Due again: the next delivery sees the same attempt number.
    await s.reschedule(hash, Date.now() - 1000);
    expect(await s.result(hash, { wait: 5000 })).toMatchObject({ state: 'done', result: 'done', attempts: 1 });
    await w.close();
    expect(attempts).toEqual([1, 1]);
    // A snoozed task's lease is given up, not lost: nothing reported (lease 300 ms: extended every 100 ms).
    expect(reported).toEqual([]);
  });

  it('ignores a throw after the snooze too, and refuses a bad span', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('throws after', { maxAttempts: 3 });
    let badSpan: unknown;
    const answers: boolean[] = [];
    const reported: unknown[] = [];
    const w = s.work(
      async (task) => {
        answers.push(await task.snooze(60_000));
        // A second snooze of the same attempt: its lease is gone, so refused.
        answers.push(await task.snooze(60_000));
        try {
          await task.snooze(-5);
        } catch (err) {
          badSpan = err;
        }
        throw new Error('after the snooze');
      },
      { onError: (err) => reported.push(err) },
    );
    await eventually(async () => (await s.get(hash))?.ending === 'snoozed');
    await sleep(100);
    await w.close();
    expect(answers).toEqual([true, false]);
    // The worker had nothing to recover from: no lost lease, no refused fail.
    expect(reported).toEqual([]);
    expect(badSpan).toBeInstanceOf(ValidationError);
    expect(badSpan).toMatchObject({ field: 'span' });
    // No failure was recorded for the throw.
    expect((await s.stats()).totals).toMatchObject({ failed: 0 });
    expect((await s.get(hash))!.lastError).toBeNull();
  });

  it('wins over the return of a handler that did not wait for it', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('fire and forget', { maxAttempts: 1 });
    const reported: unknown[] = [];
    const w = s.work(
      async (task) => {
        void task.snooze(60_000);
        return 'returned at once';
      },
      { onError: (err) => reported.push(err) },
    );
    await eventually(async () => (await s.get(hash))?.ending === 'snoozed');
    await sleep(100);
    await w.close();
    expect(await s.get(hash)).toMatchObject({ state: 'delayed', attempts: 0 });
    expect((await s.stats()).totals).toMatchObject({ completed: 0 });
    expect(reported).toEqual([]);
  });

  it("refuses a stale holder's snooze, fenced like its ack: a lapsed lease another worker claimed is left alone", async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('raced', { maxAttempts: 5 });
    const old = (await s.claim({ lease: 50 }))!;
    await sleep(120);
    // The lease lapsed; another worker claims the task (attempt 2).
    const fresh = (await s.claim({ lease: 30_000 }))!;
    expect(fresh).toMatchObject({ hash, attempt: 2 });
    const held = (await s.get(hash))!;
    expect(await old.snooze(60_000)).toBe(false);
    expect(await s.ack(old)).toBe(false);
    // Nothing changed: still the new holder's, same lease, same attempts, no snoozed event.
    const now = (await s.get(hash))!;
    expect(now).toMatchObject({ state: 'active', attempts: 2, leaseUntil: held.leaseUntil, worker: held.worker, ending: 'failed' });
    expect((await eventsOf(s, hash)).filter((e) => e.type === 'snoozed')).toEqual([]);
    expect(await s.ack(fresh, 'ok')).toBe(true);
  });

  it('works on the claim() path: a claimed task snoozes itself', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('claimed', { maxAttempts: 2 });
    const task: Task = (await s.claim())!;
    expect(await task.snooze(60_000)).toBe(true);
    expect(await s.get(hash)).toMatchObject({ state: 'delayed', attempts: 0, ending: 'snoozed' });
    expect(await s.ack(task)).toBe(false);
    // scheduler.snooze(task, span) is the same call; a second one is refused (the lease is gone).
    expect(await s.snooze(task, 60_000)).toBe(false);
    await s.reschedule(hash, Date.now() - 1000);
    const next = (await s.claim())!;
    expect(next.attempt).toBe(1);
    expect(await s.snooze(next, { seconds: 30 })).toBe(true);
  });
});

describe('sandboxed handlers', () => {
  it('end their attempts the same way: UnrecoverableError, RetryLaterError and snooze cross the thread', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'docket-handler-control-'));
    const file = path.join(dir, 'handlers.js');
    // As a handler module that imports its own copy of docket throws them: docket's names and codes.
    writeFileSync(
      file,
      `const errorOf = (name, code, message, fields) => Object.assign(new Error(message), { name, code }, fields);
module.exports = {
  gone: async () => { throw errorOf('UnrecoverableError', 'ERR_UNRECOVERABLE', 'gone for good'); },
  later: async () => { throw errorOf('RetryLaterError', 'ERR_RETRY_LATER', 'try later', { delay: { hours: 1 }, at: null }); },
  nap: async (task) => { const ok = await task.snooze(3600000); return ok ? 'ignored' : 'refused'; },
};`,
    );
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const gone = await s.put(1, { name: 'gone', maxAttempts: 5 });
    const later = await s.put(2, { name: 'later', maxAttempts: 5 });
    const nap = await s.put(3, { name: 'nap', maxAttempts: 5 });
    const before = await serverNow(raw);
    const w = s.work(file, { sandbox: true, concurrency: 3, backoff: () => 0 });
    await eventually(async () => {
      const [a, b, c] = await Promise.all([s.get(gone.hash), s.get(later.hash), s.get(nap.hash)]);
      return a?.state === 'dead' && b?.state === 'delayed' && c?.state === 'delayed';
    }, 15_000);
    await w.close();
    expect(await s.get(gone.hash)).toMatchObject({ attempts: 1, ending: 'unrecoverable' });
    const b = (await s.get(later.hash))!;
    expect(b).toMatchObject({ attempts: 1, ending: 'retry-later' });
    expect(b.runAt).toBeGreaterThanOrEqual(before + 3_600_000);
    expect(await s.get(nap.hash)).toMatchObject({ attempts: 0, ending: 'snoozed' });
    expect((await s.stats()).totals).toMatchObject({ completed: 0 });
  });
});
