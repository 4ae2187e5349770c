/**
 * The worker, for work() and workBatch() alike: one loop claims tasks and runs up to `concurrency`
 * of them at once, each through the worker pipeline (pipeline/: its timeout, lease keep-alive,
 * metrics, progress and logs, and its ack or fail). While handlers are quick it leases a few tasks
 * ahead (prefetch), so one round trip serves several. An idle worker does not poll: it blocks on
 * its own connection until a put wakes it or its own timer, armed for the next run-at on the Redis
 * clock, ends the wait. A batch worker is this worker with Batching (batch.ts): its claims fill
 * the batch being formed, and a batch starts full or once its `wait` is over.
 *
 * One concept over 300 lines: the loop. What it holds apart has its own module: the tasks leased
 * ahead (prefetch.ts), the batches (batch.ts), what closes a worker and what it does then with its
 * tasks (shutdown.ts), how the loop sleeps (alarm.ts); work()'s options are public types (types/work.ts).
 */
import { performance } from 'node:perf_hooks';
import { newWorkerId, type Context } from '../redis/context';
import { CancelledError, ClosedError, fromRedisError, ValidationError } from '../types/errors';
import type { QueueKeys } from '../domain/keys';
import { claimBatch, type ClaimBatch, type Worked } from './lease';
import { Heartbeat, type HeartbeatHost, type HeartbeatTiming } from './heartbeat';
import { IdleWait } from './idle';
import { errorFields } from '../domain/log';
import { observeClaims } from '../features/metrics';
import { batchOptions, closeOptions, parse, workOptions, type ParsedWorkOptions } from '../domain/options';
import type { Sandbox } from '../features/sandbox';
import type { Via } from '../redis/scripts';
import type { Task } from '../types/task';
import type { Span } from '../types/time';
import { Alarm } from './alarm';
import { Acks, pipeline, runOf, type Host, type Outcome, type PendingAck, type Run } from './pipeline';
import { Prefetch } from './prefetch';
import { Batching } from './batch';
import { taskOutcome } from './batch-run';
import { closeWhen, shutDown } from './shutdown';
import type { BatchHandler, BatchOptions, BatchWorker as BatchWorkerContract, Handler, Worker as WorkerContract, WorkOptions } from '../types/work';

/**
 * What the loop is doing, which decides how a finished task's ack goes out: `claiming` means the
 * next claim call takes it along; `full` means the loop sleeps until a slot frees, so the ack wakes
 * it and goes with the claim of the next task; `waiting` (idle, backing off, closing) means no
 * claim is coming soon, so the ack is sent on its own.
 */
type LoopState = 'claiming' | 'full' | 'waiting';

/**
 * From this concurrency on, a worker keeps up to two claim calls under way, each for up to half its
 * slots: while Redis runs one, the handlers of the other's tasks run, instead of the two taking
 * turns. Below it a call for every free slot is worth more (prefetch covers low concurrency).
 */
const TWO_CALLS_FROM = 8;

/** What the scheduler that started a worker hears from it. */
export interface WorkerHooks {
  /** A beat or claim found stored schedules on the worker's queue (features/schedules.ts keeps them going). */
  schedules?: () => void;
}

/** How a worker is made: its options, what runs each task, and what a sandbox or batches add. */
export interface WorkerSetup {
  opts: ParsedWorkOptions;
  /** What runs each task: the handler, or (batches) the task's part of its batch's outcome. */
  handler: Handler<unknown>;
  /** The threads a sandboxed handler runs in (sandbox.ts); `handler` hands tasks to it. */
  sandbox?: Sandbox;
  /** Set for a batch worker (batch.ts). */
  batching?: Batching;
}

/** Starts a worker for {@link Scheduler.work}: `handler` checked, `options` parsed. */
export function work(ctx: Context, handler: Handler<unknown>, options: WorkOptions | undefined, sandbox?: Sandbox, hooks: WorkerHooks = {}): Worker {
  if (typeof handler !== 'function') throw new ValidationError('handler', 'expected a function');
  return new Worker(ctx, { opts: parse(workOptions, options ?? {}, 'options'), handler, sandbox }, hooks);
}

/** Starts a batch worker for {@link Scheduler.workBatch}: a Worker whose tasks go to `handler` in batches (batch.ts). */
export function workBatch(ctx: Context, handler: BatchHandler<unknown, unknown>, options: BatchOptions | undefined, hooks: WorkerHooks = {}): Worker {
  if (typeof handler !== 'function') throw new ValidationError('handler', 'expected a function');
  const opts = parse(batchOptions, options ?? {}, 'options');
  // The loop's own options: a batch worker's, with neither prefetch nor a sandbox.
  const { size: _size, wait: _wait, ...own } = opts;
  return new Worker(ctx, { opts: { ...own, sandbox: false, prefetch: 0 }, handler: taskOutcome as Handler<unknown>, batching: new Batching(opts, handler) }, hooks);
}

