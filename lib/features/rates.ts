/**
 * Rate limits: at most `max` claims of a queue in any `per` ms, across every worker and process,
 * counted inside the claim on the Redis clock (a sliding log: lua/include/limits.lua). And a
 * queue-wide pause of a given length, for a worker told by an API to slow down (HTTP 429).
 */
import { serverTime } from './admin';
import { hgetall } from '../ops/commands/hashes';
import { routed } from '../ops/commands/via';
import type { Context } from '../redis/context';
import { ValidationError } from '../domain/errors';
import { limitRateTail, parse, queueOptions, rateArg, rateScope, spanArg } from '../domain/options';
import type { Span } from '../domain/time';
import { cap } from '../ops/cap';

/** A rate limit as {@link Scheduler.rateLimits} reads it back. */
export interface RateLimit {
  /** Most claims in any window of `per` ms. */
  max: number;
  /** The window, in ms. */
  per: number;
}

/** limitRate's argument: the limit, and what it is for (default: the scheduler's queue as a whole). */
export interface RateLimitInput {
  /** Most claims in any window of `per`: a whole number, 1 to 1,000,000. */
  max: number;
  /** ms or a Duration, at most 30 days. */
  per: Span;
  /** The queue limited. Default: the scheduler's `queue` option. */
  queue?: string;
  /** A limit for this one group of the queue (its own, over eachGroup's). */
  group?: string;
  /** A limit for each group of the queue that has none of its own. */
  eachGroup?: boolean;
}

/** Options of `limitRate(null, options)`: which limit to remove. */
export interface RateLimitOptions {
  /** The queue whose limit goes. Default: the scheduler's `queue` option. */
  queue?: string;
  /** limitRate(null): remove this group's own limit. */
  group?: string;
  /** limitRate(null): remove the limit of every group. */
  eachGroup?: boolean;
}

/** What rateLimits() reports of a queue. */
export interface RateLimits {
  /** The queue's rate limit, or null for none. */
  queue: RateLimit | null;
  /** The limit of each group without its own, or null. */
  eachGroup: RateLimit | null;
  /** Groups with a limit of their own. */
  groups: Record<string, RateLimit>;
  /** When backoffQueue() lets claims start again (epoch ms, Redis clock), or null when it does not hold them. */
  heldUntil: number | null;
}

/** The limits hash's fields of a scope: the queue's, one group's, or every group's. */
function fields(scope: { group?: string; eachGroup?: boolean }): [string, string] {
  if (scope.group !== undefined) return [`rate|${scope.group}`, `per|${scope.group}`];
  return scope.eachGroup ? ['grate', 'gper'] : ['rate', 'per'];
}

/** Sets (or, with null, removes) a rate limit of a queue, of one of its groups, or of each group. */
export async function limitRate(ctx: Context, limit: unknown, options?: RateLimitOptions): Promise<void> {
  if (limit === null) {
    const scope = parse(rateScope, options ?? {}, 'options');
    const [rate, per] = fields(scope);
    await ctx.scripts.run(cap, ctx.keys(scope.queue ?? ctx.options.queue), {
      fields: [
        { name: rate, value: null },
        { name: per, value: null },
      ],
    });
    return;
  }
  parse(limitRateTail, options, 'options');
  const o = parse(rateArg, limit, 'limit');
  const [rate, per] = fields(o);
  await ctx.scripts.run(cap, ctx.keys(o.queue ?? ctx.options.queue), {
    fields: [
      { name: rate, value: o.max },
      { name: per, value: o.per },
    ],
  });
}

/** No claim of the queue, by any worker, for `span` from the Redis server's now. */
export async function backoffQueue(ctx: Context, queue: unknown, span: Span): Promise<number> {
  if (queue === undefined) throw new ValidationError('queue', 'expected a queue name');
  const name = ctx.checkQueue(queue, 'queue');
  const ms = parse(spanArg, span, 'span');
  // The one field written: `until`, as the time it ends on the server's clock.
  const [until] = await ctx.scripts.run(cap, ctx.keys(name), { fields: [{ name: 'until', value: { after: ms } }] });
  return until ?? 0;
}

export async function rateLimits(ctx: Context, options?: RateLimitOptions): Promise<RateLimits> {
  const queue = parse(queueOptions, options ?? {}, 'options').queue ?? ctx.options.queue;
  const keys = ctx.keys(queue);
  const deadline = { ms: ctx.options.commandTimeout, what: 'rateLimits' };
  const [f, now] = await Promise.all([hgetall(routed(ctx.conn, keys.limits, deadline), keys.limits), serverTime(ctx, queue)]);
  const until = Number(f.get('until') ?? 0);
  const pair = (rate: string, per: string) => (f.has(rate) ? { max: Number(f.get(rate)), per: Number(f.get(per)) } : null);
  // fromEntries defines each group as an own property, so a group named __proto__ is listed too.
  const own = [...f.keys()].filter((key) => key.startsWith('rate|')).map((key) => [key.slice(5), pair(key, `per|${key.slice(5)}`)!] as const);
  const groups: Record<string, RateLimit> = Object.fromEntries(own);
  return { queue: pair('rate', 'per'), eachGroup: pair('grate', 'gper'), groups, heldUntil: until > now ? until : null };
}
