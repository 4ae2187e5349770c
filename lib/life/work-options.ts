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
  /** Handlers run at once. Default 1. */
  concurrency?: number;
  /** Lease length; renewed automatically while a handler runs. Default 30 s. */
  lease?: Span;
  /**
   * Overrides each task's maxAttempts when this worker fails it: a whole number, 1-1000. Default: each
   * task's own. A lease that runs out is judged by the task's own limit (the claim that finds it does
   * not know this option).
   */
  maxAttempts?: number;
  /**
   * ms to wait before retry number `attempt`, given `error`, what the handler threw (or the
   * RunTimeoutError, a LeaseLostError ...): say, longer for a 429 than for a 500. Default:
   * exponential with jitter, capped at 10 min. A RetryLaterError's own time wins over it.
   */
  backoff?: (attempt: number, error: unknown) => number;
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