/** A worker started by {@link Scheduler.work} or {@link Scheduler.workBatch}: it claims its queue's tasks and runs a handler on each (or on each batch), with heartbeats, until close(). */
export class Worker implements WorkerContract, BatchWorkerContract {
  /** Names this worker as a lease holder and in the queue's heartbeat set (`host:pid:random`); shown as `TaskInfo.worker`. */
  readonly id = newWorkerId();
  /** A Promise that settles once the worker has closed (close() has finished). */
  readonly closed: Promise<void>;
  private readonly opts: ParsedWorkOptions;
  private readonly worked: Worked;
  /** The queue it works. */
  readonly queue: string;
  private readonly sandbox: Sandbox | undefined;
  private readonly batching: Batching | undefined;
  private readonly keys: QueueKeys;
  /** The path each leased task takes (pipeline/), composed once. */
  private readonly path: (run: Run) => Promise<Outcome>;
  /** Tasks in flight, each with what close() needs to stop its handler and hand it back. */
  private readonly running = new Map<Promise<Outcome>, Run>();
  /** Handlers running now; a slot is free once its handler returns, before its ack. */
  private executing = 0;
  private readonly acks: Acks;
  /** Tasks leased beyond the free slots, waiting for one (prefetch.ts). */
  private readonly prefetch: Prefetch;
  /** Claim calls under way (at most two: see TWO_CALLS_FROM), and the slots they will fill. */
  private readonly calls = new Set<Promise<void>>();
  private reserved = 0;
  /** What the last reply says the loop does once no call is under way: wait idle, or back off. */
  private next: { now: number; nextDue: number | null; at: number } | { error: unknown } | null = null;
  /** Set when a reply started tasks, so the loop yields a turn before it claims again. */
  private started = false;
  /** Whether the last reply filled the slots it was for: more may be ready. */
  private backlog = false;
  /** Claim calls that failed in a row: the back-off grows with them. */
  private failures = 0;
  private state: LoopState = 'waiting';
  private readonly heartbeat: Heartbeat;
  /** How long close() waits for in-flight handlers before handing their tasks back. */
  private shutdownMs: number;
  private closing = false;
  /** When close() was first called (performance.now()): the shutdown timeout runs from here. */
  private closeStarted = 0;
  /** The loop's sleep, which a freed slot, a claim's reply or close() ends early. */
  private readonly alarm = new Alarm();
  private readonly idle: IdleWait;
  private finish!: () => void;

  constructor(
    private readonly ctx: Context,
    { opts, handler, sandbox, batching }: WorkerSetup,
    hooks: WorkerHooks = {},
  ) {
    this.opts = opts;
    this.sandbox = sandbox;
    this.batching = batching;
    this.queue = this.opts.queue ?? ctx.options.queue;
    this.keys = ctx.keys(this.queue);
    this.shutdownMs = this.opts.shutdownTimeout;
    const report = (err: unknown) => this.report(err);
    // Its keepResult goes to the tasks it leases; a refused progress write is reported as a refused ack is.
    this.worked = { keep: this.opts.keepResult ?? 0, onProblem: report };
    this.closed = new Promise((resolve) => (this.finish = resolve));
    this.heartbeat = new Heartbeat(ctx, this.keys, this.id, this.heartbeatHost(report, hooks), this.timing());
    this.idle = new IdleWait(ctx, this.keys, report);
    this.acks = new Acks(
      (acks) => claimBatch(ctx, this.queue, 0, this.opts.lease, this.id, acks),
      () => this.state === 'waiting',
      report,
    );
    this.prefetch = new Prefetch(ctx, this.opts, report, () => this.alarm.wake());
    this.path = pipeline(this.host(report), handler);
    closeWhen(this, this.opts.signal, this.opts.handleSignals);
    // The loop always starts, so that `closed` settles even for a signal that was already aborted.
    if (this.opts.signal?.aborted) this.closing = true;
    else this.heartbeat.start();
    const size = batching ? { size: batching.opts.size } : {};
    this.ctx.log.info({ queue: this.queue, worker: this.id, concurrency: this.opts.concurrency, ...size }, batching ? 'docket: batch worker started' : 'docket: worker started');
    void this.loop();
  }

