/**
 * work()'s and workBatch()'s contract as callers write it: their options, with their documentation
 * (defaults and bounds: domain/options/work.ts; option-types.test.ts checks that the two agree),
 * the handlers they run (a batch handler's tasks have `fail()` and their own `signal`), the Worker
 * and BatchWorker they return, and the Scheduler's calls that start workers. The loops are
 * lib/life/worker.ts and batch.ts.
 */
import type { DocketError } from './errors';
import type { Json } from './json';
import type { Task } from './task';
import type { Span } from './time';

/** Options of {@link Scheduler.work}. */
export interface WorkOptions {
  /** The queue to work. Default: the scheduler's `queue` option. */
  queue?: string;
  /**
   * Handlers run at once: a whole number, 1 to 1000. From 8 on, the worker keeps up to two claim
   * calls under way, each for half its slots, so Redis runs one while the handlers of the other's
   * tasks run; below 8, quick handlers get `prefetch` instead. Default: 1.
   */
  concurrency?: number;
  /**
   * Lease length, renewed automatically (every third of it) while a handler runs: a {@link Span}
   * longer than 0 ms, at most about 24 days (a timer counts it). Default: 30000 (30 s).
   */
  lease?: Span;
  /**
   * Overrides each task's maxAttempts when this worker fails it: a whole number, 1 to 1000. A lease
   * that runs out is judged by the task's own limit (the claim that finds it does not know this
   * option). Default: each task's own.
   */
  maxAttempts?: number;
  /**
   * `(attempt, error) => ms` to wait before retrying a task whose delivery number `attempt` failed
   * with `error`: what the handler threw, or the RunTimeoutError, a LeaseLostError ...; so a 429 may
   * wait longer than a 500. A {@link RetryLaterError}'s own time wins over it. It must return a finite
   * number, which is clamped to 0 to 100 years (a negative one counts as 0). If it throws or returns
   * anything else (NaN, Infinity, a string, ...), the worker reports a {@link ValidationError}
   * (`field: 'options.backoff'`) to `onError` and retries the task after `defaultBackoff(attempt)`
   * instead. Default: {@link defaultBackoff}, exponential with jitter, capped at 10 minutes.
   */
  backoff?: (attempt: number, error: unknown) => number;
  /**
   * An AbortSignal; aborting it closes the worker, as close() does (with `shutdownTimeout`). With a
   * signal that is already aborted, the worker never claims and never beats; its `closed` settles
   * after one Redis call (the leaving heartbeat, with ttl 0, that every close sends). Default: none.
   */
  signal?: AbortSignal;
  /**
   * Called with every error the worker recovered from, always as a {@link DocketError}: Redis errors
   * (TimeoutError, IndeterminateError, ConnectionError, OutOfMemoryError, ReadOnlyError,
   * PermissionError, RedisError, ...), including those of heartbeats and hand-backs; a
   * LeaseLostError when an ack or fail was refused; a ValidationError (`field: 'options.backoff'`)
   * when `backoff` threw or returned a non-finite number; an EventLoopBlockedError for a late
   * heartbeat (see `heartbeatDeadline`). Anything else that goes wrong inside the worker goes through
   * the same mapping as Redis errors, which normally makes it a RedisError with the original as
   * `cause`. docket logs nothing itself. An onError that throws is ignored. Default: none.
   */
  onError?: (err: DocketError) => void;
  /**
   * How long close() waits for in-flight handlers and their acks or fails before aborting them and
   * handing their tasks back: a {@link Span}, at most about 24 days (a timer counts it); 0 hands back
   * at once. `close({ timeout })` overrides it for one close. Default: 30000 (30 s).
   */
  shutdownTimeout?: Span;
  /**
   * true: close gracefully on SIGTERM and SIGINT, then let the signal take its usual course
   * (docs/api.md#signals-handlesignals). Default: false.
   */
  handleSignals?: boolean;
  /**
   * Keep the outcome of the tasks this worker leases (the handler's result, or the last error) this
   * long once they finish, for tasks whose put gave no keepResult (the put's wins): a {@link Span}
   * longer than 0 ms, at most 30 days. The task carries it from its lease on, so an outcome decided
   * without the worker (a lapsed lease that makes it dead) is kept too. Default: none, not kept.
   */
  keepResult?: Span;
  /**
   * How long one attempt may run, for tasks whose put gave no `timeout` (the put's wins): then the
   * handler's signal is aborted with a {@link RunTimeoutError} and the attempt fails. A {@link Span}
   * longer than 0 ms, at most about 24 days. See docs/api.md#run-timeouts. Default: none.
   */
  timeout?: Span;
  /**
   * true: the handler given to work() is a module (a path or a `file:` URL) run in a pool of up to
   * `concurrency` worker threads, so CPU work or a crash in it cannot stop the heartbeat or the
   * process. A value that is not a boolean is a {@link ValidationError} naming `options.sandbox`. See
   * docs/api.md#sandboxed-handlers. Default: false.
   */
  sandbox?: boolean;
  /**
   * How often the worker's heartbeat is sent: 100 ms to 60 s. A beat also looks for workers whose
   * heartbeat ran out and puts their tasks back at once. Default: 500 ms.
   */
  heartbeatInterval?: Span;
  /**
   * How old the worker's last heartbeat may be before other workers take it for dead and run its
   * tasks again: at least twice `heartbeatInterval`, at most 10 minutes. Longer tolerates handlers
   * that block the event loop longer, at the price of slower recovery after a crash
   * (docs/guarantees.md#recovery-time-after-a-worker-dies). A beat that fires half the deadline late
   * is reported to `onError` as an {@link EventLoopBlockedError}. Default: 2 s.
   */
  heartbeatDeadline?: Span;
  /**
   * Most tasks leased beyond the free slots while handlers are quick (return within 5 ms on average)
   * and `lease` is at least 1 s, so one round trip serves several tasks. They are handed back when
   * none has started for 25 ms, and on close(). A whole number, 0 to 100; 0 turns it off. See
   * docs/guarantees.md#the-promises (Prefetch stays within the lease). Default: 8 − concurrency (none
   * at 8 and more).
   */
  prefetch?: number;
}

