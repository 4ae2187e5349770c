/**
 * The worker pipeline: stages composed once, each wrapping the ones after it; a real leased task
 * taken through the worker's stages in the documented order (the lease kept alive while the
 * handler runs and no longer, the slot freed, progress and logs written, then the ack); and a
 * stage that ends the attempt itself (the run timeout), whose outcome the stages before it act on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RunTimeoutError, type Scheduler, type Task } from '../lib';
import { parse, workOptions } from '../lib/domain/options';
import { pipeline, runOf, STAGES, type Host, type Outcome, type Run } from '../lib/life/pipeline';
import { compose, type Stage } from '../lib/life/pipeline/stage';
import { timeout } from '../lib/life/pipeline/timeout';
import { handlerOf } from '../lib/life/route';
import { contextOf } from '../lib/redis/context';
import { eventually, sleep, useRedis } from './support/harness';

const redis = useRedis();

/** A worker's side of the stages, on `s`'s connection, telling `events` what the stages asked of it. */
function hostOf(s: Scheduler, events: string[], options: { lease?: number } = {}): Host & { reported: unknown[] } {
  const reported: unknown[] = [];
  return {
    ctx: contextOf(s)!,
    queue: 'default',
    worker: 'pipeline-test',
    options: parse(workOptions, options, 'options'),
    reported,
    report: (err) => reported.push(err),
    ran: () => events.push('metrics'),
    free: () => events.push('free'),
    ack: async (task, result) => {
      events.push('ack');
      return s.ack(task, result === '' ? undefined : JSON.parse(result));
    },
  };
}

