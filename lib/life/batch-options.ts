/**
 * workBatch()'s contract as callers write it: its options, the handler's shape and the tasks it
 * gets (a Task with `fail()` and its own `signal`). Apart from batch.ts so that the batch worker's
 * module is its loop, as work-options.ts is for work(). Defaults and bounds: domain/options/work.ts.
 */
import type { Json } from '../domain/payload';
import type { Task } from '../domain/task';
import type { Span } from '../domain/time';
import type { WorkOptions } from './work-options';

/** Options of {@link Scheduler.workBatch}: work()'s, less `concurrency`, `sandbox` and `prefetch`, plus the batch's own. */
export interface BatchOptions extends Omit<WorkOptions, 'concurrency' | 'sandbox' | 'prefetch'> {
  /** The most tasks one batch holds: 1 to 1000. Default 10. */
  size?: number;
  /**
   * How long a batch that has its first task waits for more, up to `size`, before its handler runs
   * (ms or a Duration): at most half the lease, since the tasks' leases run from their claim.
   * Default 0: a batch is what is ready at once.
   */
  wait?: Span;
  /**
   * Batches run at once, 1 to 1000 (each up to `size` tasks, each task counted by the queue's
   * limits). Default 1.
   */
  concurrency?: number;
}

/** A task as a batch handler gets it: a leased Task, with what a batch adds. */
export interface BatchTask<T = Json> extends Task<T> {
  /**
   * Fails this task alone once the handler ends (whatever it resolves to or throws), with `error`
   * as a handler's throw would: the worker's back-off, and an UnrecoverableError or RetryLaterError
   * ends it as they do. The batch's other tasks are acked (or fail with the handler's throw).
   * Called after the handler ended, it does nothing.
   */
  fail(error?: unknown): void;
  /**
   * Aborted when this task's attempt is over for the worker: its lease lost (LeaseLostError), it
   * was cancelled while it ran (CancelledError), the batch's run timeout (RunTimeoutError), or
   * close() handing it back (ClosedError). The handler's own `signal` aborts once every task's has.
   */
  readonly signal: AbortSignal;
}

/**
 * A batch handler. It gets up to `size` tasks and resolves to `undefined` (every task acked, no
 * result) or to an array of exactly one result per task, in the order of `tasks` (each kept as its
 * task's result, `undefined` for none); anything else fails the whole batch with a ValidationError.
 * A throw fails every task of the batch; `task.fail(error)` fails one.
 */
export type BatchHandler<T = Json, R = Json> = (tasks: BatchTask<T>[], signal: AbortSignal) => Promise<ReadonlyArray<R | undefined> | void | undefined>;
