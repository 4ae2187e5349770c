/**
 * The scheduler's calls for a caller that runs its own loop instead of work(): claim tasks, then
 * report progress and log lines, and ack or fail each. A worker's pipeline keeps the same order
 * for its handlers (lines logged go out before the outcome, a task is checked before a write), and
 * here is where a caller's own loop gets it too. WithClaims, at the end, binds them to the
 * Scheduler's methods.
 */
import { newWorkerId, type Context } from '../../redis/context';
import type { Json } from '../../types/json';
import type { Task } from '../../types/task';
import { observeClaims } from '../../features/metrics';
import { ack as ackTask, claimBatch, parseClaim } from '../../life/lease';
import { checkTask, extend, fail as failTask } from '../../life/holder';
import { snooze } from '../../life/snooze';
import type { ClaimOptions, FailOptions, SchedulerClaims } from '../../types/claim';
import type { Span } from '../../types/time';
import { flushLogs, logsOf } from '../../life/logs';
import { progressOf } from '../../life/progress';
import { WithTaskCalls } from './task-calls';

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

export abstract class WithClaims extends WithTaskCalls implements SchedulerClaims {
  /** Names this process as a lease holder for direct claim() calls. */
  private readonly workerId = newWorkerId();

  async claim<T = Json>(options?: ClaimOptions): Promise<Task<T> | null> {
    const [task] = await this.claimMany<T>(1, options);
    return task ?? null;
  }

  claimMany<T = Json>(count: number, options?: ClaimOptions): Promise<Task<T>[]> {
    return this.open(() => claimMany<T>(this.ctx, this.workerId, count, options));
  }

  ack(task: Task<unknown>, result?: Json): Promise<boolean> {
    return this.open(() => ack(this.ctx, task, result));
  }

  progress(task: Task<unknown>, value: Json): Promise<boolean> {
    return this.open(() => progress(this.ctx, task, value));
  }

  log(task: Task<unknown>, line: string): Promise<boolean> {
    return this.open(() => log(this.ctx, task, line));
  }

  fail(task: Task<unknown>, options?: FailOptions): Promise<'retry' | 'dead' | 'merged' | 'lost'> {
    return this.open(() => fail(this.ctx, task, options));
  }

  extend(task: Task<unknown>, by: Span): Promise<boolean> {
    return this.open(() => extend(this.ctx, task, by));
  }

  snooze(task: Task<unknown>, span: Span): Promise<boolean> {
    return this.open(() => snooze(this.ctx, task, span));
  }
}