/**
 * A handler: its resolved value (any JSON, or nothing) is the task's result. `signal` aborts when
 * the attempt must stop (its timeout, a lost lease, a cancel, the worker closing). A handler that
 * declares only the task (`async (task) => …`, one parameter) is called without it, so that none
 * is made: read `signal` by declaring it.
 */
export type Handler<T = Json, R = Json> = (task: Task<T>, signal: AbortSignal) => Promise<R | void | undefined>;

/** Handlers by task name; `'*'` takes every task whose name has none of its own. */
export type Handlers<T = Json, R = Json> = Readonly<Record<string, Handler<T, R>>>;

/** The calls that start workers in this process. Part of {@link Scheduler}. */
export interface SchedulerWorkers {
  /**
   * Runs a handler module (a path, relative to the working directory, or a file URL; its default
   * export or module.exports: a handler, or handlers by name) in worker threads; see sandbox.ts.
   */
  work(module: string | URL, options: WorkOptions & { sandbox: true }): Worker;
  /** Runs each task by the handler of its name (`'*'` for any other); see Handlers. */
  work<T = Json>(handlers: Handlers<T>, options?: WorkOptions): Worker;
  /** Starts a {@link Worker} that claims the queue's tasks and runs `handler` on each, up to `concurrency` at once, with heartbeats: it acks when the handler resolves and fails the attempt when it throws. Throws a ClosedError after close(). */
  work<T = Json>(handler: Handler<T>, options?: WorkOptions): Worker;
  /**
   * Runs the tasks of a queue in batches: `handler` gets up to `size` tasks at once (waiting at
   * most `wait` for a batch to fill once it has one), all leased, their leases kept alive together,
   * up to `concurrency` batches at once. It resolves to `undefined` or to one result per task (in
   * order) to ack them all, throws to fail them all, or fails single tasks with `task.fail(error)`.
   * Each task keeps the rules of a single one: fencing, run timeouts (the batch's is its tasks'
   * shortest), keepResult, endings, snooze, cancel, and the queue's limits counted per task. It
   * takes tasks of any name. Returns a worker to close(), as work() does.
   */
  workBatch<T = Json, R = Json>(handler: BatchHandler<T, R>, options?: BatchOptions): BatchWorker;
}

