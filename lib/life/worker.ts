/**
 * A worker loop: claims tasks and runs up to `concurrency` of them at once, each through the
 * worker pipeline (pipeline/: its timeout, lease keep-alive, metrics, progress and logs, and its
 * ack or fail). While handlers are quick it leases a few tasks ahead (prefetch), so one round trip
 * serves several. An idle worker does not poll: it blocks on its own connection until a put wakes
 * it or its own timer, armed for the next run-at on the Redis clock, ends the wait.
 *
 * One concept over 300 lines: the loop. What it holds apart has its own module: the tasks leased
 * ahead (prefetch.ts), what closes a worker and what it does then with its tasks (shutdown.ts), how
 * the loop sleeps (alarm.ts), work()'s options (work-options.ts).
 */
import { performance } from 'node:perf_hooks';
import { newWorkerId, type Context } from '../redis/context';
import { CancelledError, ClosedError, fromRedisError, ValidationError } from '../types/errors';
import type { QueueKeys } from '../domain/keys';
import { claimBatch, type ClaimBatch, type Worked } from './lease';
import { Heartbeat } from './heartbeat';
import { IdleWait } from './idle';
import { errorFields } from '../domain/log';
import { observeClaims } from '../features/metrics';
import { closeOptions, parse, workOptions, type ParsedWorkOptions } from '../domain/options';
import type { Sandbox } from '../features/sandbox';
import type { Via } from '../redis/scripts';
import type { Task } from '../types/task';
import type { Span } from '../types/time';
import { Alarm } from './alarm';
import { Acks, pipeline, runOf, type Host, type Outcome, type PendingAck, type Run } from './pipeline';
import { Prefetch } from './prefetch';
import { closeWhen, shutDown } from './shutdown';
import type { Handler, Worker as WorkerContract, WorkOptions } from '../types/work';

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

/** A worker started by {@link Scheduler.work}: it claims its queue's tasks and runs a handler on each, with heartbeats, until close(). */
export class Worker implements WorkerContract {
  /** Names this worker as a lease holder and in the queue's heartbeat set (`host:pid:random`); shown as `TaskInfo.worker`. */
  readonly id = newWorkerId();
  /** A Promise that settles once the worker has closed (close() has finished). */
  readonly closed: Promise<void>;
  private readonly opts: ParsedWorkOptions;
  private readonly worked: Worked;
  private readonly queue: string;
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
    handler: Handler<unknown>,
    options?: WorkOptions,
    /** The threads a sandboxed handler runs in (sandbox.ts); `handler` hands tasks to it. */
    private readonly sandbox?: Sandbox,
  ) {
    if (typeof handler !== 'function') throw new ValidationError('handler', 'expected a function');
    this.opts = parse(workOptions, options ?? {}, 'options');
    this.queue = this.opts.queue ?? ctx.options.queue;
    this.keys = ctx.keys(this.queue);
    this.shutdownMs = this.opts.shutdownTimeout;
    const report = (err: unknown) => this.report(err);
    // Its keepResult goes to the tasks it leases; a refused progress write is reported as a refused ack is.
    this.worked = { keep: this.opts.keepResult ?? 0, onProblem: report };
    this.closed = new Promise((resolve) => (this.finish = resolve));
    // Tasks a beat ended, cancelled while leased (cancel with `running`): their handlers stop, and
    // one still prefetched never starts (its signal, made after that beat, would never abort).
    const cancelled = (hashes: string[]) => {
      this.prefetch.drop(hashes);
      this.running.forEach((run) => hashes.includes(run.task.hash) && run.controller.abort(new CancelledError(run.task.hash)));
    };
    this.heartbeat = new Heartbeat(ctx, this.keys, this.id, report, { interval: this.opts.heartbeatInterval, deadline: this.opts.heartbeatDeadline }, cancelled);
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
    this.ctx.log.info({ queue: this.queue, worker: this.id, concurrency: this.opts.concurrency }, 'docket: worker started');
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

  /** What the pipeline's stages need of this worker. */
  private host(report: (err: unknown) => void): Host {
    return {
      ctx: this.ctx,
      queue: this.queue,
      worker: this.id,
      options: this.opts,
      report,
      ran: (ms) => this.prefetch.ran(ms),
      free: () => {
        this.executing--;
        if (this.state === 'full') this.alarm.wake();
      },
      ack: (task, result) => this.acks.soon(task, result),
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
      const free = this.opts.concurrency - this.executing - this.reserved;
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
          await this.idle.wait(now, next.nextDue, free > 0 ? (via) => this.claim(free, [], via) : undefined);
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
      const second = this.calls.size === 1 && this.backlog && this.opts.concurrency >= TWO_CALLS_FROM && free >= half;
      if ((this.calls.size > 0 && !second) || (free <= 0 && this.acks.length === 0)) {
        this.state = 'full';
        await this.alarm.sleep(Infinity);
        continue;
      }
      this.state = 'claiming';
      const slots = Math.max(0, this.opts.concurrency >= TWO_CALLS_FROM ? Math.min(free, half) : free);
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
    this.reserved += slots;
    let batch: ClaimBatch<unknown>;
    try {
      batch = await claimBatch(this.ctx, this.queue, slots > 0 ? slots + this.prefetch.extra() : 0, this.opts.lease, this.id, acks, this.worked, via);
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
    // Woken by close() itself, most likely: what it leased goes back (drain() hands back prefetched tasks).
    const run = via && this.closing ? 0 : slots;
    // Its tasks' acks wait for the loop's next claim, as after any claim, rather than go alone.
    if (via && run > 0) this.state = 'claiming';
    batch.tasks.forEach((task, i) => (i < run ? this.start(task, batch.now, at) : this.prefetch.keep(task, batch.now, at)));
    this.prefetch.hold();
    this.started = batch.tasks.length > 0;
    this.backlog = slots > 0 && batch.tasks.length >= slots;
    this.next = slots > 0 && batch.tasks.length < slots ? { now: batch.now, nextDue: batch.nextDue, at } : null;
  }

  private start(task: Task<unknown>, serverNow: number, at: number): void {
    const run = runOf(task, task.leaseUntil - serverNow - (performance.now() - at), this.opts.timeout);
    this.executing++;
    const going = this.path(run).finally(() => this.running.delete(going));
    this.running.set(going, run);
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
