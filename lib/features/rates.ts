/**
 * Rate limits: at most `max` claims of a queue in any `per` ms, across every worker and process,
 * counted inside the claim on the Redis clock (a sliding log: lua/include/limits.lua). And a
 * queue-wide pause of a given length, for a worker told by an API to slow down (HTTP 429).
 */
import { serverTime } from './admin';
import { hgetall } from '../ops/commands/hashes';
import { routed } from '../ops/commands/via';
import type { Context } from '../redis/context';
import { ValidationError } from '../types/errors';
import { limitRateTail, parse, queueOptions, rateArg, rateScope, spanArg } from '../domain/options';
import type { Span } from '../types/time';
import { cap } from '../ops/cap';
import type { RateLimit, RateLimitOptions, RateLimits } from '../types/limits';

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
