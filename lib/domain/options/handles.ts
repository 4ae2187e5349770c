/**
 * The options of calls made through a handle that chooses the queue for its caller: a typed queue
 * (`scheduler.queue<T>(name)`) is bound to one, a sharded queue picks a shard per task. A queue
 * given anyway must agree, or is refused, so that no call quietly goes to another queue.
 */
import { z } from 'zod';

/** The most shards a sharded() queue may have. */
export const MAX_SHARDS = 1024;
/** sharded(name, count): how many queues the shards are. */
export const shardCount = z
  .number({ error: `must be a whole number from 1 to ${MAX_SHARDS}` })
  .int({ error: `must be a whole number from 1 to ${MAX_SHARDS}` })
  .min(1, { error: `must be a whole number from 1 to ${MAX_SHARDS}` })
  .max(MAX_SHARDS, { error: `must be a whole number from 1 to ${MAX_SHARDS}` });

/** The options of a call whose queue is chosen for it (a shard's put, putMany, work): `queue` is refused. */
export const shardChosen = z.unknown().superRefine((o, ctx) => {
  if (o !== null && typeof o === 'object' && 'queue' in o) ctx.addIssue({ code: 'custom', message: 'is chosen by the shard, not given', path: ['queue'] });
});

/** A de-dup key where it is read before put checks it (a shard picks its queue by it): a string. */
export const keyArg = z.string({ error: 'expected a string' }).optional();

/**
 * The options of a call through a queue handle (`scheduler.queue<T>(name)`): an object, whose
 * `queue`, when given, must be the handle's. The rest is left to the call's own schema.
 */
export function boundOptions(name: string) {
  return z
    .custom<object>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), { error: 'expected an object' })
    .superRefine((o, ctx) => {
      const given = (o as { queue?: unknown }).queue;
      if (given === undefined || given === name) return;
      const got = typeof given === 'string' ? JSON.stringify(given) : `of type ${typeof given}`;
      ctx.addIssue({ code: 'custom', message: `is ${got}, but this handle is bound to queue ${JSON.stringify(name)}: leave it out`, path: ['queue'] });
    });
}
