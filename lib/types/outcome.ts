/**
 * What docket knows of a task once it is put: how its latest failed attempt ended, its outcome as
 * result() reads it (live, done, dead, ended or merged), result()'s options, and the tasks it was
 * put after with their outcomes.
 */
import type { Json } from './json';
import type { Span } from './time';

/** Options of {@link Scheduler.dependencies}. */
export interface DependenciesOptions {
  /** The queue of the task. Default: the scheduler's `queue` option. */
  queue?: string;
  /** Read only the first this many (in put order), each one more outcome read. Default: all. */
  limit?: number;
}

/** A task a put waits on: its hash in the same queue, or `{ queue, hash }` in another. */
export type DependencyRef =
  | string
  | {
      /** The queue of the task waited on. */
      queue: string;
      /** Its hash, as put() returned it. */
      hash: string;
    };

/** What a task that failed does to the tasks waiting on it (see docs/api.md). */
export type DependencyFailure = 'dead' | 'run' | 'cancel';

/** One task that a task waited on, with its outcome (null once no outcome of it is kept). */
export interface Dependency<R = Json> {
  /** The queue of the task waited on. */
  queue: string;
  /** Its hash. */
  hash: string;
  /** Its outcome as {@link Scheduler.result} reads it (a finished one's result only when it kept one); null once nothing of it is kept. */
  outcome: TaskOutcome<R> | null;
}

interface OutcomeBase {
  /** The task's hash. */
  readonly hash: string;
  /** Its queue. */
  readonly queue: string;
  /** Deliveries so far (for a finished task: the deliveries it took). */
  readonly attempts: number;
  /**
   * Present (true) when its result or progress is encrypted with a key this scheduler does not
   * have (options.encryption): that reads as null. Absent otherwise.
   */
  readonly encrypted?: true;
}

/** A task that has not finished: waiting (delayed or ready) or leased. */
export interface LiveOutcome extends OutcomeBase {
  /** `pending` (delayed, ready or waiting) or `active` (leased). */
  readonly state: 'pending' | 'active';
  /** Its run-at, epoch ms on the Redis clock. */
  readonly runAt: number;
  /** The latest progress its handler reported, else null. */
  readonly progress: Json | null;
}

/** A task whose handler succeeded. */
export interface DoneOutcome<R = Json> extends OutcomeBase {
  /** It finished: its handler succeeded. */
  readonly state: 'done';
  /** The handler's resolved value; null when it resolved with nothing, or the result was not kept. */
  readonly result: R | null;
  /** When it finished: epoch ms on the Redis clock. */
  readonly finishedAt: number;
}

/** A task that used up its attempts. */
export interface DeadOutcome extends OutcomeBase {
  /** It finished dead. */
  readonly state: 'dead';
  /** The last failure (a handler's error, or 'lease expired'). */
  readonly error: string | null;
  /** How its last attempt ended: `failed` (out of attempts), `unrecoverable` or `retry-later` (see Ending). */
  readonly ending: Exclude<Ending, 'snoozed'>;
  /** When it went dead: epoch ms on the Redis clock. */
  readonly finishedAt: number;
}

/** A task dropped unclaimed once its expiry passed, or cancelled before it ran. */
export interface EndedOutcome extends OutcomeBase {
  /** `expired` (its expiry passed before a claim) or `cancelled`. */
  readonly state: 'expired' | 'cancelled';
  /** When it expired or was cancelled: epoch ms on the Redis clock. */
  readonly finishedAt: number;
}

/**
 * An until-start task that failed while a task of its identity already waited (put while it ran):
 * it was not retried, since that task does the same work.
 */
export interface MergedOutcome extends OutcomeBase {
  /** It finished merged into another task. */
  readonly state: 'merged';
  /** The hash of the waiting task it was merged into. */
  readonly into: string;
  /** When it was merged: epoch ms on the Redis clock. */
  readonly finishedAt: number;
}

/** What {@link Scheduler.result} reports of a task, by `state`: live, or finished with its kept outcome. */
export type TaskOutcome<R = Json> = LiveOutcome | DoneOutcome<R> | DeadOutcome | EndedOutcome | MergedOutcome;

/** The options of {@link Scheduler.result} (and {@link Sharded.result}, without `queue`). */
export interface ResultOptions {
  /** The queue of the task. Default: the scheduler's `queue` option. */
  queue?: string;
  /**
   * Wait this long for the task to finish (ms or a Duration; at most 24 days, what one timer counts).
   * Default: 0, answer at once.
   */
  wait?: Span;
}

/**
 * How a task's latest attempt that did not succeed ended: `failed` (the handler threw, timed out or
 * its lease lapsed: retried after the back-off, or dead once out of attempts), `unrecoverable` (it
 * threw an UnrecoverableError: dead at once), `retry-later` (it threw a RetryLaterError: retried at
 * the time it gave, or dead at its last attempt), `snoozed` (it called `task.snooze()`: delayed,
 * the attempt not counted).
 */
export type Ending = 'failed' | 'unrecoverable' | 'retry-later' | 'snoozed';
