/**
 * What stats() reports of a queue: its counts by state, its lifetime totals and its named tasks'
 * outcomes. Shapes only, apart from the reads in admin.ts, so their doc comments (which the
 * reference is made of) can say all they need to.
 */

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
