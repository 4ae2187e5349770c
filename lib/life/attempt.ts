/**
 * An attempt of a leased task, its stop and its endings: see Attempt.
 */
import type { Task } from '../types/task';

/**
 * One attempt of a leased task: how it is stopped and how it ended other than by its handler's
 * value. Each task claim() and work() hand out carries its own (task.ts), which the worker
 * pipeline reads (Run.controller): a stop (the run timeout, a lost lease, a cancel, close())
 * aborts its signal, and a snooze the handler asked for is recorded here, so the stages neither
 * ack nor fail the task, nor extend its lease. Nothing about an attempt is kept beside it.
 *
 * Its AbortSignal is made only when first read, already aborted if the attempt was stopped by then. Node 20 makes an AbortSignal slowly (its prototype is set after it is
 * built, which V8 takes on a slow path): a quarter of what a no-op task costs a worker's main
 * thread (76.5k instructions per task with the signal made, 56.2k without: callgrind, a drain at
 * concurrency 32, docs/performance.md). So a handler is given `view()`, which makes the signal
 * the first time it is used, and `task.signal` makes it the first time it is read: a handler that
 * touches neither makes none.
 */
export class Attempt {
  private made: AbortController | undefined;
  private stopped = false;
  private why: unknown;
  /** Told once when the run is stopped (a batch's own signal waits for all its tasks'). */
  private onStop: Array<(reason: unknown) => void> | undefined;
  /** Whether a snooze of this attempt took: under way, or resolved true (a refused one goes). */
  private snoozes: Promise<boolean> | undefined;

  get signal(): AbortSignal {
    if (!this.made) {
      this.made = new AbortController();
      if (this.stopped) this.made.abort(this.why);
    }
    return this.made.signal;
  }

  /** Why the run was stopped (as `signal.reason`); undefined while it was not. */
  get reason(): unknown {
    return this.why;
  }

  get aborted(): boolean {
    return this.stopped;
  }

  /**
   * The signal as a handler's parameter: an AbortSignal (`instanceof` says so) that makes the real
   * one, and stands for it, the first time anything of it is used (read, listened to, passed on).
   */
  view(): AbortSignal {
    return new Proxy({ of: this }, SIGNAL_VIEW) as unknown as AbortSignal;
  }

  /** Calls `fn` once, with the reason, when the run is stopped (at once if it was). */
  whenStopped(fn: (reason: unknown) => void): void {
    if (this.stopped) return fn(this.why);
    (this.onStop ??= []).push(fn);
  }

  /**
   * Whether the handler snoozed this attempt (never rejects): set while a snooze is under way or
   * once one took; undefined otherwise. The worker then neither acks nor fails it, nor extends its lease.
   */
  get snoozed(): Promise<boolean> | undefined {
    return this.snoozes;
  }

  /**
   * Records a snooze call of this attempt, before it first awaits, so a handler that returns
   * without awaiting it is not acked. A later, refused one does not undo an earlier one that took.
   */
  snoozing(call: Promise<boolean>): void {
    const prior = this.snoozes ?? false;
    const any = Promise.all([prior, call.catch(() => false)]).then(([before, now]) => before || now);
    this.snoozes = any;
    // Only snoozes under way or done are remembered: after refused or failed ones, the attempt goes on as it was.
    void any.then((ok) => ok || (this.snoozes === any && (this.snoozes = undefined)));
  }

  abort(reason: unknown): void {
    if (this.stopped) return;
    this.stopped = true;
    this.why = reason;
    this.made?.abort(reason);
    for (const fn of this.onStop?.splice(0) ?? []) fn(reason);
  }
}

/**
 * What a signal view does: its prototype is AbortSignal's, and every other use goes to the real
 * signal, made then. Node's own uses (fetch, timers, events.once, AbortSignal.any) read and write
 * the signal's internal symbols through it, so they reach the real one too; methods run on it.
 */
const SIGNAL_VIEW: ProxyHandler<{ of: Attempt }> = {
  getPrototypeOf: () => AbortSignal.prototype,
  get(view, key) {
    const real = view.of.signal;
    const value: unknown = Reflect.get(real, key, real);
    return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(real) : value;
  },
  set: (view, key, value) => Reflect.set(view.of.signal, key, value),
  has: (view, key) => Reflect.has(view.of.signal, key),
  ownKeys: (view) => Reflect.ownKeys(view.of.signal),
  getOwnPropertyDescriptor: (view, key) => Reflect.getOwnPropertyDescriptor(view.of.signal, key),
  defineProperty: (view, key, descriptor) => Reflect.defineProperty(view.of.signal, key, descriptor),
  deleteProperty: (view, key) => Reflect.deleteProperty(view.of.signal, key),
};

/** Whatever carries an attempt (a LeasedTask, task.ts): its attempt is read through this. */
export interface WithAttempt {
  readonly [ATTEMPT]: Attempt;
}

/** The key under which a task keeps its attempt: a symbol, so JSON.stringify and Object.entries leave it out. */
export const ATTEMPT: unique symbol = Symbol('docket.attempt');

/** `task`'s attempt: its own when docket made the task, else a new one (a task built by hand). */
export function attemptOf(task: Task<unknown>): Attempt {
  return (task as Partial<WithAttempt>)[ATTEMPT] ?? new Attempt();
}
