/**
 * The scheduler's calls that name one task by the hash put() returned: those that move it
 * (reschedule, changePriority, cancel, redrive) and those that read it (get, logs, dependencies,
 * result). They share one way of turning `(hash, options)` into the task's queue and id, and the
 * moves one way of answering (a boolean, or with `explain` the reason of a refusal), so that no
 * call checks a hash or words a refusal differently. Each checks its arguments fully before any I/O.
 * WithTaskCalls, at the end, binds them to the Scheduler's methods.
 */
import type { Context } from '../../redis/context';
import { cancelOptions, changeOptions, dependenciesOptions, instantArg, parse, priorityArg, resultOptions, taskHash } from '../../domain/options';
import { errorFields } from '../../domain/log';
import type { Json } from '../../types/json';
import { toTaskInfo } from '../../domain/task';
import type { LogLine, TaskInfo } from '../../types/task';
import { cancel as cancelOp, type Cancelled } from '../../ops/cancel';
import { get as getOp } from '../../ops/get';
import { priority as priorityOp, type PriorityChange } from '../../ops/priority';
import { reschedule as rescheduleOp } from '../../ops/reschedule';
import { redriveOne } from '../../life/dead';
import { readLogs } from '../../life/logs';
import { result as readResult } from '../../life/outcome';
import { carry, dependencies as readDependencies, type Dependency } from '../../features/deps';
import type { CancelOptions, Cancellation, Change, ChangeOptions, Explained, RedriveRefusal, SchedulerTaskCalls } from '../../types/task-calls';
import type { DependenciesOptions, ResultOptions, TaskOutcome } from '../../types/outcome';
import type { QueueOption } from '../../types/queue';
import { WithPuts } from './puts';

/** The task a call names: its queue (the options' or the default) and its id (the hash, checked). */
function target(ctx: Context, hash: unknown, options: unknown): { queue: string; id: string } {
  return { queue: ctx.queueOf(options), id: parse(taskHash, hash, 'hash') };
}

/** The task a change names, and whether its caller asked for the reason of a refusal. */
function change(ctx: Context, hash: unknown, options: unknown): { queue: string; id: string; explain: boolean } {
  const { explain, ...rest } = parse(changeOptions, options ?? {}, 'options');
  return { ...target(ctx, hash, rest), explain: explain === true };
}

/** A change as its caller asked for it: a Change with `explain`, else whether it was done. */
function answer(change: Change | PriorityChange | Cancelled, explain: boolean): boolean | Change {
  if (!explain) return change.done;
  if (!change.done) return change.worker === undefined ? { done: false, reason: change.reason } : { done: false, reason: change.reason, worker: change.worker };
  return { done: true };
}

export async function reschedule(ctx: Context, hash: string, at: Date | number, options: ChangeOptions | undefined): Promise<boolean | Change> {
  const { queue, id, explain } = change(ctx, hash, options);
  const ms = parse(instantArg, at, 'at');
  return answer(await ctx.scripts.run(rescheduleOp, ctx.keys(queue), { id, at: ms }), explain);
}

export async function changePriority(ctx: Context, hash: string, priority: boolean | number, options: ChangeOptions | undefined): Promise<boolean | Change> {
  const { queue, id, explain } = change(ctx, hash, options);
  const level = parse(priorityArg, priority, 'priority');
  // Done: moved, kept (only its record changed) or the same level already.
  return answer(await ctx.scripts.run(priorityOp, ctx.keys(queue), { id, level }), explain);
}

export async function cancel(ctx: Context, hash: string, options: CancelOptions | undefined): Promise<boolean | Cancellation> {
  const { running, ...rest } = parse(cancelOptions, options ?? {}, 'options');
  const { queue, id, explain } = change(ctx, hash, rest);
  const cancelled = await ctx.scripts.run(cancelOp, ctx.keys(queue), { id, events: ctx.options.eventsMaxLength, running: running === true });
  // A running task: its holder ends it at its next beat. The answer names the holder.
  if ('stopping' in cancelled) return explain ? { done: true, worker: cancelled.worker } : true;
  // Tasks of other queues wait on it, or it waited on some: they learn now (else at a claim).
  if (cancelled.done && cancelled.outboxed) await carry(ctx, queue).catch((err: unknown) => ctx.log.warn({ queue, ...errorFields(err) }, 'docket: could not carry dependency steps yet'));
  return answer(cancelled, explain);
}

