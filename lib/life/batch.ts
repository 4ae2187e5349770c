/**
 * What makes a worker a batch worker (workBatch()): it gathers up to `size` tasks, waiting at most
 * `wait` for a batch to fill once it has one, and hands them to its handler in one call, up to
 * `concurrency` batches at once. Everything else is the worker's (worker.ts): its loop, claims
 * through claim.lua (so a queue's rate, concurrency and group limits count each task), each task
 * through the worker pipeline (batch-run.ts: its lease kept alive, its run timeout, its own ack or
 * fail), the heartbeat, the idle wait (the claim for more rides behind the BLPOP) and close(). So
 * a batch worker differs from a worker in two things only: how many tasks a claim takes (the rest
 * of the batch being formed, while a batch slot is free) and how a result is split (BatchRun).
 *
 * What it does not do: prefetch (a batch is the round trip's saving) or run in a sandbox. A batch
 * worker takes tasks of any name: the handler reads `task.name`.
 */
import { performance } from 'node:perf_hooks';
import type { Context } from '../redis/context';
import { CancelledError } from '../types/errors';
import type { ParsedBatchOptions } from '../domain/options';
import { BatchRun, type Leased } from './batch-run';
import type { BatchHandler } from '../types/work';
import { release } from './holder';
import type { Outcome, Run } from './pipeline';

/** The batch being formed and the batches in flight: what a batch worker adds to a worker. */
export class Batching {
  /** Tasks leased for the batch being formed, oldest first. */
  private forming: Leased[] = [];
  /** When the forming batch goes, full or not (performance.now()): `wait` after its first task came. */
  private fillBy = Infinity;
  /** Tasks of the forming batch a beat found cancelled: told once their batch starts. */
  private readonly cancelledEarly = new Set<string>();
  /** Batches whose handler has not returned yet: at most `concurrency`. */
  private busy = 0;
  /** Tasks being handed back, so close() can wait for it. */
  private handingBack: Promise<void> = Promise.resolve();

  constructor(
    readonly opts: ParsedBatchOptions,
    private readonly handler: BatchHandler<unknown, unknown>,
  ) {}

  /** Tasks leased for the batch being formed. */
  get length(): number {
    return this.forming.length;
  }

  /** How many tasks a claim may take now: the rest of the forming batch, while a batch slot is free. */
  free(): number {
    return this.busy < this.opts.concurrency ? this.opts.size - this.forming.length : 0;
  }

  /** A task a claim leased joins the forming batch; the first one starts its `wait`. */
  add(task: Leased['task'], serverNow: number, at: number): void {
    if (this.forming.length === 0) this.fillBy = at + this.opts.wait;
    this.forming.push({ task, serverNow, at });
  }

  /** ms until the forming batch goes by its `wait` (0: now), or Infinity while none forms. */
  left(): number {
    if (this.forming.length === 0) return Infinity;
    return this.forming.length >= this.opts.size ? 0 : Math.max(0, this.fillBy - performance.now());
  }

  /** Tasks a beat ended, cancelled while leased: one in the forming batch is told once its batch starts. */
  cancelled(hashes: readonly string[]): void {
    for (const { task } of this.forming) if (hashes.includes(task.hash)) this.cancelledEarly.add(task.hash);
  }

  /**
   * Starts the forming batch: each task on the worker's path (`start`), then the handler once with
   * all of them. Its slot frees once the handler has really returned (a timed-out one too): then
   * `freed` wakes the worker's loop.
   */
  start(start: (run: Run) => Promise<Outcome>, freed: () => void): void {
    const batch = new BatchRun(this.forming, this.opts.timeout);
    this.forming = [];
    this.fillBy = Infinity;
    for (const run of batch.runs) {
      void start(run);
      if (this.cancelledEarly.delete(run.task.hash)) run.controller.abort(new CancelledError(run.task.hash));
    }
    this.busy++;
    void batch.call(this.handler).finally(() => {
      this.busy--;
      freed();
    });
  }

  /** Hands the forming batch back (close()): last first, so the tasks keep their order. */
  handBack(ctx: Context, report: (err: unknown) => void): Promise<void> {
    const back = this.forming.splice(0).reverse();
    this.handingBack = Promise.all([this.handingBack, ...back.map(({ task }) => release(ctx, task).catch(report))]).then(() => {});
    return this.handingBack;
  }
}
