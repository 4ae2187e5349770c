/**
 * The scheduler's calls for a caller that runs its own loop instead of work(): claim tasks, then
 * report progress and log lines, and ack or fail each. A worker's pipeline keeps the same order
 * for its handlers (lines logged go out before the outcome, a task is checked before a write), and
 * here is where a caller's own loop gets it too.
 */
import type { Context } from '../redis/context';
import type { Json } from '../domain/payload';
import type { Task } from '../domain/task';
import { observeClaims } from '../features/metrics';
import { ack as ackTask, checkTask, claimBatch, fail as failTask, parseClaim, type ClaimOptions, type FailOptions } from '../life/lease';
import { flushLogs, logsOf } from '../life/logs';
import { progressOf } from '../life/progress';

/** Leases up to `count` tasks to `worker` (this process, for direct claims). */
export async function claimMany<T>(ctx: Context, worker: string, count: number, options: ClaimOptions | undefined): Promise<Task<T>[]> {
  const { queue, lease } = parseClaim(ctx, options, count);
  const batch = await claimBatch<T>(ctx, queue, count, lease, worker);
  observeClaims(ctx, queue, batch.now, batch.tasks);
  return batch.tasks;
}

export async function ack(ctx: Context, task: Task<unknown>, result: Json | undefined): Promise<boolean> {
  // Lines it logged go first: after the ack they would be refused as stale.
  await flushLogs(task);
  return ackTask(ctx, task, result);
}

export async function fail(ctx: Context, task: Task<unknown>, options: FailOptions | undefined): Promise<'retry' | 'dead' | 'merged' | 'lost'> {
  await flushLogs(task);
  return failTask(ctx, task, options);
}

export async function progress(ctx: Context, task: Task<unknown>, value: Json): Promise<boolean> {
  checkTask(ctx, task);
  return progressOf(ctx, task).report(value);
}

export async function log(ctx: Context, task: Task<unknown>, line: string): Promise<boolean> {
  checkTask(ctx, task);
  return logsOf(ctx, task).write(line);
}
