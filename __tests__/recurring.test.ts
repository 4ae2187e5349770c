/**
 * Recurring tasks: every(), listSchedules(), unschedule(), the missed-run policy, and exactly one
 * task per occurrence however many processes declare the schedule.
 */
import { ValidationError, type Task } from '../lib';
import type { Context } from '../lib/redis/context';
import { putOccurrences } from '../lib/life/put';
import { Occurrences } from '../lib/features/recurring';
import { eventually, keysUnder, sleep, useRedis } from './support/harness';

const redis = useRedis();

describe('occurrences', () => {
  it('fires an interval at whole multiples of itself since the epoch', () => {
    const o = Occurrences.of(200);
    expect(o.after(1000)).toBe(1200);
    expect(o.after(1001)).toBe(1200);
    expect(o.between(1000, 1650, 10)).toEqual([1200, 1400, 1600]);
    expect(o.between(1000, 1650, 2)).toEqual([1400, 1600]);
    expect(Occurrences.of({ minutes: 5 }).after(0)).toBe(300_000);
  });

  it('follows a cron expression in its time zone, across a daylight-saving change', () => {
    const o = Occurrences.of({ cron: '0 9 * * *', tz: 'Europe/Berlin' });
    // 2026-03-29 is the spring-forward day in Berlin: 09:00 is 08:00 UTC before it, 07:00 UTC after.
    const first = o.after(Date.UTC(2026, 2, 28, 12));
    expect(new Date(first).toISOString()).toBe('2026-03-29T07:00:00.000Z');
    expect(o.between(Date.UTC(2026, 2, 26), Date.UTC(2026, 2, 29, 12), 10).map((t) => new Date(t).toISOString())).toEqual([
      '2026-03-26T08:00:00.000Z',
      '2026-03-27T08:00:00.000Z',
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
    ]);
    expect(Occurrences.of('*/5 * * * * *').after(Date.UTC(2026, 0, 1, 0, 0, 5))).toBe(Date.UTC(2026, 0, 1, 0, 0, 10));
  });
});

describe('every', () => {
  it('runs each occurrence once, however many processes declare the schedule', async () => {
    const a = await redis.scheduler();
    const b = await redis.scheduler({ prefix: a.prefix });
    await a.every('tick', 200, { job: 'tick' });
    await b.every('tick', 200, { job: 'tick' });
    const ran: number[] = [];
    const worker = a.work(async (task: Task) => void ran.push(task.runAt));
    await eventually(() => ran.length >= 5, 10_000);
    await worker.close();
    const sorted = [...ran].sort((x, y) => x - y);
    expect(new Set(ran).size).toBe(ran.length);
    for (const at of sorted) expect(at % 200).toBe(0);
    // No occurrence between the first and the last was lost.
    for (let i = 1; i < sorted.length; i++) expect(sorted[i] - sorted[i - 1]).toBe(200);
    const [info] = await a.listSchedules();
    expect(info).toMatchObject({ name: 'tick', queue: 'default', cron: null, tz: null, every: 200, data: { job: 'tick' } });
    expect(info.latest).toBeGreaterThanOrEqual(sorted[sorted.length - 1]);
  });

  it('never puts an occurrence at or before the latest one put, even once that one has run', async () => {
    const s = await redis.scheduler();
    await s.every('job', 200, 'x');
    const ran: number[] = [];
    const worker = s.work(async (task: Task) => void ran.push(task.runAt));
    await eventually(() => ran.length >= 1, 5000);
    await worker.close();
    // A process whose look came late puts an occurrence that already ran (and left no task behind).
    const ctx = (s as unknown as { ctx: Context }).ctx;
    const late = await putOccurrences(ctx, 'default', 'job', [{ data: 'x', options: { queue: 'default', at: ran[0], key: `every:job:${ran[0]}` } }]);
    expect(late).toEqual({ gone: false, results: [{ hash: '', added: false, status: 'duplicate', queue: 'default', runAt: ran[0] }] });
    // Without the schedule's record, the same call would have put it again.
    const plain = await putOccurrences(ctx, 'default', '', [{ data: 'x', options: { queue: 'default', at: ran[0], key: `every:job:${ran[0]}` } }]);
    expect(plain.results[0].added).toBe(true);
  });

  it('takes a cron expression with seconds and a time zone', async () => {
    const s = await redis.scheduler();
    await s.every('each-second', { cron: '* * * * * *', tz: 'Asia/Kolkata' }, 'hello', { queue: 'cron', priority: true });
    const ran: Task[] = [];
    const worker = s.work(async (task: Task) => void ran.push(task), { queue: 'cron' });
    await eventually(() => ran.length >= 2, 10_000);
    await worker.close();
    for (const task of ran) {
      expect(task.runAt % 1000).toBe(0);
      expect(task.data).toBe('hello');
    }
    expect(await s.listSchedules({ queue: 'cron' })).toEqual([
      {
        name: 'each-second',
        queue: 'cron',
        cron: '* * * * * *',
        tz: 'Asia/Kolkata',
        every: null,
        data: 'hello',
        latest: expect.any(Number),
        stored: false,
        paused: false,
        next: expect.any(Number),
        template: { priority: 9, maxAttempts: 5, unique: 'until-done' },
        startAt: null,
        endAt: null,
        limit: null,
      },
    ]);
  });

  it('after downtime, skips missed occurrences, runs the latest once, or catches up to a limit', async () => {
    const first = await redis.scheduler();
    // 500 ms apart, each queue counted right after its declaration: with 200 ms, a loaded machine
    // can pass the next occurrence between a declaration and its count.
    for (const queue of ['skip', 'once', 'catch-up']) await first.every('job', 500, { queue }, { queue });
    await first.close(); // downtime: nobody declares the schedules now
    await sleep(2100); // at least 4 occurrences pass unput
    const second = await redis.scheduler({ prefix: first.prefix });
    const pending = async (queue: string) => {
      const st = await second.stats({ queue });
      return st.ready + st.delayed;
    };
    // Each queue holds the occurrence put before the downtime and the next one, plus what its policy adds.
    await second.every('job', 500, { queue: 'skip' }, { queue: 'skip', missed: 'skip' });
    expect(await pending('skip')).toBe(2);
    await second.every('job', 500, { queue: 'once' }, { queue: 'once', missed: 'once' });
    expect(await pending('once')).toBe(3);
    await second.every('job', 500, { queue: 'catch-up' }, { queue: 'catch-up', missed: 'catch-up', catchUpLimit: 3 });
    expect(await pending('catch-up')).toBe(5);
  });

  it("gives its occurrences the task template: a name that work()'s handler map routes by, a group, a timeout", async () => {
    const s = await redis.scheduler();
    await s.every('nightly', 200, 'n', { taskName: 'digest', group: 'mail', timeout: 3000 });
    const named: Task[] = [];
    const fallback: Task[] = [];
    const worker = s.work({ digest: async (task: Task) => void named.push(task), '*': async (task: Task) => void fallback.push(task) });
    await eventually(() => named.length >= 2, 5000);
    await worker.close();
    await s.close();
    expect(fallback).toEqual([]);
    expect(named[0]).toMatchObject({ name: 'digest', group: 'mail', timeout: 3000, data: 'n' });
  });

  it('replaces its own loop when declared again, and stops it on close', async () => {
    const s = await redis.scheduler();
    await s.every('job', 200, 'v1');
    await s.every('job', 200, 'v2');
    expect((await s.listSchedules()).map((i) => i.data)).toEqual(['v2']);
    await s.close(); // an open timer would keep jest from exiting
  });
});

