/**
 * The scheduler's calls that name one task by the hash put() returned: those that move it
 * (reschedule, changePriority, cancel, redrive) and those that read it (get, logs, dependencies,
 * result). They share one way of turning `(hash, options)` into the task's queue and id, and the
 * moves one way of answering (a boolean, or with `explain` the reason of a refusal), so that no
 * call checks a hash or words a refusal differently. Each checks its arguments fully before any I/O.
 */
import type { Context } from '../redis/context';
import type { Change } from '../redis/reply';
import { cancelOptions, changeOptions, dependenciesOptions, instantArg, parse, priorityArg, resultOptions, taskHash } from '../domain/options';
import { errorFields } from '../domain/log';
import type { Json } from '../domain/payload';
import { toTaskInfo, type TaskInfo } from '../domain/task';
import { cancel as cancelOp, type Cancelled } from '../ops/cancel';
import { get as getOp } from '../ops/get';
import { priority as priorityOp, type PriorityChange } from '../ops/priority';
import type { RedriveRefusal } from '../ops/redrive';
import { reschedule as rescheduleOp } from '../ops/reschedule';
import { redriveOne } from '../life/dead';
import { readLogs, type LogLine } from '../life/logs';
import { result as readResult, type ResultOptions, type TaskOutcome } from '../life/outcome';
import { carry, dependencies as readDependencies, type Dependency } from '../features/deps';
import type { CancelOptions, Cancellation, ChangeOptions, DependenciesOptions, QueueOption } from './scheduler-api';

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
