/**
 * A worker loop: claims tasks and runs up to `concurrency` of them at once, each through the
 * worker pipeline (pipeline/: its timeout, lease keep-alive, metrics, progress and logs, and its
 * ack or fail). While handlers are quick it leases a few tasks ahead (prefetch), so one round trip
 * serves several. An idle worker does not poll: it blocks on its own connection until a put wakes
 * it or its own timer, armed for the next run-at on the Redis clock, ends the wait.
 *
 * One concept over 300 lines: the worker loop. Claiming, prefetch, running and shutdown share its
 * state (slots, buffered tasks, pending acks, runs in flight), so splitting them would pass that
 * state around.
 */
import { performance } from 'node:perf_hooks';
import { newWorkerId, type Context } from '../redis/context';
import { ClosedError, fromRedisError, ValidationError, type DocketError } from '../domain/errors';
import type { QueueKeys } from '../domain/keys';
import { claimBatch, release, type ClaimBatch, type Worked } from './lease';
import { Heartbeat } from './heartbeat';
import { IdleWait } from './idle';
import { errorFields } from '../domain/log';
import { observeClaims } from '../features/metrics';
import { closeOptions, parse, workOptions, type ParsedWorkOptions } from '../domain/options';
import { closeOnSignals } from './signals';
import { stopProgress } from './progress';
import type { Handler } from './route';
import type { Sandbox } from '../features/sandbox';
import type { Via } from '../redis/scripts';
import { stopLogs } from './logs';
import type { Task } from '../domain/task';
import type { Span } from '../domain/time';
import { Acks, pipeline, runOf, type Host, type Outcome, type PendingAck, type Run } from './pipeline';

export interface WorkOptions {
  queue?: string;
  /** Handlers run at once. Default 1. */
  concurrency?: number;
  /** Lease length; renewed automatically while a handler runs. Default 30 s. */
  lease?: Span;
  /** Overrides each task's maxAttempts when this worker fails it. */
  maxAttempts?: number;
  /** ms to wait before retry number `attempt`. Default: exponential with jitter, capped at 10 min. */
  backoff?: (attempt: number) => number;
  /** Aborting it closes the worker. */
  signal?: AbortSignal;
  /** Called with errors the worker recovered from (Redis errors, lost leases), each a DocketError. */
  onError?: (err: DocketError) => void;
  /** How long close() waits for in-flight handlers before handing their tasks back. Default 30 s. */
  shutdownTimeout?: Span;
  /** Close gracefully on SIGTERM and SIGINT (then the signal takes its usual course). Default false. */
  handleSignals?: boolean;
  /**
   * Keep the outcome of the tasks this worker finishes (its handler's result, or the last error)
   * this long, for tasks whose put gave no keepResult; at most 30 days. Default: not kept.
   */
  keepResult?: Span;
  /**
   * How long one attempt may run, for tasks whose put gave no `timeout` (the put's wins): then the
   * handler's signal is aborted with a RunTimeoutError and the attempt fails. Default none.
   */
  timeout?: Span;
  /**
   * Run the handler module given to work() (a path or file URL) in a pool of up to `concurrency`
   * worker threads, so CPU work or a crash in it cannot stop the heartbeat or the process. Default false.
   */
  sandbox?: boolean;
  /**
   * How often the worker's heartbeat is sent: 100 ms to 60 s. Default 500 ms. A beat also looks for
   * workers whose heartbeat ran out and puts their tasks back at once.
   */
  heartbeatInterval?: Span;
  /**
   * How old the worker's last heartbeat may be before other workers take it for dead and run its
   * tasks again: at least twice heartbeatInterval, at most 10 minutes. Default 2 s. Longer tolerates
   * handlers that block the event loop longer (reported to onError as EventLoopBlockedError from
   * half of it), at the price of slower recovery after a crash; see docs/guarantees.md.
   */
  heartbeatDeadline?: Span;
  /**
   * Most tasks leased beyond the free slots while handlers are quick (see docs/guarantees.md,
   * Prefetch): 0 to 100. Default 8 − concurrency (none at 8 and more). Prefetch is on only while
   * the lease is at least 1 s and handlers return within 5 ms on average.
   */
  prefetch?: number;
}

/**
 * What the loop is doing, which decides how a finished task's ack goes out: `claiming` means the
 * next claim call takes it along; `full` means the loop sleeps until a slot frees, so the ack wakes
 * it and goes with the claim of the next task; `waiting` (idle, backing off, closing) means no
 * claim is coming soon, so the ack is sent on its own.
 */
type LoopState = 'claiming' | 'full' | 'waiting';