describe('unschedule', () => {
  it('stops the schedule in every process and cancels its pending occurrence', async () => {
    const a = await redis.scheduler();
    const b = await redis.scheduler({ prefix: a.prefix });
    // A 1 s interval: with 200 ms, a loaded machine let b's every() come after a's occurrence was
    // due, and b put the next one too (CI saw 2 pending).
    await a.every('job', 1000, 'x');
    await b.every('job', 1000, 'x');
    // The next occurrence is pending: delayed, or ready already if this machine is slow.
    const pending = async () => ((st) => st.delayed + st.ready)(await a.stats());
    expect(await pending()).toBe(1);
    expect(await a.unschedule('job')).toBe(true);
    expect(await a.listSchedules()).toEqual([]);
    expect(await pending()).toBe(0);
    // b's loop finds the schedule gone at its next look and puts nothing.
    await sleep(1300);
    expect(await a.stats()).toMatchObject({ ready: 0, delayed: 0, active: 0 });
    expect(await a.unschedule('job')).toBe(false);
  });
});

describe('bad input', () => {
  it('refuses bad names, schedules and options with a ValidationError, writing nothing', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const cases: Array<[() => Promise<unknown>, string]> = [
      [() => s.every('', 1000, 1), 'name: must be 1 to 200 characters'],
      [() => s.every('a{b}', 1000, 1), 'name: must have no braces'],
      [() => s.every('job', 'not a cron', 1), 'schedule: is not a valid cron expression'],
      [() => s.every('job', { cron: '* * * * *', tz: 'Nowhere/City' }, 1), 'schedule: is not a valid cron expression with time zone Nowhere/City'],
      [() => s.every('job', 50, 1), 'schedule: '],
      [() => s.every('job', 1000, undefined as never), 'data'],
      [() => s.every('job', 1000, 1, { missed: 'always' as never }), "options.missed: expected 'skip', 'once' or 'catch-up'"],
      [() => s.every('job', 1000, 1, { bogus: 1 } as never), 'options.bogus: is not a known option'],
      [() => s.unschedule(''), 'name: must be 1 to 200 characters'],
      [() => s.every('job', 1000, 1, { unique: 'always' as never }), 'options.unique'],
      // schedule(), pauseSchedule() and runScheduleNow() (__tests__/schedules.test.ts) by the same rules.
      [() => s.schedule('', 1000, 1), 'name: must be 1 to 200 characters'],
      [() => s.schedule('job', 'not a cron', 1), 'schedule: is not a valid cron expression'],
      [() => s.schedule('job', 1000, 1, { limit: 0 }), 'options.limit: must be from 1 to 100000'],
      [() => s.schedule('job', 1000, 1, { startAt: 2000, endAt: 1000 }), 'options.endAt: must not be before startAt'],
      [() => s.schedule('job', 1000, 1, { taskName: 'a|b' }), 'options.taskName'],
      [() => s.schedule('job', 1000, 1, { onError: () => {} } as never), 'options.onError: is not a known option'],
      [() => s.pauseSchedule('a{b}'), 'name: must have no braces'],
      [() => s.runScheduleNow(''), 'name: must be 1 to 200 characters'],
    ];
    for (const [call, message] of cases) {
      const err = await call().then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as Error).message).toContain(message);
    }
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
  });
});