export async function redrive(ctx: Context, hash: string, options: ChangeOptions | undefined): Promise<boolean | Change<RedriveRefusal>> {
  const { queue, id, explain } = change(ctx, hash, options);
  const redriven = await redriveOne(ctx, queue, id);
  return explain ? redriven : redriven.done;
}

export async function get<T>(ctx: Context, hash: string, options: QueueOption | undefined): Promise<TaskInfo<T> | null> {
  const { queue, id } = target(ctx, hash, options);
  const record = await ctx.scripts.run(getOp, ctx.keys(queue), { id });
  // A missing payload (a damaged record) reads as null, as it always has.
  return record ? toTaskInfo<T>(queue, id, record, ctx.keyring) : null;
}

export async function logs(ctx: Context, hash: string, options: QueueOption | undefined): Promise<LogLine[]> {
  const { queue, id } = target(ctx, hash, options);
  return readLogs(ctx, queue, id);
}

export async function dependencies(ctx: Context, hash: string, options: DependenciesOptions | undefined): Promise<Dependency[]> {
  const { limit, ...rest } = parse(dependenciesOptions, options ?? {}, 'options');
  const { queue, id } = target(ctx, hash, rest);
  return readDependencies(ctx, queue, id, limit);
}

/** `closing`: aborted by the scheduler's close(), which ends a wait. */
export async function result<R = Json>(ctx: Context, hash: string, options: ResultOptions | undefined, closing: AbortSignal): Promise<TaskOutcome<R> | null> {
  const { id } = target(ctx, hash, undefined);
  const o = parse(resultOptions, options ?? {}, 'options');
  const queue = o.queue ?? ctx.options.queue;
  return (await readResult(ctx, queue, id, o.wait, closing)) as TaskOutcome<R> | null;
}

export abstract class WithTaskCalls extends WithPuts implements SchedulerTaskCalls {
  reschedule(hash: string, at: Date | number, options: Explained): Promise<Change>;
  reschedule(hash: string, at: Date | number, options?: ChangeOptions): Promise<boolean>;
  reschedule(hash: string, at: Date | number, options?: ChangeOptions): Promise<boolean | Change> {
    return this.open(() => reschedule(this.ctx, hash, at, options));
  }

  changePriority(hash: string, priority: boolean | number, options: Explained): Promise<Change>;
  changePriority(hash: string, priority: boolean | number, options?: ChangeOptions): Promise<boolean>;
  changePriority(hash: string, priority: boolean | number, options?: ChangeOptions): Promise<boolean | Change> {
    return this.open(() => changePriority(this.ctx, hash, priority, options));
  }

  cancel(hash: string, options: CancelOptions & Explained): Promise<Cancellation>;
  cancel(hash: string, options?: CancelOptions): Promise<boolean>;
  cancel(hash: string, options?: CancelOptions): Promise<boolean | Cancellation> {
    return this.open(() => cancel(this.ctx, hash, options));
  }

  get<T = Json>(hash: string, options?: QueueOption): Promise<TaskInfo<T> | null> {
    return this.open(() => get<T>(this.ctx, hash, options));
  }

  logs(hash: string, options?: QueueOption): Promise<LogLine[]> {
    return this.open(() => logs(this.ctx, hash, options));
  }

  dependencies(hash: string, options?: DependenciesOptions): Promise<Dependency[]> {
    return this.open(() => dependencies(this.ctx, hash, options));
  }

  result<R = Json>(hash: string, options?: ResultOptions): Promise<TaskOutcome<R> | null> {
    return this.open(() => result<R>(this.ctx, hash, options, this.closing.signal));
  }

  redrive(hash: string, options: Explained): Promise<Change<RedriveRefusal>>;
  redrive(hash: string, options?: ChangeOptions): Promise<boolean>;
  redrive(hash: string, options?: ChangeOptions): Promise<boolean | Change<RedriveRefusal>> {
    return this.open(() => redrive(this.ctx, hash, options));
  }
}
