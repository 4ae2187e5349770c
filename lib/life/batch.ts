/**
 * A batch worker (workBatch()): gathers up to `size` tasks, waiting at most `wait` for a batch to
 * fill once it has one, and hands them to its handler in one call, up to `concurrency` batches at
 * once. Everything else is the work() loop's machinery: claims through claim.lua (so a queue's
 * rate, concurrency and group limits count each task), each task through the worker pipeline
 * (batch-run.ts: its lease kept alive, its run timeout, its own ack or fail), the heartbeat (a
 * SIGKILLed worker's tasks go back at its deadline), the idle wait (no polling: a put or the next
 * due time wakes it, and the claim for more rides behind the BLPOP), and close() (shutdown.ts).
 * The scheduler keeps its queue's stored schedules going, as for a work() loop.
 *
 * What it does not do: prefetch (a batch is the round trip's saving) or run in a sandbox. A batch
 * worker takes tasks of any name: the handler reads `task.name`.
 */
import { performance } from 'node:perf_hooks';
import { newWorkerId, type Context } from '../redis/context';
import { CancelledError, ClosedError, fromRedisError, ValidationError } from '../types/errors';
import type { QueueKeys } from '../domain/keys';
import { errorFields } from '../domain/log';
import { batchOptions, closeOptions, parse, type ParsedBatchOptions } from '../domain/options';
import { observeClaims } from '../features/metrics';
import type { Via } from '../redis/scripts';
import type { Span } from '../types/time';
import { Alarm } from './alarm';
import { BatchRun, taskOutcome, type Leased } from './batch-run';
import type { BatchHandler, BatchOptions, BatchWorker as BatchWorkerContract, Handler } from '../types/work';
import { Heartbeat } from './heartbeat';
import { IdleWait } from './idle';
import { claimBatch, release, type Worked } from './lease';
import { Acks, pipeline, type Outcome, type Run } from './pipeline';
import { Prefetch } from './prefetch';
import { closeWhen, shutDown } from './shutdown';

/** One claim's reply as the gathering reads it, or the error it failed with. */
type Reply = { leased: Leased[]; now: number; nextDue: number | null; at: number } | { error: unknown };

/** A worker started by {@link Scheduler.workBatch}: it claims its queue's tasks in batches and runs a batch handler on each, until close(). */
export class BatchWorker implements BatchWorkerContract {
  /** Names this worker as a lease holder: host:pid:random. */
  readonly id = newWorkerId();
  /** Settles once close() has finished. */
  readonly closed: Promise<void>;
  private readonly opts: ParsedBatchOptions;
  /** The queue it works. */
  readonly queue: string;
  private readonly keys: QueueKeys;
  private readonly worked: Worked;
  private readonly path: (run: Run) => Promise<Outcome>;
  /** Every task of the batches in flight, each with what close() needs to stop it and hand it back. */
  private readonly running = new Map<Promise<Outcome>, Run>();
  /** Tasks leased for the batch being gathered, and those of them a beat found cancelled meanwhile. */
  private gathering: Leased[] = [];
  private readonly cancelledEarly = new Set<string>();
  /** Batches whose handler has not returned yet: at most `concurrency`. */
  private busy = 0;
  private readonly acks: Acks;
  /** Set while queued acks go out (see ack()). */
  private acking = false;
  private ackSoon = false;
  /** Never filled (a batch worker does not prefetch): what shutDown() expects a worker to hold. */
  private readonly prefetch: Prefetch;
  private readonly heartbeat: Heartbeat;
  private readonly idle: IdleWait;
  private readonly alarm = new Alarm();
  private shutdownMs: number;
  private closing = false;
  private closeStarted = 0;
  /** Claim calls that failed in a row: the back-off grows with them. */
  private failures = 0;
  private finish!: () => void;

