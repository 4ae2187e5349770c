/**
 * put()'s contract as callers write it: its options, with their documentation (what a task can be
 * asked to be: its run-at, priority, identity, retries, what it waits on; defaults and bounds in
 * domain/options/task.ts, and option-types.test.ts checks that the two agree), what a put answers,
 * and the Scheduler's calls that put.
 */
import type { Json, JsonCompatible } from './json';
import type { DependencyFailure, DependencyRef } from './outcome';
import type { TaskKeep } from './task';
import type { Span } from './time';

/** Options of {@link Scheduler.put}: where, when and how a task runs, and how it is de-duplicated. */
export interface PutOptions {
  /** Queue to put the task into. De-duplication is per queue. Default: the scheduler's `queue`. */
  queue?: string;
  /**
   * Ahead of normal tasks: a level from 1 (lowest) to 9 (highest). The task is claimed before every
   * task of a lower level and every normal task, first in, first out within its level. `true` is
   * level 9, `false` or 0 a normal task; anything else (10, 'high') is a {@link ValidationError}.
   * See docs/api.md#priority-and-order. Default: false (a normal task).
   */
  priority?: boolean | number;
  /**
   * A fair-scheduling group, such as a customer id: 1 to 128 characters, no `|`, white space or
   * control characters. Claims take from a queue's groups in turn, one task per group per round, so
   * one group's backlog cannot hold up another's tasks. See docs/api.md#fair-groups. Default: none.
   */
  group?: string;
  /**
   * Run this long after this put() call, on the Redis server's clock, so the caller's clock does not
   * matter (the time the put waited in this process before it was sent is taken off): a
   * {@link Span} (`5000`, `{ minutes: 5 }`). Not together with `at` (a {@link ValidationError} with
   * `field: 'options.at'`). Default: 0, ready at once.
   */
  delay?: Span;
  /**
   * Absolute run-at: a Date or epoch milliseconds (>= 0, no later than the end of the year 4999: see
   * docs/api.md#limits-of-input), on your clock. A time in the past makes the task ready at once,
   * with that time as its run-at. Not together with `delay` (a {@link ValidationError} with
   * `field: 'options.at'`). Default: none.
   */
  at?: Date | number;
  /**
   * Drop the task if it is still unclaimed this long after its run-at: a {@link Span} longer than
   * 0 ms. See docs/api.md#expiry. Default: none, never dropped.
   */
  expire?: Span;
  /**
   * De-duplicate on this string instead of on the data: 1 to 1024 characters, well-formed Unicode
   * (no lone surrogate). Two puts with the same key are the same task even when their data differ.
   * See docs/api.md#de-duplication. Default: none.
   */
  key?: string;
  /** Deliveries before the task goes dead: a whole number, 1 to 1000. Default: 5. */
  maxAttempts?: number;
  /**
   * Keep the task's outcome this long once it finishes (done with its handler's result, dead with
   * its last error, expired or cancelled), for {@link Scheduler.result} to read: a {@link Span}
   * longer than 0 ms, at most 30 days. Without it, a done task is still read from the queue's history
   * (docs/api.md#history-keep-listdone-runagain) while that keeps it. Default: the worker's
   * `keepResult`, else nothing is kept.
   */
  keepResult?: Span;
  /**
   * What the queue keeps once THIS task finishes, instead of the queue's caps ({@link Scheduler.keep}),
   * like BullMQ's `removeOnComplete` and `removeOnFail`: `{ done?, dead? }`, each `false` or
   * `{ count?, age? }`.
   *
   * - `done: false` keeps it out of the history (docs/api.md#history-keep-listdone-runagain).
   *   `done: { count?, age? }` keeps it, even when the queue's history is off, and the trim of its
   *   finish uses these caps instead of the queue's (a cap left out is the queue's; a count left out
   *   on a queue whose history is off is the default 1,000).
   * - `dead: false` keeps it not at all once it goes dead (out of attempts, an unrecoverable error, a
   *   lapsed last lease): its records go at once, its kept outcome (`keepResult`) and its dependents'
   *   steps as for any death. `dead: { count?, age? }` trims the dead set by these caps when it dies
   *   (at most 3 entries that call; claims trim the rest by the queue's caps).
   *
   * Stored with the task only when given (a put without it costs nothing more); `get()` shows it,
   * `runAgain()` repeats it. A bad cap is a {@link ValidationError} naming it
   * (`options.keep.done.count`). Default: the queue's caps.
   */
  keep?: TaskKeep;
  /**
   * How long the identity is taken: `'until-done'` while the task lives; `'until-start'` until a
   * worker leases it, so a put of the same data while it runs adds a new task, and puts while that
   * one waits are its duplicates: at most one waiting ("refresh this cache, at most once more"). See
   * docs/api.md#de-dup-modes. Default: `'until-done'`.
   */
  unique?: 'until-done' | 'until-start';
  /**
   * Keep the identity taken this long after this put, even after the task is done, cancelled,
   * expired or dead (SQS's de-dup window; BullMQ's throttle): a {@link Span} longer than 0 ms, at
   * most 30 days. A put within the window is a duplicate of the original hash whatever became of it:
   * it neither adds nor revives, and its `runAt` is when the window ends, when the same put adds
   * again. Duplicate puts do not extend the window. See docs/api.md#de-dup-modes. Default: none.
   */
  dedupWindow?: Span;
  /**
   * What a duplicate put of a task that is still pending (delayed or ready) does: `'keep'` changes
   * nothing. `'replace'`: the task takes this put's options (priority, group, expire, maxAttempts,
   * unique; keepResult, timeout and keep when given) and, for a `key` identity, its data; its run-at
   * moves only when this put gives `delay` or `at`. `'debounce'`: as replace, and its run-at always
   * moves to this put's now + `delay` (or its `at`), so the task runs once puts have stopped for
   * `delay` ("save after the user stops typing"). The put's status is then `'replaced'`. A duplicate
   * of an active task is never replaced: it stays a duplicate (or, with `'until-start'`, adds the next
   * task). See docs/api.md#de-dup-modes. Default: `'keep'`.
   */
  onDuplicate?: 'keep' | 'replace' | 'debounce';
  /**
   * How long one attempt may run: then work() aborts the handler's signal with a
   * {@link RunTimeoutError} and fails the attempt (retried, or dead, like any failure). A
   * {@link Span} longer than 0 ms, at most about 24 days. Wins over work()'s `timeout`. See
   * docs/api.md#run-timeouts. Default: the worker's `timeout`, else none.
   */
  timeout?: Span;
  /**
   * What kind of task it is: 1 to 128 characters, no `|` or control characters.
   * `work({ [name]: handler })` routes by it (docs/api.md#handlers-by-task-name); get(), list(), the
   * task, events, metrics, the CLI and the dashboard show it. Part of the task's identity: the same
   * data under two names is two tasks. Default: none.
   */
  name?: string;
  /**
   * Tasks this one waits on: each a hash of the same queue, or `{ queue, hash }` of another queue
   * that has had a task put (else a {@link ValidationError} naming `options.after[i].queue`: a typo
   * would wait forever); at most 10,000, none of them itself. The task waits (state 'waiting')
   * until each is done, then is queued as usual (ready, or delayed until its run-at). One no longer
   * there counts as done, unless its kept outcome says it failed. Ignored by a put that is a
   * duplicate. See docs/api.md#dependencies-after-dependencies. Default: none.
   */
  after?: DependencyRef[];
  /**
   * What the task does when one it waits on fails (goes dead, expires or is cancelled): `'dead'`
   * makes this task dead, its last error naming the failed one; `'cancel'` cancels it; `'run'`
   * counts the failed one as settled, so the task runs once the others are done. Default: `'dead'`.
   */
  onDependencyFailure?: DependencyFailure;
}

