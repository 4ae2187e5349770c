/**
 * Rate limits: at most `max` claims of a queue in any `per` ms, across every worker and process,
 * counted inside the claim on the Redis clock (a sliding log: lua/include/limits.lua). And a
 * queue-wide pause of a given length, for a worker told by an API to slow down (HTTP 429).
 */
import { serverTime } from './admin';
import { hashReply } from './connection';
import type { Context } from './context';
import { ValidationError } from './errors';
import { parse, queueOptions, rateArg, spanArg } from './options';
import type { Span } from './time';

export interface RateLimit {
  /** Most claims in any window of `per` ms. */
  max: number;
  /** The window, in ms. */
  per: number;
}

/** limitRate's argument: the limit, and the queue it is for (default: the scheduler's). */
export interface RateLimitInput {
  max: number;
  /** ms or a Duration, at most 30 days. */
  per: Span;
  queue?: string;
}

export interface RateLimitOptions {
  queue?: string;
}

/** What rateLimits() reports of a queue. */
export interface RateLimits {
  /** The queue's rate limit, or null for none. */
  queue: RateLimit | null;
  /** When backoffQueue() lets claims start again (epoch ms, Redis clock), or null when it does not hold them. */
  heldUntil: number | null;
}

/** Sets (or, with null, removes) a queue's rate limit. */
export async function limitRate(ctx: Context, limit: unknown, options?: RateLimitOptions): Promise<void> {
  if (limit === null) {
    await ctx.scripts.run('cap', ctx.keys(ctx.queueOf(options)), [2, 'rate', '', 'per', '']);
    return;
  }
  if (options !== undefined) throw new ValidationError('options', 'give the queue inside the limit: limitRate({ max, per, queue })');
  const rate = parse(rateArg, limit, 'limit');
  await ctx.scripts.run('cap', ctx.keys(rate.queue ?? ctx.options.queue), [2, 'rate', rate.max, 'per', rate.per]);
}

/** No claim of the queue, by any worker, for `span` from the Redis server's now. */
export async function backoffQueue(ctx: Context, queue: unknown, span: Span): Promise<number> {
  if (queue === undefined) throw new ValidationError('queue', 'expected a queue name');
  const name = ctx.checkQueue(queue, 'queue');
  const ms = parse(spanArg, span, 'span');
  const [until] = (await ctx.scripts.run('cap', ctx.keys(name), [1, 'until', `+${ms}`])) as [string];
  return Number(until);
}

export async function rateLimits(ctx: Context, options?: RateLimitOptions): Promise<RateLimits> {
  const queue = parse(queueOptions, options ?? {}, 'options').queue ?? ctx.options.queue;
  const keys = ctx.keys(queue);
  const deadline = { ms: ctx.options.commandTimeout, what: 'rateLimits' };
  const [fields, now] = await Promise.all([ctx.conn.send(keys.limits, ['HGETALL', keys.limits], deadline), serverTime(ctx, queue)]);
  const f = hashReply(fields);
  const until = Number(f.get('until') ?? 0);
  const max = f.get('rate');
  return { queue: max === undefined ? null : { max: Number(max), per: Number(f.get('per')) }, heldUntil: until > now ? until : null };
}