/**
 * Prefetch: a worker whose handlers are quick leases a few tasks beyond its free slots, so one
 * round trip serves several tasks. Their leases start at the claim (on the Redis clock, as every
 * lease), not when their handler starts: a lease that began later would need a call of its own or
 * the client's clock. What keeps a prefetched task within its lease is that it waits little: only
 * while handlers run under PREFETCH_QUICK_MS on average, at most PREFETCH_HOLD_MS without one of
 * them starting (then the rest are handed back), and only with a lease of PREFETCH_MIN_LEASE_MS or
 * more, well above the longest wait (PREFETCH_HOLD_MS times the most a worker prefetches).
 */
const PREFETCH_TOTAL = 8;
const PREFETCH_QUICK_MS = 5;
const PREFETCH_HOLD_MS = 25;
const PREFETCH_MIN_LEASE_MS = 1000;

/**
 * From this concurrency on, a worker keeps up to two claim calls under way, each for up to half its
 * slots: while Redis runs one, the handlers of the other's tasks run, instead of the two taking
 * turns. Below it a call for every free slot is worth more (prefetch covers low concurrency).
 */
const TWO_CALLS_FROM = 8;

/** A prefetched task: leased, waiting for a slot. */
interface Buffered {
  task: Task<unknown>;
  /** The Redis clock when it was leased, and performance.now() when the reply came. */
  serverNow: number;
  at: number;
}

export class Worker {
  /** Names this worker as a lease holder: host:pid:random. */
  readonly id = newWorkerId();
  /** Settles once close() has finished. */
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
  /** Prefetched tasks, oldest first. */
  private readonly buffered: Buffered[] = [];
  /** Hands the prefetched tasks back when none has started for PREFETCH_HOLD_MS. */
  private holdTimer: NodeJS.Timeout | null = null;
  /** Prefetched tasks being handed back, so close() can wait for it. */
  private handingBack: Promise<void> = Promise.resolve();
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
  /** Handler run time in ms, smoothed; Infinity until one has run, so the first claim takes no more than it can start. */
  private runMs = Infinity;
  private state: LoopState = 'waiting';
  private readonly heartbeat: Heartbeat;
  /** How long close() waits for in-flight handlers before handing their tasks back. */
  private shutdownMs: number;
  private closing = false;
  /** When close() was first called (performance.now()): the shutdown timeout runs from here. */
  private closeStarted = 0;
  private wakeLoop: (() => void) | null = null;
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
    this.heartbeat = new Heartbeat(ctx, this.keys, this.id, report, { interval: this.opts.heartbeatInterval, deadline: this.opts.heartbeatDeadline });
    this.idle = new IdleWait(ctx, this.keys, report);
    this.acks = new Acks(
      (acks) => claimBatch(ctx, this.queue, 0, this.opts.lease, this.id, acks),
      () => this.state === 'waiting',
      report,
    );
    this.path = pipeline(this.host(report), handler);
    const onAbort = () => void this.close();
    this.opts.signal?.addEventListener('abort', onAbort, { once: true });
    // The caller's signal may outlive the worker: it keeps no listener (nor the worker) once closed.
    void this.closed.then(() => this.opts.signal?.removeEventListener('abort', onAbort));
    if (this.opts.handleSignals) closeOnSignals(this);
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
      this.wake();
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
      ran: (ms) => (this.runMs = this.runMs === Infinity ? ms : 0.8 * this.runMs + 0.2 * ms),
      free: () => {
        this.executing--;
        if (this.state === 'full') this.wake();
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
      if (this.buffered.length > 0) {
        // Prefetched tasks go first; acks wait for the claim that follows them (a few tasks later).
        if (free > 0) {
          for (const b of this.buffered.splice(0, free)) this.start(b.task, b.serverNow, b.at);
          this.hold();
          await new Promise((resolve) => setImmediate(resolve));
        } else {
          this.state = 'full';
          await this.sleep(Infinity);
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
        await this.sleep(Math.min(5000, 50 * 2 ** this.failures) * (0.5 + Math.random() / 2));
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
        await this.sleep(Infinity);
        continue;
      }
      this.state = 'claiming';
      const slots = Math.max(0, this.opts.concurrency >= TWO_CALLS_FROM ? Math.min(free, half) : free);
      // Its reply wakes the loop once the call is off the list, so the loop sees it gone.
      const call = this.claim(slots, this.acks.take()).finally(() => {
        this.calls.delete(call);
        this.wake();
      });
      this.calls.add(call);
      // The next iteration may send a second call at once, or sleeps until this one's reply.
      await new Promise((resolve) => setImmediate(resolve));
    }
    // A call under way when close() came: its tasks run (or are handed back) like the others.
    await Promise.all(this.calls);
    this.enter('waiting');
    await this.drain();
    // Threads of handlers close() gave up on are terminated; the rest ended with their runs.
    await this.sandbox?.close();
    await this.idle.reset();
    this.ctx.log.info({ queue: this.queue, worker: this.id }, 'docket: worker closed');
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
      batch = await claimBatch(this.ctx, this.queue, slots > 0 ? slots + this.prefetch() : 0, this.opts.lease, this.id, acks, this.worked, via);
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
    // Woken by close() itself, most likely: what it leased goes back (drain() hands back the buffer).
    const run = via && this.closing ? 0 : slots;
    // Its tasks' acks wait for the loop's next claim, as after any claim, rather than go alone.
    if (via && run > 0) this.state = 'claiming';
    batch.tasks.forEach((task, i) => (i < run ? this.start(task, batch.now, at) : this.buffered.push({ task, serverNow: batch.now, at })));
    this.hold();
    this.started = batch.tasks.length > 0;
    this.backlog = slots > 0 && batch.tasks.length >= slots;
    this.next = slots > 0 && batch.tasks.length < slots ? { now: batch.now, nextDue: batch.nextDue, at } : null;
  }