describe('the worker pipeline', () => {
  it('composes stages once: each does its part before the ones after it, and after them in reverse', async () => {
    const events: string[] = [];
    const stage =
      (name: string): Stage =>
      async (_run, next) => {
        events.push(`${name}:before`);
        const ended = await next();
        events.push(`${name}:after`);
        return ended;
      };
    const path = compose([stage('a'), stage('b')], async () => {
      events.push('handler');
      return { result: '1' };
    });
    const run = runOf({ hash: 'h', timeout: null } as unknown as Task<unknown>, 1000, undefined);
    expect(await path(run)).toEqual({ result: '1' });
    expect(await path(run)).toEqual({ result: '1' });
    expect(events).toEqual(['a:before', 'b:before', 'handler', 'b:after', 'a:after', 'a:before', 'b:before', 'handler', 'b:after', 'a:after']);
  });

  it('takes a real task through its stages in the documented order, up to its ack', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('job', { keepResult: 60_000 });
    const task = (await s.claim({ lease: 300 }))!;
    const first = task.leaseUntil;
    const events: string[] = [];
    const host = hostOf(s, events, { lease: 300 });
    const ack = host.ack;
    let stored: unknown = null;
    let leaseAtEnd = 0;
    // What the ack finds already written: the last progress value and the log lines.
    host.ack = async (t, result) => {
      stored = { progress: (await s.get(hash))?.progress, logs: (await s.logs(hash)).map((l) => l.line) };
      return ack(t, result);
    };
    host.ran = () => {
      events.push('metrics');
      leaseAtEnd = task.leaseUntil;
    };
    const run: Run = runOf(task, 300, undefined);
    const path = pipeline(host, async (t) => {
      events.push('handler');
      await sleep(400); // over a lease: kept alive meanwhile
      void t.progress(1);
      void t.progress(2); // waits its 100 ms turn, after the handler returned: the flush waits for it
      void t.log('working');
      return 'done';
    });
    expect(await path(run)).toEqual({ result: '"done"' });
    expect(events).toEqual(['handler', 'metrics', 'free', 'ack']);
    expect(run.done).toBe(true);
    expect(stored).toEqual({ progress: 2, logs: ['working'] });
    expect(await s.result(hash)).toMatchObject({ state: 'done', result: 'done' });
    // Extended while the handler ran, and not once after: an extension of the acked task would
    // have been refused and aborted the signal with a LeaseLostError.
    expect(leaseAtEnd).toBeGreaterThan(first);
    await sleep(250);
    expect(task.leaseUntil).toBe(leaseAtEnd);
    expect(run.controller.signal.aborted).toBe(false);
    expect(host.reported).toEqual([]);
  });

  it('lets a stage end the attempt: the stages before the timeout fail the task with it while the handler still runs', async () => {
    const s = await redis.scheduler();
    const { hash } = await s.put('stubborn', { timeout: 80, maxAttempts: 1 });
    const task = (await s.claim())!;
    const events: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const run = runOf(task, 30_000, undefined);
    const path = pipeline(hostOf(s, events), async () => {
      events.push('handler');
      await gate; // ignores its signal
      events.push('returned');
    });
    const ended: Outcome = await path(run);
    expect('error' in ended && ended.error).toBeInstanceOf(RunTimeoutError);
    expect(run.controller.signal.reason).toBe('error' in ended && ended.error);
    // Failed by the outcome stage (no ack), after the metrics; the slot is still held.
    expect(events).toEqual(['handler', 'metrics']);
    expect(await s.get(hash)).toMatchObject({ state: 'dead', lastError: expect.stringMatching(/RunTimeoutError/) });
    release();
    await eventually(() => events.length === 4);
    expect(events).toEqual(['handler', 'metrics', 'returned', 'free']);
  });

  it('puts a custom stage in front of the timeout, which sees the attempt end there', async () => {
    const s = await redis.scheduler();
    await s.put('slow', { timeout: 50 });
    const task = (await s.claim())!;
    const seen: Outcome[] = [];
    const spy: Stage = async (_run, next) => {
      const ended = await next();
      seen.push(ended);
      return ended;
    };
    const path = compose([spy, timeout], async () => {
      await sleep(300);
      return { result: '' };
    });
    await path(runOf(task, 30_000, undefined));
    expect(seen).toEqual([{ error: expect.any(RunTimeoutError) }]);
    await s.fail(task);
  });

  it('runs the stages in the order docs/design.md gives', () => {
    const design = readFileSync(join(__dirname, '..', 'docs', 'design.md'), 'utf8');
    const section = design.slice(design.indexOf('## The worker pipeline'));
    const listed = [...section.slice(0, section.indexOf('\n## ', 1)).matchAll(/^\d+\. `([a-z-]+)`/gm)].map((m) => m[1]);
    expect(listed).toEqual([...STAGES]);
  });

  it("makes a run's signal only for a handler that can take it: one declaring only the task gets the task alone", async () => {
    const s = await redis.scheduler();
    await s.putMany(['one', 'routed', 'two', 'rest'].map((data) => ({ data })));
    const argc: number[] = [];
    const signals: unknown[] = [];
    const runNext = async (handler: Parameters<typeof pipeline>[1]) => {
      const run = runOf((await s.claim())!, 30_000, undefined);
      expect(await pipeline(hostOf(s, []), handler)(run)).toEqual({ result: '' });
    };
    // One parameter, alone or behind handlers by task name: called with the task only.
    await runNext(async function (_task) {
      argc.push(arguments.length);
    });
    await runNext(
      handlerOf({
        '*': async function (_task) {
          argc.push(arguments.length);
        },
      }),
    );
    // Two, or none declared (a rest parameter): given the signal.
    await runNext(async (_task, signal) => void signals.push(signal));
    await runNext(async (...args: unknown[]) => void signals.push(args[1]));
    expect(argc).toEqual([1, 1]);
    expect(signals.map((x) => x instanceof AbortSignal && !x.aborted)).toEqual([true, true]);

    // Stopped before its signal is read: the signal made then is already aborted, with the first reason.
    const run = runOf({ hash: 'h', timeout: null } as unknown as Task<unknown>, 1000, undefined);
    const why = new RunTimeoutError('h', 10);
    run.controller.abort(why);
    run.controller.abort(new Error('later'));
    expect(run.controller.reason).toBe(why);
    expect([run.controller.signal.aborted, run.controller.signal.reason]).toEqual([true, why]);
    // Read first, then stopped: the same signal aborts.
    const read = runOf({ hash: 'h', timeout: null } as unknown as Task<unknown>, 1000, undefined);
    const signal = read.controller.signal;
    read.controller.abort(why);
    expect([read.controller.signal, signal.aborted, signal.reason]).toEqual([signal, true, why]);
  });
});