  constructor(
    private readonly ctx: Context,
    private readonly handler: BatchHandler<unknown, unknown>,
    options?: BatchOptions,
  ) {
    if (typeof handler !== 'function') throw new ValidationError('handler', 'expected a function');
    this.opts = parse(batchOptions, options ?? {}, 'options');
    this.queue = this.opts.queue ?? ctx.options.queue;
    this.keys = ctx.keys(this.queue);
    this.shutdownMs = this.opts.shutdownTimeout;
    const report = (err: unknown) => this.report(err);
    this.worked = { keep: this.opts.keepResult ?? 0, onProblem: report };
    this.closed = new Promise((resolve) => (this.finish = resolve));
    // Tasks cancelled while they ran (cancel with `running`): a beat ended them; their batch is told
    // through their signal. One cancelled while its batch still gathers is told once it starts.
    const cancelled = (hashes: string[]) => {
      this.running.forEach((run) => hashes.includes(run.task.hash) && run.controller.abort(new CancelledError(run.task.hash)));
      for (const { task } of this.gathering) if (hashes.includes(task.hash)) this.cancelledEarly.add(task.hash);
    };
    this.heartbeat = new Heartbeat(ctx, this.keys, this.id, report, { interval: this.opts.heartbeatInterval, deadline: this.opts.heartbeatDeadline }, cancelled);
    this.idle = new IdleWait(ctx, this.keys, report);
    this.acks = new Acks(
      (acks) => claimBatch(ctx, this.queue, 0, this.opts.lease, this.id, acks),
      () => this.acking,
      report,
    );
    this.prefetch = new Prefetch(ctx, { concurrency: this.opts.concurrency, lease: this.opts.lease, prefetch: 0 }, report, () => {});
    const options_ = { ...this.opts, sandbox: false, prefetch: 0 };
    const host = { ctx, queue: this.queue, worker: this.id, options: options_, report, ran: () => {}, free: () => {}, ack: (task: Run['task'], result: string) => this.ack(task, result) };
    this.path = pipeline(host, taskOutcome as Handler<unknown>);
    closeWhen(this, this.opts.signal, this.opts.handleSignals);
    if (this.opts.signal?.aborted) this.closing = true;
    else this.heartbeat.start();
    this.ctx.log.info({ queue: this.queue, worker: this.id, concurrency: this.opts.concurrency, size: this.opts.size }, 'docket: batch worker started');
    void this.loop();
  }

  /** As a work() worker's close(): stops gathering, waits for the batches in flight up to `timeout`, then hands back what still runs. */
  async close(options?: { timeout?: Span }): Promise<void> {
    this.shutdownMs = parse(closeOptions, options ?? {}, 'options').timeout ?? this.shutdownMs;
    if (!this.closing) {
      this.closing = true;
      this.closeStarted = performance.now();
      this.alarm.wake();
      this.idle.interrupt(this.shutdownMs);
    }
    return this.closed;
  }

  private async loop(): Promise<void> {
    while (!this.closing) {
      if (this.busy >= this.opts.concurrency) {
        await this.alarm.sleep(Infinity);
        continue;
      }
      const leased = await this.gather();
      this.gathering = [];
      // Leased while close() came: back to the queue (last first, so they keep their order).
      if (this.closing) await Promise.all(leased.reverse().map(({ task }) => release(this.ctx, task).catch((err: unknown) => this.report(err))));
      else if (leased.length > 0) this.start(leased);
      else if (this.failures > 0) {
        // The loop never dies on a Redis error: it backs off, with the blocking connection made anew.
        await this.idle.reset();
        await this.alarm.sleep(Math.min(5000, 50 * 2 ** this.failures) * (0.5 + Math.random() / 2));
      }
    }
    const { ctx, queue, id: worker, running, acks, prefetch, heartbeat, idle } = this;
    await shutDown({ ctx, queue, worker, running, acks, prefetch, heartbeat, idle, sandbox: undefined, report: (err) => this.report(err) }, this.closeStarted + this.shutdownMs);
    this.finish();
  }

