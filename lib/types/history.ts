/**
 * What a queue keeps of its finished tasks: keep()'s options, dead tasks as listDead() reports
 * them, and the Scheduler's calls on done and dead tasks. (A task's own caps, put's `keep`, are
 * TaskKeep in task.ts.)
 */
import type { Json } from './json';
import type { ListOptions } from './lists';
import type { PutResult } from './put';
import type { QueueOption } from './queue';
import type { TaskInfo } from './task';
import type { Span } from './time';

/**
 * Options of {@link Scheduler.keep}: the caps of each kind of finished task a queue keeps. A kind
 * left out stays as it was; a bad option is a ValidationError naming it.
 */
export interface KeepOptions {
  /** The queue. Default: the scheduler's `queue`. */
  queue?: string;
  /**
   * The caps of the done history. Given `done`, a cap left out is the default (1,000; 24 h), so
   * `done: {}` turns the history back on with the defaults.
   */
  done?: {
    /** How many done runs are kept, each run of a task a row of its own (the oldest finishes beyond it go, in finish order even within one millisecond): 0 to 10,000,000; 0 turns the history off. */
    count?: number;
    /** How long each done task is kept: ms or a Duration, more than 0. */
    age?: Span;
  };
  /**
   * The caps of the dead set, over the scheduler's `deadMaxCount` and `deadMaxAge` (the caps until
   * set). A cap left out stays as it was.
   */
  dead?: {
    /** How many dead tasks are kept (the oldest deaths beyond it go; deaths in the same millisecond are ordered by hash): 0 to 10,000,000. */
    count?: number;
    /** How long each dead task is kept: ms or a Duration, more than 0. */
    age?: Span;
  };
}

/** A dead task, with when it died (epoch ms, Redis clock). */
export interface DeadTask<T = Json> extends TaskInfo<T> {
  /** When it died, epoch ms on the Redis clock. */
  readonly diedAt: number;
}

/** Options of {@link Scheduler.listDead}: a queue and a page, as {@link ListOptions}. */
export type ListDeadOptions = ListOptions;

/** The calls on what a queue keeps of its finished tasks: its done history and its dead tasks. Part of {@link Scheduler}. */
export interface SchedulerHistory {
  /**
   * Sets how many finished tasks a queue keeps, and how long, separately for done tasks (its
   * history: `list('done')`, `get`, `result`) and dead ones; a kind left out stays as it was.
   * Stored in Redis: every worker applies it from its next claim. `done: { count: 0 }` turns the
   * history off. Defaults: done 1,000 for 24 h; dead the scheduler's deadMaxCount and deadMaxAge.
   */
  keep(options: KeepOptions): Promise<void>;
  /**
   * Puts a done task's data and options again as a new task (what the dashboard's Run again does):
   * put()'s de-dup rules apply, and the PutResult's status says what the put did (`duplicate` while
   * a run of it is live). null when the queue keeps no done task of that hash.
   */
  runAgain(hash: string, options?: QueueOption): Promise<PutResult | null>;
  /** Dead tasks, most recent death first, with their last error and attempts. */
  listDead<T = Json>(options?: ListDeadOptions): Promise<DeadTask<T>[]>;
  /** Sends every dead task of a queue back to ready; returns how many. */
  redriveAll(options?: QueueOption): Promise<number>;
  /** Deletes every dead task of a queue; returns how many. */
  purgeDead(options?: QueueOption): Promise<number>;
}