  /**
   * Stops claiming and waits for in-flight handlers and their acks, up to `timeout` (default: the
   * worker's shutdownTimeout). Handlers still running then have their signal aborted and their
   * tasks handed back to the queue (un-leased, the delivery not counted), so nothing waits for a
   * lease to run out. Then the worker leaves the heartbeat set and drops its connection.
   */
  async close(options?: { timeout?: Span }): Promise<void> {
    this.shutdownMs = parse(closeOptions, options ?? {}, 'options').timeout ?? this.shutdownMs;
    if (!this.closing) {
      this.closing = true;
      this.closeStarted = performance.now();
      this.sandbox?.shrink();
      this.alarm.wake();
      this.idle.interrupt(this.shutdownMs);
    }
    return this.closed;
  }

  private timing(): HeartbeatTiming {
    return { interval: this.opts.heartbeatInterval, deadline: this.opts.heartbeatDeadline, lease: this.opts.lease };
  }

  /** What the heartbeat needs of this worker. */
  private heartbeatHost(report: (err: unknown) => void, hooks: WorkerHooks): HeartbeatHost {
    return {
      holding: () => this.running.size > 0 || this.prefetch.length > 0 || (this.batching?.length ?? 0) > 0,
      // Tasks a beat ended, cancelled while leased (cancel with `running`): their handlers stop, and
      // one still prefetched never starts (its signal, made after that beat, would never abort).
      cancelled: (hashes) => {
        this.prefetch.drop(hashes);
        this.batching?.cancelled(hashes);
        this.running.forEach((run) => hashes.includes(run.task.hash) && run.controller.abort(new CancelledError(run.task.hash)));
      },
      schedules: () => hooks.schedules?.(),
      report,
    };
  }

  /** What the pipeline's stages need of this worker. */
  private host(report: (err: unknown) => void): Host {
    return {
      ctx: this.ctx,
      queue: this.queue,
      worker: this.id,
      options: this.opts,
      report,
      ran: (ms) => this.prefetch.ran(ms),
      // A batch's slot frees when its handler returns (batch.ts), not per task.
      free: () => {
        if (this.batching) return;
        this.executing--;
        if (this.state === 'full') this.alarm.wake();
      },
      ack: (task, result) => this.acks.soon(task, result),
      keep: (run) => this.heartbeat.keep(run),
    };
  }

