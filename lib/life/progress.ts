/**
 * Progress: a leased task's latest progress, stored by progress.lua under the same fencing as ack.
 * A handler may report progress in a tight loop, so writes are throttled per task: at most one
 * every MIN_INTERVAL_MS, and the last value is always written (the worker flushes it before the
 * ack, after which the write would be refused as stale).
 */
import { performance } from 'node:perf_hooks';
import type { Context } from '../redis/context';
import { LeaseLostError, PayloadTooLargeError } from '../types/errors';
import { canonicalJson } from '../domain/payload';
import type { Task } from '../types/task';
import { progress } from '../ops/progress';

/** At most one progress write per task in this many ms. */
export const MIN_INTERVAL_MS = 100;

interface Waiting {
  resolve: (stored: boolean) => void;
  reject: (err: unknown) => void;
}

/**
 * Serialises a result or progress value (sealed when the scheduler encrypts), or throws a typed
 * error naming `field`: a value that is not JSON (ValidationError) or is over maxResultBytes
 * (PayloadTooLargeError).
 */
export function outcomeJson(ctx: Context, value: unknown, field: string): string {
  const json = canonicalJson(value, field, { bytes: ctx.options.maxResultBytes, what: field.split('.').pop() });
  const bytes = Buffer.byteLength(json);
  if (bytes > ctx.options.maxResultBytes) throw new PayloadTooLargeError(field, bytes, ctx.options.maxResultBytes, field.split('.').pop());
  // The limit holds for the value itself; sealing adds about a third (crypto.ts).
  return ctx.keyring ? ctx.keyring.seal(json) : json;
}

/** The throttled progress writes of one task. */
export class ProgressWriter {
  /** When the last write went out (performance.now()). */
  private last = -Infinity;
  /** The value to write next, and the callers whose value it replaced or is. */
  private pending: { json: string; waiting: Waiting[] } | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** Settles once the timed write has gone (or was cancelled). */
  private timed: Promise<void> | null = null;
  private endTimed: () => void = () => {};
  private sending: Promise<void> | null = null;
  constructor(
    private readonly ctx: Context,
    private readonly task: Task<unknown>,
    /** A worker's: told of each refused write (a LeaseLostError) and each failed one. */
    private readonly onProblem?: (err: unknown) => void,
  ) {}

  /**
   * Checks `value` at once (throws), then resolves once it, or a later value, is written. A
   * handler may well not await it: a rejection it leaves unhandled does not take the process down
   * (the worker hears of it through onProblem).
   */
  report(value: unknown): Promise<boolean> {
    const json = outcomeJson(this.ctx, value, 'progress');
    const written = new Promise<boolean>((resolve, reject) => {
      const waiting = this.pending?.waiting ?? [];
      waiting.push({ resolve, reject });
      this.pending = { json, waiting };
      this.schedule();
    });
    written.catch(() => {});
    return written;
  }

  /**
   * Waits until every value reported is written: a value waiting for its turn goes when its
   * 100 ms are up, not sooner (the ack waits for it, at most that long).
   */
  async flush(): Promise<void> {
    while (this.sending || this.timed || this.pending) await (this.sending ?? this.timed ?? this.storeLatest());
  }

  /** Drops a waiting value (the task was handed back): its callers get false. */
  stop(): void {
    this.cancelTimer();
    this.pending?.waiting.forEach((w) => w.resolve(false));
    this.pending = null;
  }

  private schedule(): void {
    if (this.timer || this.sending) return;
    const wait = this.last + MIN_INTERVAL_MS - performance.now();
    if (wait <= 0) void this.storeLatest();
    else {
      this.timed = new Promise((resolve) => {
        this.endTimed = resolve;
        this.timer = setTimeout(() => {
          this.timer = this.timed = null;
          resolve(this.storeLatest());
        }, wait);
      });
    }
  }

  private cancelTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = this.timed = null;
    this.endTimed();
  }

  private async storeLatest(): Promise<void> {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    this.last = performance.now();
    const { hash, token, queue } = this.task;
    const input = { id: hash, token, value: p.json, events: this.ctx.options.eventsMaxLength };
    this.sending = this.ctx.scripts.run(progress, this.ctx.keys(queue), input).then(
      (stored) => {
        if (!stored) this.onProblem?.(new LeaseLostError(hash));
        p.waiting.forEach((w) => w.resolve(stored));
      },
      (err: unknown) => {
        this.onProblem?.(err);
        p.waiting.forEach((w) => w.reject(err));
      },
    );
    await this.sending;
    this.sending = null;
    if (this.pending) this.schedule();
  }
}

const writers = new WeakMap<Task<unknown>, ProgressWriter>();

/**
 * The progress writer of `task` (one per task object, shared by task.progress and
 * scheduler.progress), made on the first report: a task that reports none costs nothing.
 */
export function progressOf(ctx: Context, task: Task<unknown>, onProblem?: (err: unknown) => void): ProgressWriter {
  let writer = writers.get(task);
  if (!writer) writers.set(task, (writer = new ProgressWriter(ctx, task, onProblem)));
  return writer;
}

/** Waits for `task`'s progress writes, or null when it never reported any (no await then). */
export function flushProgress(task: Task<unknown>): Promise<void> | null {
  return writers.get(task)?.flush() ?? null;
}

/** Drops `task`'s waiting progress, if any (handed back unfinished). */
export function stopProgress(task: Task<unknown>): void {
  writers.get(task)?.stop();
}
