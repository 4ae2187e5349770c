/**
 * The shape of the worker pipeline: a leased task's Run, the Outcome of its attempt, and a Stage,
 * which wraps the stages after it as Sidekiq's processor middleware does. A stage does its part
 * before it calls `next`, and after: what `next` resolves to is the attempt's Outcome as the
 * stages after it left it (a stage may end the attempt itself, as the timeout does). An Outcome
 * is data, never a rejection, so every stage sees how the attempt ended and none needs a catch.
 */
import type { Context } from '../../redis/context';
import type { ParsedWorkOptions } from '../../domain/options';
import type { Task } from '../../types/task';
import { attemptOf, type Attempt } from '../attempt';

/** One leased task on its way through a worker's pipeline, and what close() needs to stop it. */
export interface Run {
  readonly task: Task<unknown>;
  /** Stops the attempt: its handler's signal aborts with the reason (timeout, lost lease, cancel, close). */
  readonly controller: Attempt;
  /** ms of its lease left when it started: the claim's lease, less the time it waited since. */
  readonly leftMs: number;
  /** Its run timeout (ms): the put's, else the worker's; undefined for none. */
  readonly limit: number | undefined;
  /** Set once the handler has returned or thrown (or timed out): only its ack or fail is still to come. */
  done: boolean;
  /** Set when close() handed the task back: its handler's outcome no longer counts. */
  released: boolean;
  /** Stops the lease extension; close() calls it for a handler it gives up on. */
  stopLease: () => void;
  /** Set when the timeout ended the attempt before the handler returned: settles once it has. */
  overtime: Promise<void> | null;
}

/**
 * How an attempt ended: the handler's result as ack sends it ('' when none or not kept), or what
 * failed it (its throw, a result that is not JSON, the run timeout).
 */
export type Outcome = { result: string } | { error: unknown };

export type Stage = (run: Run, next: () => Promise<Outcome>) => Promise<Outcome>;

/** What the stages need of their worker. */
export interface Host {
  readonly ctx: Context;
  readonly queue: string;
  /** The worker's id, for its log lines. */
  readonly worker: string;
  readonly options: ParsedWorkOptions;
  /** Tells onError (and the log) of an error the worker recovered from. */
  report(err: unknown): void;
  /** A handler ran `ms` (the worker's average decides its prefetch). */
  ran(ms: number): void;
  /** A handler's slot is free for the next task. */
  free(): void;
  /** Acks a finished task with the next call to Redis; false when its lease was lost. */
  ack(task: Task<unknown>, result: string): Promise<boolean>;
  /** Keeps a running task's lease alive (the worker's heartbeat); returns what stops that. */
  keep(run: Run): () => void;
}

/** A Run for a task just started, with `leftMs` of its lease left; the put's timeout wins over the worker's. */
export function runOf(task: Task<unknown>, leftMs: number, workerTimeout: number | undefined): Run {
  return { task, controller: attemptOf(task), leftMs, limit: task.timeout ?? workerTimeout, done: false, released: false, stopLease: () => {}, overtime: null };
}

/**
 * Composes `stages` (outermost first) around `last`, once per worker: a task's path is then one
 * call, which runs every stage's part before `last` in order and every part after it in reverse.
 */
export function compose(stages: readonly Stage[], last: (run: Run) => Promise<Outcome>): (run: Run) => Promise<Outcome> {
  return stages.reduceRight<(run: Run) => Promise<Outcome>>((inner, stage) => (run) => stage(run, () => inner(run)), last);
}
