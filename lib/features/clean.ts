/**
 * Bulk clean and obliterate: deleting a queue's ready, delayed or dead tasks in bounded batches
 * while workers run (lua/clean.lua, one short call per batch), and removing a queue with every
 * key of it (lua/obliterate.lua).
 */
import { registryKey } from '../domain/keys';
import { serverTime } from './admin';
import type { Context } from '../redis/context';
import { srem } from '../ops/commands/sets';
import { routed } from '../ops/commands/via';
import { CARRY_LEASE_MS, carry } from './deps';
import { QueueActiveError } from '../types/errors';
import { errorFields } from '../domain/log';
import { cleanOptions, obliterateOptions, parse } from '../domain/options';
import { clean as cleanOp } from '../ops/clean';
import { obliterate as obliterateOp } from '../ops/obliterate';
import type { CleanOptions, ObliterateOptions } from '../types/queues';

/** Most tasks one clean call deletes, and most entries it examines (with olderThan, some stay). */
const BATCH = 500;
const SCAN = 1000;

/**
 * Where each state's tasks wait, in the order a clean walks them. Ready tasks: priority levels 9
 * to 1, normal tasks, then the fair groups' parked tasks before the grouped ones (a grouped task
 * that goes lets its group's first parked one in, which a clean of every ready task then has
 * deleted already).
 */
const SOURCES = {
  dead: ['dead'],
  delayed: ['delayed'],
  ready: ['ready9', 'ready8', 'ready7', 'ready6', 'ready5', 'ready4', 'ready3', 'ready2', 'ready1', 'ready', 'parked', 'grouped'],
} as const;

/**
 * Deletes the queue's tasks in `state` (those put, or for dead ones died, at least `olderThan`
 * ago on the Redis clock), at most `limit`, in calls of at most BATCH deletions. Returns how many.
 */
export async function clean(ctx: Context, options: CleanOptions): Promise<number> {
  const o = parse(cleanOptions, options ?? {}, 'options');
  const queue = o.queue ?? ctx.options.queue;
  const keys = ctx.keys(queue);
  // One cut-off for the whole clean, so tasks that grow old while it runs are not chased.
  const before = o.olderThan === undefined ? null : (await serverTime(ctx, queue)) - o.olderThan;
  const limit = o.limit ?? Number.MAX_SAFE_INTEGER;
  let total = 0;
  let outboxed = false;
  for (const source of SOURCES[o.state]) {
    let cursor = '';
    while (total < limit) {
      const input = { source, before, most: Math.min(BATCH, limit - total), scan: SCAN, cursor, events: ctx.options.eventsMaxLength };
      const reply = await ctx.scripts.run(cleanOp, keys, input);
      total += reply.deleted;
      cursor = reply.cursor;
      outboxed ||= reply.outboxed;
      if (reply.done) break;
    }
  }
  // Tasks of other queues waited on cleaned ones: they learn now (else at a claim there).
  if (outboxed) await carry(ctx, queue).catch((err: unknown) => ctx.log.warn({ queue, ...errorFields(err) }, 'docket: could not carry dependency steps yet'));
  return total;
}

/**
 * Deletes every key of the queue and takes it out of the registry of queue names. Refused with a
 * QueueActiveError while tasks of it are leased, unless `force`. The registry is outside the
 * queue's slot, so the name goes in a call of its own, last: one cut off before it (a freeze)
 * leaves a name whose queue has no key, which queues() does not list and a retry removes.
 */
export async function obliterate(ctx: Context, options?: ObliterateOptions): Promise<void> {
  const o = parse(obliterateOptions, options ?? {}, 'options');
  const queue = o.queue ?? ctx.options.queue;
  let reply = await ctx.scripts.run(obliterateOp, ctx.keys(queue), { force: o.force === true });
  if (reply.status === 'active') throw new QueueActiveError(queue, reply.leased);
  // Steps for other queues were left in its outbox (tasks there waited on its tasks, or its tasks
  // on theirs): carried, then the outbox goes too. A step another client holds is due again when
  // its lease ends, so a few rounds over one lease see every step carried.
  const until = Date.now() + 2 * CARRY_LEASE_MS;
  while (reply.status === 'carry') {
    await carry(ctx, queue);
    reply = await ctx.scripts.run(obliterateOp, ctx.keys(queue), { force: true });
    if (reply.status === 'carry') {
      if (Date.now() > until) {
        // Left for a later obliterate (or a claimer of the queue) to carry: the name stays registered.
        ctx.log.warn({ queue }, 'docket: obliterate left dependency steps for other queues in the outbox; call obliterate again to carry them');
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const registry = registryKey(ctx.options.prefix);
  await srem(routed(ctx.conn, registry, { ms: ctx.options.commandTimeout, what: 'obliterate' }), registry, queue);
  // A later put on it from this process registers it again.
  ctx.registered.delete(queue);
}
