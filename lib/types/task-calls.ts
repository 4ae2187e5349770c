/**
 * The calls that name one task by the hash put() returned: their options, and what a change
 * answers when asked why (`explain`): done, or the reason it was refused, from the script's own answer.
 */
import type { Json } from './json';
import type { DependenciesOptions, Dependency, ResultOptions, TaskOutcome } from './outcome';
import type { QueueOption } from './queue';
import type { LogLine, TaskInfo } from './task';

/** Options of reschedule, changePriority, cancel and redrive. */
export interface ChangeOptions extends QueueOption {
  /**
   * true: resolve to a {@link Change}, `{ done: true }` or `{ done: false, reason, worker? }`,
   * instead of a boolean. Default false.
   */
  explain?: boolean;
}

/** ChangeOptions asking why: the call resolves to a {@link Change}. */
export interface Explained extends ChangeOptions {
  explain: true;
}

/** Options of cancel(): a change's, and `running` to cancel an active task too. */
export interface CancelOptions extends ChangeOptions {
  /**
   * true: an active task is cancelled too. Its holder's lease token goes at once (its late ack or
   * fail is refused), its handler's signal aborts with a CancelledError at the holder's next
   * heartbeat, wherever it runs, and the task ends `cancelled` then (or when its lease lapses, if
   * the holder died). Default false: an active task is refused.
   */
  running?: boolean;
}

/**
 * cancel()'s answer with `explain: true`: a {@link Change}; for an active task cancelled with
 * `running`, also `worker`, the holder that stops it at its next heartbeat ('' if not recorded).
 */
export type Cancellation =
  | Change
  | {
      /** The active task is cancelled: its holder stops it at its next heartbeat. */
      done: true;
      /** The lease holder that stops it (host:pid:random), or '' if not recorded. */
      worker: string;
    };

/**
 * Why a change to a task was refused: `missing`, no such task (never put, or gone); `active`, a
 * worker holds its lease (it finishes or fails it); `dead`, it used up its attempts (redrive it).
 */
export type Refusal = 'missing' | 'active' | 'dead';

/** A refused change, with the worker that holds the task when it is `active` (when known). */
export type Refused<R extends string = Refusal> = { done: false; reason: R; worker?: string };

/** What a change to a task did: done, or refused and why (`R`: the reasons that change can give). */
export type Change<R extends string = Refusal> =
  | {
      /** The change was made. */
      done: true;
    }
  | Refused<R>;

/**
 * Why a redrive of one task was refused: `missing` and `active` as for any change; `pending`, it
 * waits to run (delayed, ready, or waiting on its dependencies), so it is not dead.
 */
export type RedriveRefusal = 'missing' | 'active' | 'pending';

/** The calls that name one task by the hash put() returned: moving it, cancelling it, reading it. Part of {@link Scheduler}. */
export interface SchedulerTaskCalls {
  /**
   * Moves a pending (delayed, ready or waiting) task's run-at. True when moved; false for an
   * active, dead or unknown task. With `explain: true`, resolves to a {@link Change} instead, which
   * says why a refused change was refused (from the script's own answer, in the same step).
   */
  reschedule(hash: string, at: Date | number, options: Explained): Promise<Change>;
  /** As above, resolving to true when moved, false when refused. */
  reschedule(hash: string, at: Date | number, options?: ChangeOptions): Promise<boolean>;
  /**
   * Moves a pending task to another priority level, given as put's `priority` (1-9, true = 9,
   * false or 0 = normal). A ready task goes to the tail of the new level (FIFO within it); a
   * delayed or waiting one takes the level when it becomes ready; a task of a fair group changes
   * lane in its group only when the level crosses 0. True when changed or already at that level;
   * false for an active, dead or unknown task. With `explain: true`, resolves to a {@link Change}.
   */
  changePriority(hash: string, priority: boolean | number, options: Explained): Promise<Change>;
  /** As above, resolving to true when changed (or already at that level), false when refused. */
  changePriority(hash: string, priority: boolean | number, options?: ChangeOptions): Promise<boolean>;
  /**
   * Deletes a delayed, ready, waiting or dead task. True when deleted; false for an active or
   * unknown task. With `running: true`, an active task is cancelled too (see CancelOptions): true
   * once its holder is told. With `explain: true`, resolves to a {@link Cancellation}.
   */
  cancel(hash: string, options: CancelOptions & Explained): Promise<Cancellation>;
  /** As above, resolving to true when deleted (or, with `running`, once its holder is told), false when refused. */
  cancel(hash: string, options?: CancelOptions): Promise<boolean>;
  /** Reads one task and its state in one consistent view; null when the queue has no task of that hash (never put, or finished and not kept, purged, or deleted by the dead-task limits). */
  get<T = Json>(hash: string, options?: QueueOption): Promise<TaskInfo<T> | null>;
  /**
   * The log of task `hash`, oldest line first, each with when it was written (epoch ms on the
   * Redis clock): [] for a task that logged nothing, or one that is gone (logs go with the task).
   */
  logs(hash: string, options?: QueueOption): Promise<LogLine[]>;
  /**
   * What docket knows of a task: `pending` or `active` while it lives; once finished, its kept
   * outcome (`done` with the result, `dead` with the last error, `expired`, `cancelled`) for the
   * task's keepResult span; null when docket knows nothing of it. With `wait`, resolves as soon as
   * the task finishes, or with its live state when `wait` runs out.
   */
  result<R = Json>(hash: string, options?: ResultOptions): Promise<TaskOutcome<R> | null>;
  /**
   * The tasks task `hash` was put after, in put order, each with its outcome as result() reads
   * it (a finished one's result only when it kept its outcome). Empty for a task put without
   * `after`, or once it is gone. A handler has the same as `task.dependencies()`.
   */
  dependencies(hash: string, options?: DependenciesOptions): Promise<Dependency[]>;
  /**
   * Sends a dead task back to ready with its attempts reset; false when it is not dead. With
   * `explain: true`, resolves to a {@link Change} whose refusal says why (`missing`, `active`, or
   * `pending`: it waits to run), from the script's own answer.
   */
  redrive(hash: string, options: Explained): Promise<Change<RedriveRefusal>>;
  /** As above, resolving to true when re-driven, false when refused. */
  redrive(hash: string, options?: ChangeOptions): Promise<boolean>;
}