  /**
   * Waits for in-flight handlers until the shutdown timeout (counted from close()), then hands
   * back what is left, and leaves the heartbeat set. What follows the timeout is one round of calls
   * in parallel, each within commandTimeout, so close() settles within shutdownTimeout (or, if
   * longer, the claim call close() came in on) plus one commandTimeout, whatever Redis does.
   */
  private async drain(): Promise<void> {
    // Prefetched tasks never started: they go back at once, for other workers to take.
    this.handBack();
    let timer: NodeJS.Timeout | undefined;
    const left = Math.max(0, this.closeStarted + this.shutdownMs - performance.now());
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), left)));
    const outcome = await Promise.race([Promise.all(this.running.keys()), late]);
    clearTimeout(timer);
    const giveUp = outcome === 'late' ? this.abandon() : [];
    await Promise.all([...giveUp, this.handingBack, this.heartbeat.stop()]);
  }

  /**
   * Hands back the tasks of handlers still running (their signal aborted, their lease extension
   * stopped), and stops retrying acks: a task whose ack is lost is delivered again once its lease
   * lapses. Returns the calls still under way.
   */
  private abandon(): Array<Promise<unknown>> {
    this.acks.abandon();
    const releases = [...this.running.values()]
      .filter((run) => !run.done)
      .map(async (run) => {
        run.released = true;
        run.stopLease();
        stopProgress(run.task);
        stopLogs(run.task);
        run.controller.abort(new ClosedError('worker'));
        await release(this.ctx, run.task).catch((err: unknown) => this.report(err));
      });
    // Handlers that did finish have their ack or fail call under way: one call each, at most.
    const finishing = [...this.running].filter(([, run]) => run.done).map(([going]) => going);
    return [...releases, ...finishing, this.acks.sent()];
  }

  /** How many tasks to lease beyond the free slots now (see PREFETCH_TOTAL). */
  private prefetch(): number {
    const most = this.opts.prefetch ?? Math.max(0, PREFETCH_TOTAL - this.opts.concurrency);
    return this.runMs <= PREFETCH_QUICK_MS && this.opts.lease >= PREFETCH_MIN_LEASE_MS ? most : 0;
  }

  /** (Re-)arms the hold timer while tasks are prefetched: a slow handler turns prefetch off. */
  private hold(): void {
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = this.buffered.length > 0 ? setTimeout(() => this.handBack(), PREFETCH_HOLD_MS) : null;
  }

  /** Hands every prefetched task back to the queue (the delivery not counted), last first so they keep their order. */
  private handBack(): void {
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = null;
    const back = this.buffered.splice(0).reverse();
    if (back.length === 0) return;
    // Until a handler shows it is quick again.
    this.runMs = Math.max(this.runMs, PREFETCH_HOLD_MS);
    // The loop may sleep with acks that waited for the claim after these tasks: they go now.
    this.wake();
    // Sent together, last first: one connection runs them in the order sent, so the first ends up
    // at the head again, and close() waits one commandTimeout for all of them, not one each.
    const sent = back.map(({ task }) => release(this.ctx, task).catch((err: unknown) => this.report(err)));
    this.handingBack = Promise.all([this.handingBack, ...sent]).then(() => {});
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

  /** Resolves after `ms`, or sooner when a slot frees or the worker closes. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = Number.isFinite(ms) ? setTimeout(() => this.wake(), ms) : null;
      this.wakeLoop = () => {
        if (timer) clearTimeout(timer);
        this.wakeLoop = null;
        resolve();
      };
    });
  }

  private wake(): void {
    this.wakeLoop?.();
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
