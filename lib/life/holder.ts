/**
 * What the holder of a lease may do, each call fenced by its lease token (a lapsed lease, or one a
 * later claim replaced, is refused): fail the task (retried after a back-off, or dead), hand it
 * back unfinished, or extend the lease. The ack is a claim call that leases nothing (lease.ts);
 * a snooze has its own module (snooze.ts).
 */
import type { Context } from '../redis/context';
import { defaultBackoff } from '../domain/backoff';
import { MAX_ERROR_CHARS } from '../domain/domain';
import { ValidationError } from '../types/errors';
import { carry } from '../features/deps';
import { errorFields, thrownText } from '../domain/log';
import { traced } from '../features/tracing';
import { tracingChannels as channels } from '../types/tracing';
import { eventArgs, failOptions, parse, spanArg } from '../domain/options';
import { extend as extendOp } from '../ops/extend';
import { fail as failOp, type FailOutcome } from '../ops/fail';
import { release as releaseOp } from '../ops/release';
import type { Span } from '../types/time';
import type { Task } from '../types/task';
import type { FailOptions } from '../types/claim';
import { outcomeJson } from './progress';
import { endingOf } from './endings';

/**
 * A handler's result as ack sends it: checked whenever given (not JSON, or over maxResultBytes,
 * is a typed error), and sent ('' for none): the task's kept outcome (keepResult) and the queue's
 * history (lua/include/history.lua) keep it.
 */
export function resultJson(ctx: Context, _task: Task<unknown>, result: unknown): string {
  if (result === undefined) return '';
  return outcomeJson(ctx, result, 'result');
}

export async function fail(ctx: Context, task: Task<unknown>, options?: FailOptions): Promise<FailOutcome> {
  checkTask(ctx, task);
  const o = parse(failOptions, options ?? {}, 'options');
  const how = endingOf(o.error);
  const later = how.ending === 'retry-later' ? how : null;
  const retryIn = later?.delay ?? o.retryIn ?? defaultBackoff(task.attempt);
  const stream = eventArgs(ctx.options);
  const input = { id: task.hash, token: task.token, retryIn, error: describe(o.error), maxAttempts: o.maxAttempts ?? null, ...stream, ending: how.ending, retryAt: later?.at ?? null };
  const call = async () => {
    const { outcome, carry: carried } = await ctx.scripts.run(failOp, ctx.keys(task.queue), input);
    // A task that went dead with dependents in other queues left steps for them: carried now, not
    // at this queue's next claim. Only then: a plain fail costs no second round trip.
    if (carried) {
      void carry(ctx, task.queue).catch((err: unknown) => ctx.log.warn({ queue: task.queue, ...errorFields(err) }, 'docket: could not carry dependency steps yet'));
    }
    return outcome;
  };
  return traced(channels.fail, () => ({ queue: task.queue, task, failure: o.error }), call);
}

/** Hands a held task back unfinished, without counting the delivery; false once the lease is lost. */
export async function release(ctx: Context, task: Task<unknown>): Promise<boolean> {
  checkTask(ctx, task);
  return ctx.scripts.run(releaseOp, ctx.keys(task.queue), { id: task.hash, token: task.token });
}

/** Moves the lease deadline to now + `by` on the Redis clock; false once the lease is lost. */
export async function extend(ctx: Context, task: Task<unknown>, by: Span): Promise<boolean> {
  checkTask(ctx, task);
  const ms = parse(spanArg, by, 'by');
  const until = await ctx.scripts.run(extendOp, ctx.keys(task.queue), { id: task.hash, token: task.token, by: ms });
  if (until === null) return false;
  task.leaseUntil = until;
  return true;
}

export function checkTask(ctx: Context, task: Task<unknown>): void {
  const ok = typeof task === 'object' && task !== null && typeof task.hash === 'string' && typeof task.token === 'string';
  if (!ok) throw new ValidationError('task', 'expected a task returned by claim()');
  ctx.checkQueue(task.queue, 'task.queue');
}

/** A readable, bounded record of a failure. */
function describe(error: unknown): string {
  if (error === undefined) return 'failed';
  const text = thrownText(error);
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
}
