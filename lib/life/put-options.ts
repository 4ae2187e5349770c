/**
 * put()'s options as callers write them, with their documentation: what a task can be asked to
 * be (its run-at, priority, identity, retries, what it waits on), read on its own by whoever puts
 * tasks (its defaults and bounds are in domain/options/task.ts, and option-types.test.ts checks
 * that the two agree). Apart from put.ts so that the put's module is the put.
 */
import type { DependencyFailure, DependencyRef } from '../features/deps';
import type { TaskKeep } from '../domain/kept';
import type { Span } from '../domain/time';

export type { TaskCaps, TaskKeep } from '../domain/kept';

/** Options of {@link Scheduler.put}: where, when and how a task runs, and how it is de-duplicated. */
export interface PutOptions {
  /** Queue to put into. Default: the scheduler's `queue`. */
  queue?: string;
  /**
   * Ahead of normal tasks: a level from 1 (lowest) to 9 (highest), FIFO within a level; `true` is
   * level 9, `false` or 0 a normal task. Default normal.
   */
  priority?: boolean | number;
  /**
   * A fair-scheduling group, such as a customer id: claims take from the groups of a queue in
   * turn, so one group's backlog cannot hold up another's tasks. Default none.
   */
  group?: string;
  /** Run this long after the Redis server's now: ms or a Duration ({ minutes: 5 }). Default 0. */
  delay?: Span;
  /** Absolute run-at (a Date or epoch ms). Not together with `delay`. */
  at?: Date | number;
  /** Drop the task if it is still unclaimed this long after it became due. Default: never. */
  expire?: Span;
  /** De-duplicate on this key instead of on the payload. */
  key?: string;
  /** Deliveries before the task goes dead. Default 5. */
  maxAttempts?: number;
  /**
   * Keep the task's outcome this long once it finishes (done with its result, dead with its last
   * error, expired or cancelled), for `result()` to read; at most 30 days. Default: the worker's
   * `keepResult`, else nothing is kept.
   */
  keepResult?: Span;
  /**
   * What the queue keeps once this task finishes, instead of the queue's caps (keep()): `{ done:
   * false }` keeps it out of the done history, `{ done: { count: 100, age: { hours: 1 } } }` trims
   * the history to those caps at its finish. Stored with the task only when given. Default: the
   * queue's.
   */
  keep?: TaskKeep;
  /**
   * How long the identity is taken: 'until-done' (default) while the task lives; 'until-start'
   * until a worker leases it, so a put of the same data while it runs adds a new task.
   */
  unique?: 'until-done' | 'until-start';
  /**
   * Keep the identity taken this long after this put, whatever becomes of the task (done,
   * cancelled, expired, dead): a put within it is a duplicate. At most 30 days. Default none.
   */
  dedupWindow?: Span;
  /**
   * What a duplicate put of a still-pending task does: 'keep' (default) changes nothing;
   * 'replace' gives it this put's options (and data, for a `key` identity), moving its run-at
   * only when this put gives delay or at; 'debounce' as replace, and its run-at moves to this
   * put's now + delay.
   */
  onDuplicate?: 'keep' | 'replace' | 'debounce';
  /**
   * How long one attempt may run: then work() aborts the handler's signal with a RunTimeoutError
   * and fails the attempt (retried, or dead, like any failure). Wins over work()'s `timeout`. At
   * most about 24 days. Default: the worker's, else none.
   */
  timeout?: Span;
  /**
   * What kind of task it is, for `work({ [name]: handler })` to route by, and for people reading
   * lists, events and metrics: 1–128 characters, no `|` or control characters. Part of the task's
   * identity: the same data under two names is two tasks. Default: none.
   */
  name?: string;
  /**
   * Tasks this one waits on: hashes of the same queue, or `{ queue, hash }` of another (at most
   * 10,000). The task waits (state 'waiting') until each is done, then is queued as usual (ready,
   * or delayed until its run-at). One no longer there counts as done, unless its kept outcome says
   * it failed. Ignored by a put that is a duplicate.
   */
  after?: DependencyRef[];
  /**
   * When a task it waits on fails (goes dead, expires or is cancelled): 'dead' (the default) makes
   * this task dead, its last error naming the failed one; 'cancel' cancels it; 'run' counts the
   * failed one as settled, so the task runs once the others are done.
   */
  onDependencyFailure?: DependencyFailure;
}
