/**
 * Claiming tasks directly, for a caller that runs its own loop instead of work(): claim()'s and
 * fail()'s options, and the Scheduler's calls that claim, report on, ack and fail a task.
 */
import type { Json } from './json';
import type { Task } from './task';
import type { Span } from './time';

/** Options of {@link Scheduler.claim} and {@link Scheduler.claimMany}. */
export interface ClaimOptions {
  /** The queue to claim from. Default: the scheduler's `queue` option. */
  queue?: string;
  /**
   * How long the lease lasts: the task is delivered again if it is not acked, failed or extended by
   * then. A {@link Span} longer than 0 ms. Default: 30000 (30 s).
   */
  lease?: Span;
}

/** Options of {@link Scheduler.fail}. */
export interface FailOptions {
  /**
   * The failure, recorded as the task's last error (`TaskInfo.lastError`). An
   * {@link UnrecoverableError} makes the task dead at once (`'dead'`, whatever attempts are left); a
   * {@link RetryLaterError}'s `delay` or `at` wins over `retryIn` (as when a handler throws them).
   * An Error is kept as its stack (or `name: message`), anything else via String(), cut to 2000
   * characters. Default: none, recorded as `'failed'`.
   */
  error?: unknown;
  /**
   * How long to wait before the retry, from the Redis server's now: a {@link Span}; 0 is allowed (the
   * task goes straight back to the tail of its level's ready list). Default:
   * {@link defaultBackoff}(task.attempt).
   */
  retryIn?: Span;
  /**
   * Overrides the task's limit for this decision only: a whole number, 1 to 1000. Default: the task's
   * own maxAttempts.
   */
  maxAttempts?: number;
}

/** The calls of a caller that runs its own loop instead of work(): claim tasks, report on them, ack or fail each. Part of {@link Scheduler}. */
export interface SchedulerClaims {
  /** Leases the next ready task for {@link ClaimOptions.lease} (default 30 s), or resolves to null when none is ready. A task claimed directly has no heartbeat: if this process dies, it comes back only when its lease runs out. Pass it to ack(), fail() or extend(). */
  claim<T = Json>(options?: ClaimOptions): Promise<Task<T> | null>;
  /** Leases up to `count` ready tasks (a whole number, 1-1000) in one script call, as claim() does; it may return fewer, or none. */
  claimMany<T = Json>(count: number, options?: ClaimOptions): Promise<Task<T>[]>;
  /**
   * Acks a claimed task: done. `result` (any JSON) is kept as its outcome when the task keeps one
   * (keepResult); a result that is not JSON or is over maxResultBytes is a typed error.
   */
  ack(task: Task<unknown>, result?: Json): Promise<boolean>;
  /**
   * Stores a claimed task's latest progress, fenced like ack (false once the lease is lost);
   * throttled to one write per task per 100 ms, the last value always written.
   */
  progress(task: Task<unknown>, value: Json): Promise<boolean>;
  /**
   * Appends a line to a claimed task's log, as `task.log(line)` does: fenced like ack (false once
   * the lease is lost), lines of one turn in one call. ack() and fail() wait for it.
   */
  log(task: Task<unknown>, line: string): Promise<boolean>;
  /** Records a failed attempt of a claimed task. `'retry'`: delivered again after `retryIn` (default {@link defaultBackoff}); `'dead'`: its attempts are used up (or the error is an {@link UnrecoverableError}), so it is kept as dead; `'merged'`: an `until-start` task deleted because a task of its identity waits already; `'lost'`: the lease was lost, nothing changed. Safe to repeat. */
  fail(task: Task<unknown>, options?: FailOptions): Promise<'retry' | 'dead' | 'merged' | 'lost'>;
  /** Sets a claimed task's lease deadline to the server's now + `by` (a {@link Span} over 0 ms) and updates `task.leaseUntil`: it sets, it does not add. False, changing nothing, once the lease is lost. */
  extend(task: Task<unknown>, by: Span): Promise<boolean>;
  /**
   * Ends a claimed task's attempt without counting it, as `task.snooze(span)` does: the task waits
   * `span` and its lease is released; false once the lease is lost (fenced like ack).
   */
  snooze(task: Task<unknown>, span: Span): Promise<boolean>;
}