/** A worker started by {@link Scheduler.work}: it claims its queue's tasks and runs a handler on each, with heartbeats, until close(). */
export interface Worker {
  /** Names this worker as a lease holder and in the queue's heartbeat set (`host:pid:random`); shown as `TaskInfo.worker`. */
  readonly id: string;
  /** A Promise that settles once the worker has closed (close() has finished). */
  readonly closed: Promise<void>;
  /**
   * Stops claiming and waits for in-flight handlers and their acks, up to `timeout` (default: the
   * worker's shutdownTimeout). Handlers still running then have their signal aborted and their
   * tasks handed back to the queue (un-leased, the delivery not counted), so nothing waits for a
   * lease to run out. Then the worker leaves the heartbeat set and drops its connection.
   */
  close(options?: { timeout?: Span }): Promise<void>;
}

/** Options of {@link Scheduler.workBatch}: work()'s, less `concurrency`, `sandbox` and `prefetch`, plus the batch's own. */
export interface BatchOptions extends Omit<WorkOptions, 'concurrency' | 'sandbox' | 'prefetch'> {
  /** The most tasks one batch holds: 1 to 1000. Default 10. */
  size?: number;
  /**
   * How long a batch that has its first task waits for more, up to `size`, before its handler runs
   * (ms or a Duration): at most half the lease, since the tasks' leases run from their claim.
   * Default 0: a batch is what is ready at once.
   */
  wait?: Span;
  /**
   * Batches run at once, 1 to 1000 (each up to `size` tasks, each task counted by the queue's
   * limits). Default 1.
   */
  concurrency?: number;
}

/** A task as a batch handler gets it: a leased Task, with what a batch adds. */
export interface BatchTask<T = Json> extends Task<T> {
  /**
   * Fails this task alone once the handler ends (whatever it resolves to or throws), with `error`
   * as a handler's throw would: the worker's back-off, and an UnrecoverableError or RetryLaterError
   * ends it as they do. The batch's other tasks are acked (or fail with the handler's throw).
   * Called after the handler ended, it does nothing.
   */
  fail(error?: unknown): void;
  /**
   * Aborted when this task's attempt is over for the worker: its lease lost (LeaseLostError), it
   * was cancelled while it ran (CancelledError), the batch's run timeout (RunTimeoutError), or
   * close() handing it back (ClosedError). Made when first read, as every task's. The handler's own
   * `signal` aborts once every task's has.
   */
  readonly signal: AbortSignal;
}

/**
 * A batch handler. It gets up to `size` tasks and resolves to `undefined` (every task acked, no
 * result) or to an array of exactly one result per task, in the order of `tasks` (each kept as its
 * task's result, `undefined` for none); anything else fails the whole batch with a ValidationError.
 * A throw fails every task of the batch; `task.fail(error)` fails one.
 */
export type BatchHandler<T = Json, R = Json> = (tasks: BatchTask<T>[], signal: AbortSignal) => Promise<ReadonlyArray<R | undefined> | void | undefined>;

/** A worker started by {@link Scheduler.workBatch}: it claims its queue's tasks in batches and runs a batch handler on each, until close(). */
export interface BatchWorker {
  /** Names this worker as a lease holder: host:pid:random. */
  readonly id: string;
  /** Settles once close() has finished. */
  readonly closed: Promise<void>;
  /** The queue it works. */
  readonly queue: string;
  /** As a work() worker's close(): stops gathering, waits for the batches in flight up to `timeout`, then hands back what still runs. */
  close(options?: { timeout?: Span }): Promise<void>;
}
