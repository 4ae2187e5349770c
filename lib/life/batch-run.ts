/**
 * One batch on its way through a batch worker: its tasks, each a Run of the worker pipeline
 * (pipeline/), and the one call of the batch handler they all wait for. Each task takes the same
 * path as a work() task (timeout, lease keep-alive, metrics, flush, then its own ack or fail), and
 * in the middle, where a work() task runs its handler, it waits for the batch's call and takes its
 * own part of what it ended with: its result, the handler's throw, or the error `task.fail()` gave
 * it. So every rule of a single task (fencing, endings, snooze, cancel, results) holds per task.
 */
import { performance } from 'node:perf_hooks';
import { ValidationError } from '../types/errors';
import type { Task } from '../types/task';
import type { BatchHandler, BatchTask } from '../types/work';
import { runOf, type Run } from './pipeline';
import { Attempt } from './attempt';

/** A task leased for a batch: the Redis clock when it was leased, and performance.now() when the reply came. */
export interface Leased {
  task: Task<unknown>;
  serverNow: number;
  at: number;
}

/** How the handler's call ended: a result per task (undefined: none), or what it threw. */
type Settled = { results: readonly unknown[] | undefined } | { error: unknown };

/** The batch each task belongs to, for the pipeline's middle (taskOutcome). */
const batchOf = new WeakMap<Task<unknown>, BatchRun>();

export class BatchRun {
  readonly runs: Run[];
  readonly tasks: BatchTask<unknown>[];
  /** Stopped once every task's attempt has been (all timed out, handed back, lost or cancelled). */
  private readonly controller = new Attempt();
  /** Tasks the handler failed on their own, with the error it gave. */
  private readonly marked = new Map<Task<unknown>, unknown>();
  private ended = false;
  private readonly settled: Promise<Settled>;
  private settle!: (s: Settled) => void;

  constructor(leased: readonly Leased[], workerTimeout: number | undefined) {
    this.settled = new Promise((resolve) => (this.settle = resolve));
    // One run timeout for the whole batch: the shortest of its tasks' (the put's, else the worker's).
    const limits = leased.map(({ task }) => task.timeout ?? workerTimeout).filter((ms): ms is number => ms !== undefined);
    const limit = limits.length > 0 ? Math.min(...limits) : undefined;
    this.runs = leased.map(({ task, serverNow, at }) => ({ ...runOf(task, task.leaseUntil - serverNow - (performance.now() - at), workerTimeout), limit }));
    this.tasks = this.runs.map((run) => {
      // No signal is made for this: the attempts tell their batch when they stop.
      run.controller.whenStopped((reason) => this.runs.every((r) => r.controller.aborted) && this.controller.abort(reason));
      const fail = (error?: unknown) => void (this.ended || this.marked.set(run.task, error));
      batchOf.set(run.task, this);
      // The task object itself (its signal is its attempt's): the pipeline's run holds it, so its stages see the same one.
      return Object.assign(run.task, { fail }) as BatchTask<unknown>;
    });
  }

  /** Calls the handler once with every task; resolves when it has returned or thrown (never rejects). */
  async call(handler: BatchHandler<unknown, unknown>): Promise<void> {
    let settled: Settled;
    try {
      settled = { results: this.results(await handler(this.tasks, this.controller.view())) };
    } catch (error) {
      settled = { error };
    }
    this.ended = true;
    this.settle(settled);
  }

  /** What the handler resolved to, as one result per task; anything else fails the batch. */
  private results(value: unknown): readonly unknown[] | undefined {
    if (value === undefined) return undefined;
    if (Array.isArray(value) && value.length === this.tasks.length) return value;
    const got = Array.isArray(value) ? `an array of ${value.length}` : typeof value;
    throw new ValidationError('result', `a batch handler resolves to undefined or an array of one result per task (${this.tasks.length}), not ${got}`);
  }

  /** This task's part of the batch's outcome: its own fail(), else the handler's throw, else its result. */
  async outcomeOf(task: Task<unknown>): Promise<unknown> {
    const settled = await this.settled;
    if (this.marked.has(task)) throw this.marked.get(task);
    if ('error' in settled) throw settled.error;
    return settled.results?.[this.tasks.indexOf(task as BatchTask<unknown>)];
  }
}

/** The pipeline's middle for a batch worker: a task's part of its batch's outcome. */
export function taskOutcome(task: Task<unknown>): Promise<unknown> {
  const batch = batchOf.get(task);
  if (!batch) return Promise.reject(new ValidationError('task', 'expected a task of a batch'));
  return batch.outcomeOf(task);
}
