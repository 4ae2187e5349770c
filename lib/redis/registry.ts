/**
 * The registry of queue names (its key: keys.ts, registryKey): written after a queue's first put
 * in a process, read by the CLI, the dashboard and the layout migration instead of a keyspace scan.
 */
import { queueName } from '../domain/options';
import { registryKey } from '../domain/keys';
import { exists } from '../ops/commands/keyspace';
import { sadd, smembers } from '../ops/commands/sets';
import { routed } from '../ops/commands/via';
import type { Context } from './context';

/**
 * Every queue registered under this prefix that has a key, by name. An obliterate cut off between
 * deleting the keys and taking the name out (a freeze, a lost connection) leaves the name behind:
 * such a queue is not listed, and comes back with its next put (obliterate again takes the name).
 */
export async function queues(ctx: Context): Promise<string[]> {
  const key = registryKey(ctx.options.prefix);
  const deadline = { ms: ctx.options.commandTimeout, what: 'queues' };
  const names = await smembers(routed(ctx.conn, key, deadline), key);
  // One EXISTS over every key of each queue (one slot), sent together: node-redis pipelines them.
  // A name that is no queue name (written by hand) is listed as it is.
  const held = await Promise.all(
    names.map((name) => {
      if (!queueName.safeParse(name).success) return 1;
      const keys = Object.values(ctx.keys(name));
      return exists(routed(ctx.conn, keys[0], deadline), ...keys);
    }),
  );
  return names.filter((_, i) => held[i] > 0).sort();
}

/** Adds `queue` to the registry once per process; a failure is retried on the next put. */
export async function register(ctx: Context, queue: string): Promise<void> {
  if (ctx.registered.has(queue)) return;
  const key = registryKey(ctx.options.prefix);
  await sadd(routed(ctx.conn, key, { ms: ctx.options.commandTimeout, what: 'register' }), key, queue);
  ctx.registered.add(queue);
}
