/**
 * work()'s options as callers write them, with their documentation: the worker's contract, read
 * on its own by whoever tunes a worker (its defaults and bounds are in domain/options/work.ts, and
 * option-types.test.ts checks that the two agree). Apart from worker.ts so that the loop's
 * module is the loop.
 */
import type { DocketError } from '../domain/errors';
import type { Span } from '../domain/time';

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