  /**
   * Leases one batch: up to `size` tasks. With none ready it waits idle (a put or the next due time
   * wakes it); once it has one, it waits for more until `wait` has passed since that first one came.
   * Each wait sends the claim for the rest behind its BLPOP. Returns [] after a failed claim.
   */
  private async gather(): Promise<Leased[]> {
    const { size, wait } = this.opts;
    const leased: Leased[] = (this.gathering = []);
    let fillBy = Infinity;
    let reply = await this.claim(size);
    for (;;) {
      if ('error' in reply) {
        this.failures++;
        return leased;
      }
      this.failures = 0;
      leased.push(...reply.leased);
      if (leased.length > 0 && fillBy === Infinity) fillBy = reply.at + wait;
      if (leased.length >= size || this.closing) return leased;
      const left = fillBy - performance.now();
      if (left <= 0) return leased;
      // The Redis clock now: the reply's, plus what passed since it came.
      const now = reply.now + (performance.now() - reply.at);
      const due = Math.min(reply.nextDue ?? Infinity, now + left);
      reply = await this.waitAndClaim(now, Number.isFinite(due) ? due : null, size - leased.length);
    }
  }

  /** Waits idle until `due` (or a put), then claims `count`: behind the BLPOP when it can, else on its own. */
  private async waitAndClaim(now: number, due: number | null, count: number): Promise<Reply> {
    let behind: Reply | undefined;
    try {
      await this.idle.wait(now, due, async (via) => void (behind = await this.claim(count, via)));
    } catch (err) {
      this.report(err);
      return { error: err };
    }
    return behind ?? (this.closing ? { leased: [], now, nextDue: due, at: performance.now() } : this.claim(count));
  }

  /** One claim call for `count` tasks (never rejects: a failure is reported and returned). */
  private async claim(count: number, via?: Via): Promise<Reply> {
    try {
      const batch = await claimBatch(this.ctx, this.queue, count, this.opts.lease, this.id, [], this.worked, via);
      const at = performance.now();
      observeClaims(this.ctx, this.queue, batch.now, batch.tasks);
      return { leased: batch.tasks.map((task) => ({ task, serverNow: batch.now, at })), now: batch.now, nextDue: batch.nextDue, at };
    } catch (err) {
      // close() gave up on the claim behind an idle wait (a Redis that does not answer): expected.
      if (!(via && this.closing && err instanceof ClosedError)) this.report(err);
      return { error: err };
    }
  }

  /** Starts a batch: each task on its pipeline, then the handler once with all of them. */
  private start(leased: Leased[]): void {
    const batch = new BatchRun(leased, this.opts.timeout);
    for (const run of batch.runs) {
      const going = this.path(run).finally(() => this.running.delete(going));
      this.running.set(going, run);
      if (this.cancelledEarly.delete(run.task.hash)) run.controller.abort(new CancelledError(run.task.hash));
    }
    this.busy++;
    // Its slot frees once the handler has really returned (a timed-out one too).
    void batch.call(this.handler).finally(() => {
      this.busy--;
      this.alarm.wake();
    });
  }

  /**
   * Queues a finished task's ack: the acks of one batch, which end in the same turn, go out
   * together on the next turn, in one call.
   */
  private ack(task: Run['task'], result: string): Promise<boolean> {
    const acked = this.acks.soon(task, result);
    if (!this.ackSoon) {
      this.ackSoon = true;
      setImmediate(() => {
        this.ackSoon = false;
        this.acking = true;
        void this.acks.flush().finally(() => (this.acking = false));
      });
    }
    return acked;
  }

  private report(err: unknown): void {
    const error = fromRedisError(err);
    this.ctx.log.warn({ queue: this.queue, worker: this.id, ...errorFields(error) }, 'docket: worker recovered from an error');
    try {
      this.opts.onError?.(error);
    } catch {
      // A throwing onError must not take the loop down.
    }
  }
}