/**
 * What a put did: `added`, a new task; `duplicate`, a live task with the same identity was there, or
 * one was put within its `dedupWindow` (a result, not an error; nothing changed); `revived`, a dead
 * task with the same identity was stored afresh with this put's options, its attempts reset and its
 * last error cleared; `replaced`, a pending task with the same identity took this put's options
 * (onDuplicate `'replace'` or `'debounce'`).
 */
export type PutStatus = 'added' | 'duplicate' | 'replaced' | 'revived';

/** What {@link Scheduler.put} resolves to, one per item for putMany(). */
export interface PutResult {
  /**
   * The task's id, the same for every put of the same data (or key) while the task lives: pass it to
   * get(), cancel() and reschedule(). Treat it as an opaque string: normally 32 hex characters, with
   * a `-1`, `-2`, ... suffix in the rare case of a hash collision.
   */
  hash: string;
  /**
   * true when this call stored the task (new, or a dead task revived); false when a live task with
   * the same identity was already there (`duplicate` or `replaced`), or a `dedupWindow` held the
   * identity: a duplicate is a result, not an error.
   */
  added: boolean;
  /** What this put did; `added` is true for `added` and `revived`. */
  status: PutStatus;
  /** The queue the task is in. */
  queue: string;
  /**
   * Run-at in epoch ms on the Redis clock. For a duplicate, the existing task's run-at (or, for a
   * duplicate within a `dedupWindow` whose task is gone, when the window ends); for a replaced task,
   * its new run-at.
   */
  runAt: number;
}

/** The calls that put tasks: {@link Scheduler.put} and {@link Scheduler.putMany}. Part of {@link Scheduler}. */
export interface SchedulerPuts {
  /** Puts a task: `data` (any JSON, at most `maxPayloadBytes`) with its {@link PutOptions}. Resolves to a {@link PutResult} whose `added` is false when a live task of the same identity exists (a duplicate is a result, not an error). */
  put(data: Json, options?: PutOptions): Promise<PutResult>;
  /**
   * Puts data of any type that is JSON as far as TypeScript can tell (JsonCompatible), an
   * `interface` included, which `Json` refuses for want of an index signature. The first form
   * stays for code generic over `Json`, which the check cannot see into.
   */
  put<T>(data: T & JsonCompatible<T>, options?: PutOptions): Promise<PutResult>;
  /** Puts many tasks in few calls (chunks of 250), each item as put() would; one {@link PutResult} per item, in order. The whole batch is validated before anything is written. */
  putMany(items: Array<{ data: Json; options?: PutOptions }>): Promise<PutResult[]>;
  /**
   * As put's second form. TypeScript infers one `T` for all items, and cannot from items of
   * several types: the first form takes those that are Json (`{ data: 1 }, { data: 'x' }`); when
   * they mix an interface with other types, give `T` (`putMany<Mail | Sms>(items)`).
   */
  putMany<T>(items: Array<{ data: T & JsonCompatible<T>; options?: PutOptions }>): Promise<PutResult[]>;
}