  private async loop(): Promise<void> {
    while (!this.closing) {
      // Tasks a reply just started: one turn of the event loop lets those that finish at once (no
      // I/O) do so, so that their acks and the claims of their successors share the next call.
      if (this.started) {
        this.started = false;
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      // The batch being formed starts once full, or once its wait is over.
      if (this.batching?.left() === 0) {
        this.batching.start(
          (run) => this.track(run),
          () => this.alarm.wake(),
        );
        continue;
      }
      const free = (this.batching ? this.batching.free() : this.opts.concurrency - this.executing) - this.reserved;
      if (this.prefetch.length > 0) {
        // Prefetched tasks go first; acks wait for the claim that follows them (a few tasks later).
        if (free > 0) {
          for (const b of this.prefetch.take(free)) this.start(b.task, b.serverNow, b.at);
          this.prefetch.hold();
          await new Promise((resolve) => setImmediate(resolve));
        } else {
          this.state = 'full';
          await this.alarm.sleep(Infinity);
        }
        continue;
      }
      // What the last reply said, acted on once no other call is under way (which would say more).
      const next = this.calls.size === 0 ? this.next : null;
      if (next) this.next = null;
      if (next && 'error' in next) {
        // The loop never dies on a Redis error: it reports, backs off and goes on. The blocking
        // connection is dropped too and made anew, in case it was the one that broke.
        this.enter('waiting');
        await this.idle.reset();
        await this.alarm.sleep(Math.min(5000, 50 * 2 ** this.failures) * (0.5 + Math.random() / 2));
        continue;
      }
      if (next) {
        // Fewer than asked for means nothing more is ready now: wait for a put or the next due time,
        // with the claim for the free slots sent behind the wait (pickup in one step: idle.ts).
        this.enter('waiting');
        try {
          // The Redis clock now: the reply's, plus what passed here since it came (its tasks
          // started, acks queued): a timer armed from the reply's alone would fire that much late.
          const now = next.now + (performance.now() - next.at);
          // Nothing held: the worker turns idle, and looks at the first busy worker's deadline.
          const watch = this.running.size === 0 && this.prefetch.length === 0 && !this.batching?.length ? await this.heartbeat.rest() : null;
          // The batch being formed goes at its wait's end, whatever else comes by then.
          const due = Math.min(next.nextDue ?? Infinity, watch ?? Infinity, now + (this.batching?.left() ?? Infinity));
          await this.idle.wait(now, Number.isFinite(due) ? due : null, free > 0 ? (via) => this.claim(free, [], via) : undefined);
        } catch (err) {
          // A broken blocking connection: reported, then backed off from like a failed call.
          this.report(err);
          this.failures++;
          this.next = { error: err };
        }
        continue;
      }
      const half = Math.ceil(this.opts.concurrency / 2);
      // A second call goes out while one is under way once half the slots are free (see TWO_CALLS_FROM).
      // Only while the last reply filled its slots: a worker woken for one task sends one call.
      const second = this.calls.size === 1 && this.backlog && !this.batching && this.opts.concurrency >= TWO_CALLS_FROM && free >= half;
      if ((this.calls.size > 0 && !second) || (free <= 0 && this.acks.length === 0)) {
        this.state = 'full';
        await this.alarm.sleep(Infinity);
        continue;
      }
      this.state = 'claiming';
      const slots = Math.max(0, this.opts.concurrency >= TWO_CALLS_FROM && !this.batching ? Math.min(free, half) : free);
      // Its reply wakes the loop once the call is off the list, so the loop sees it gone.
      const call = this.claim(slots, this.acks.take()).finally(() => {
        this.calls.delete(call);
        this.alarm.wake();
      });
      this.calls.add(call);
      // The next iteration may send a second call at once, or sleeps until this one's reply.
      await new Promise((resolve) => setImmediate(resolve));
    }
    // A call under way when close() came: its tasks run (or are handed back) like the others.
    await Promise.all(this.calls);
    this.enter('waiting');
    // A batch being formed never started: back to the queue.
    await this.batching?.handBack(this.ctx, (err) => this.report(err));
    const { ctx, queue, id: worker, running, acks, prefetch, heartbeat, idle, sandbox } = this;
    const held = { ctx, queue, worker, running, acks, prefetch, heartbeat, idle, sandbox, report: (err: unknown) => this.report(err) };
    await shutDown(held, this.closeStarted + this.shutdownMs);
    this.finish();
  }

  /**
   * One claim call for `slots` free slots (and prefetch beyond them), carrying `acks`. Its tasks
   * start (or wait, prefetched) as soon as the reply comes; what the loop does next is left in
   * `next`: wait idle when fewer came than there were slots, or back off after an error. `via`:
   * the claim an idle wait sends behind its BLPOP, whose tasks a closing worker hands back.
   */
  private async claim(slots: number, acks: PendingAck[], via?: Via): Promise<void> {
    // Read before the slots are reserved: they hold nothing yet.
    const heartbeat = slots > 0 ? this.heartbeat.claimArgs() : undefined;
    this.reserved += slots;
    let batch: ClaimBatch<unknown>;
    try {
      batch = await claimBatch(this.ctx, this.queue, slots > 0 ? slots + this.prefetch.extra() : 0, this.opts.lease, this.id, acks, this.worked, via, heartbeat);
    } catch (err) {
      this.reserved -= slots;
      // close() gave up on the claim behind an idle wait (a Redis that does not answer): expected.
      if (!(via && this.closing && err instanceof ClosedError)) this.report(err);
      this.acks.retry(acks, err);
      this.failures++;
      this.backlog = false;
      this.next = { error: err };
      return;
    }
    // The slots held for this call are free for its tasks: nothing else starts a task in them.
    this.reserved -= slots;
    const at = performance.now();
    observeClaims(this.ctx, this.queue, batch.now, batch.tasks);
    this.failures = 0;
    this.acks.settle(acks, batch.acked);
    this.heartbeat.claimed(heartbeat !== undefined, batch.tasks.length > 0, batch.schedules);
    // Woken by close() itself, most likely: what it leased goes back (drain() hands back prefetched tasks).
    const run = via && this.closing ? 0 : slots;
    // Its tasks' acks wait for the loop's next claim, as after any claim, rather than go alone.
    if (via && run > 0) this.state = 'claiming';
    if (this.batching && run > 0) for (const task of batch.tasks) this.batching.add(task, batch.now, at);
    else batch.tasks.forEach((task, i) => (i < run ? this.start(task, batch.now, at) : this.prefetch.keep(task, batch.now, at)));
    this.prefetch.hold();
    this.started = batch.tasks.length > 0;
    this.backlog = slots > 0 && batch.tasks.length >= slots;
    this.next = slots > 0 && batch.tasks.length < slots ? { now: batch.now, nextDue: batch.nextDue, at } : null;
  }

  private start(task: Task<unknown>, serverNow: number, at: number): void {
    this.executing++;
    void this.track(runOf(task, task.leaseUntil - serverNow - (performance.now() - at), this.opts.timeout));
  }

  /** Takes `run` down the worker's path, kept in `running` until it is through. */
  private track(run: Run): Promise<Outcome> {
    const going = this.path(run).finally(() => this.running.delete(going));
    this.running.set(going, run);
    return going;
  }

  private enter(state: LoopState): void {
    this.state = state;
    if (state === 'waiting' && this.acks.length > 0) void this.acks.flush();
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
