/**
 * The calls on a whole queue and their shapes: what stats() reports (counts by state, lifetime
 * totals, named tasks' outcomes), pause()'s, clean()'s and obliterate()'s options. The reads are
 * lib/features/admin.ts, the deletes lib/features/clean.ts.
 */
import type { Json } from './json';
import type { ListOptions, PreviewListOptions, PreviewPage, TaskPage } from './lists';
import type { QueueOption } from './queue';
import type { TaskState } from './task';
import type { Span } from './time';

/** Lifetime counters of a queue, kept in Redis by the scripts, so every process sees the same. */
export interface QueueTotals {
  /** Puts that stored a new task (a dead task put again counts too). */
  added: number;
  /** Puts that found a live duplicate (or one put within its dedupWindow). */
  deduplicated: number;
  /** Puts that replaced a pending task (onDuplicate 'replace' or 'debounce'). */
  replaced: number;
  /** Failed until-start tasks not retried because a task of their identity already waited. */
  merged: number;
  /** Acks that finished a task. */
  completed: number;
  /** Failed attempts: fail() calls and lapsed leases. */
  failed: number;
  /** Tasks that used up their attempts. */
  dead: number;
  /** Tasks dropped because they expired unclaimed. */
  expired: number;
  /** Leases that lapsed before their worker acked or failed (a crashed or stalled worker). */
  leaseLost: number;
  /** Tasks cancelled (cancel()) before they finished: pending, or running (`running: true`). */
  cancelled: number;
}

/** A queue's counts by state and lifetime totals, as {@link Scheduler.stats} reads them in one consistent view. */
export interface QueueStats {
  /**
   * Tasks in the ready lists (with expired ones no claim has reached yet, and tasks parked by their
   * group's limit: docs/api.md#group-limits-limitgroups-grouplimits).
   */
  ready: number;
  /** Tasks waiting for their run-at (with due ones no claim has promoted yet). */
  delayed: number;
  /** Tasks put `after` others that are not all done yet (state 'waiting'). */
  waiting: number;
  /** Leased tasks (with lapsed leases no claim has re-queued yet). */
  active: number;
  /** Dead tasks kept now. */
  dead: number;
  /** Tasks dropped because they expired unclaimed, since the queue began (= totals.expired). */
  expired: number;
  /**
   * Puts that found a live duplicate (or one within its dedupWindow), since the queue began
   * (= totals.deduplicated).
   */
  deduplicated: number;
  /** Puts that replaced a pending task (onDuplicate replace or debounce), since the queue began (= totals.replaced). */
  replaced: number;
  /** Whether claims are paused (pause()): workers lease nothing until resume(). */
  paused: boolean;
  /** The groups paused (pause({ queue, group })), by name (`[]` for none): their tasks wait until resume(). */
  pausedGroups: string[];
  /** Lifetime counters since the queue began: {@link QueueTotals}. */
  totals: QueueTotals;
  /**
   * Lifetime outcomes of named tasks (docs/api.md#handlers-by-task-name), by name (put's `name`):
   * `{ completed, failed, dead }`, where `failed` counts failed attempts. At most 300
   * name-and-outcome pairs per queue; a name first seen past that counts under the name ''
   * (others). Unnamed tasks are not in it.
   */
  byName: Record<string, NamedTotals>;
}

/** The lifetime outcomes of the tasks of one name ({@link QueueStats.byName}). */
export interface NamedTotals {
  /** Tasks of this name acked, since the queue began. */
  completed: number;
  /** Failed attempts of tasks of this name (each retry counts), since the queue began. */
  failed: number;
  /** Tasks of this name that went dead, since the queue began. */
  dead: number;
}

/** Options of pause() and resume(): a queue, and `group` to pause or resume only that group's tasks. */
export interface PauseOptions extends QueueOption {
  /** The one fair group whose tasks stay put (pause) or run again (resume); the others go on. */
  group?: string;
}

/** Options of {@link Scheduler.clean}: the state is required. */
export interface CleanOptions {
  /**
   * The state whose tasks go: `'ready'`, `'delayed'` or `'dead'`. Anything else is a
   * ValidationError naming `options.state`.
   */
  state: 'ready' | 'delayed' | 'dead';
  /** The queue. Default: the scheduler's `queue`. */
  queue?: string;
  /**
   * Only tasks at least this old (ms or a Duration). Ready and delayed tasks are aged by when they
   * were put (a delayed task's run-at is in the future, so it says nothing about age); dead tasks by
   * when they died. The cut-off is the Redis clock's now minus the span, read once when the clean
   * starts. Default: none, every task of the state.
   */
  olderThan?: Span;
  /**
   * The most tasks to delete in all, a whole number of 1 or more. Dead tasks go oldest death first;
   * ready ones in claim order (levels 9 to 1, normal tasks, parked, grouped); delayed ones earliest
   * run-at first. Default: none, every task that matches.
   */
  limit?: number;
}

/** Options of obliterate(). */
export interface ObliterateOptions {
  /** The queue whose keys all go. Default: the scheduler's `queue`. */
  queue?: string;
  /**
   * Delete the queue even while some of its tasks are leased. Without it, a queue with leased
   * tasks is refused with a QueueActiveError (`code` 'ERR_QUEUE_ACTIVE', `active`: how many) and
   * nothing is deleted. Stop the queue's workers first. Default: false.
   */
  force?: boolean;
}

/** The calls on a whole queue: its counts and pages of tasks, pausing it, cleaning it, deleting it. Part of {@link Scheduler}. */
export interface SchedulerQueues {
  /** Counts a queue's tasks by state, whether it is paused, and its lifetime totals, in one consistent view (the totals count the work of every process). */
  stats(options?: QueueOption): Promise<QueueStats>;
  /**
   * Stops claims on a queue for every worker (puts are still accepted); false if it was paused.
   * With `group`, only that group's tasks stay put (keeping their place), the others run.
   */
  pause(options?: PauseOptions): Promise<boolean>;
  /** @deprecated The queue as a string: pass `{ queue }`, as every other method takes it. */
  pause(queue: string): Promise<boolean>;
  /** Lets workers claim from a paused queue (or `group`) again; false if it was not paused. */
  resume(options?: PauseOptions): Promise<boolean>;
  /** @deprecated The queue as a string: pass `{ queue }`, as every other method takes it. */
  resume(queue: string): Promise<boolean>;
  /**
   * A page of a queue's tasks in one state, in the order they will leave it. With `preview`, each
   * task carries the first `preview` bytes of its payload and its size instead of its data.
   */
  list(state: TaskState, options: PreviewListOptions): Promise<PreviewPage>;
  /** As above, each task with its data. */
  list<T = Json>(state: TaskState, options?: ListOptions): Promise<TaskPage<T>>;
  /** The queues this prefix has seen a put on (a registry kept in Redis) that still have a key, by name. */
  queues(): Promise<string[]>;
  /** The Redis server's clock, epoch ms: the clock of every run-at, lease and event. */
  time(): Promise<number>;
  /**
   * Deletes a queue's ready, delayed or dead tasks (those put, or for dead ones died, at least
   * `olderThan` ago; at most `limit`) in short batches, safe while workers run: a task claimed
   * meanwhile stays. Tasks waiting on a deleted one learn it was cancelled. Returns how many.
   */
  clean(options: CleanOptions): Promise<number>;
  /**
   * Deletes a queue and every key of it, and takes it out of queues(). Refused with a
   * QueueActiveError while tasks of it are leased, unless `force: true`.
   */
  obliterate(options?: ObliterateOptions): Promise<void>;
}
