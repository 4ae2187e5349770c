/**
 * A hot queue split into shards. One queue lives on one Redis Cluster slot, so on one master; a
 * queue that outgrows a master is split into `name:0` ... `name:<count-1>`, which spread over the
 * cluster. A task goes to the shard its identity hashes to, so the same data (or the same `key`)
 * always lands in the same shard and de-duplication still holds; workers work every shard.
 */
import type { Context } from '../redis/context';
import { ValidationError } from '../types/errors';
import { identityOf } from '../domain/hashing';
import { keyArg, parse, queueName, shardChosen, shardCount, taskHash } from '../domain/options';
import { canonicalJson } from '../domain/payload';
import type { Json } from '../types/json';
import type { PutOptions, PutResult } from '../types/put';
import { sumStats } from './admin';
import type { QueueStats } from '../types/queues';
import type { ResultOptions, TaskOutcome } from '../types/outcome';
import type { GroupLimitOptions, GroupLimits } from '../types/limits';
import { handlerOf } from '../life/route';
import type { Handler, Handlers, Worker, WorkOptions } from '../types/work';
import type { Sharded } from '../types/handles';

export { MAX_SHARDS } from '../domain/options';

/**
 * The one-queue calls of a Scheduler that a Sharded spreads over its shards: the Scheduler itself,
 * named by what is used of it so that this module does not import the facade (lib/surfaces/facade/), which imports it.
 */
export interface ShardTarget {
  put(data: Json, options: PutOptions): Promise<PutResult>;
  putMany(items: Array<{ data: Json; options: PutOptions }>): Promise<PutResult[]>;
  work(handler: Handler, options: WorkOptions): Worker;
  result<R = Json>(hash: string, options: ResultOptions): Promise<TaskOutcome<R> | null>;
  stats(options: { queue: string }): Promise<QueueStats>;
  limitGroups(limit: number | null, options: GroupLimitOptions): Promise<void>;
  groupLimits(options: { queue: string }): Promise<GroupLimits>;
}

export function sharded(ctx: Context, scheduler: ShardTarget, name: unknown, count: unknown): Sharded {
  const base = parse(queueName, name, 'name');
  const n = parse(shardCount, count, 'count');
  const queues = Array.from({ length: n }, (_, i) => parse(queueName, `${base}:${i}`, 'name'));
  ctx.shards(base, queues);
  const rejectQueue = (options: unknown, field: string) => void parse(shardChosen, options, field);
  const shardOf = (data: Json, key: unknown, field = 'data', keyField = 'options.key') => {
    // Checked here, before the identity is built of it: put checks it again, with the rest.
    const given = parse(keyArg, key, keyField);
    // The identity's id, as put.lua stores it (under encryption bound to the sharded queue's name,
    // not the shard's: Context.taskId): its first 8 hex digits pick the shard.
    const id = ctx.taskId(base, identityOf(canonicalJson(data, field, { bytes: ctx.options.maxPayloadBytes }), given));
    return queues[parseInt(id.slice(0, 8), 16) % n];
  };
  return {
    queues,
    shardOf: (data, key) => shardOf(data, key, 'data', 'key'),
    async put(data: Json, options?: Omit<PutOptions, 'queue'>) {
      rejectQueue(options, 'options');
      return scheduler.put(data, { ...options, queue: shardOf(data, options?.key) });
    },
    async putMany(items: Array<{ data: Json; options?: Omit<PutOptions, 'queue'> }>) {
      if (!Array.isArray(items)) throw new ValidationError('items', 'expected an array of { data, options }');
      // Grouped by shard, so each shard's tasks go in chunks of their own, in put order.
      const byShard = new Map<string, number[]>();
      const shard: string[] = [];
      items.forEach((item, i) => {
        rejectQueue(item?.options, `items[${i}].options`);
        shard[i] = shardOf(item?.data, item?.options?.key, `items[${i}].data`, `items[${i}].options.key`);
        const list = byShard.get(shard[i]);
        if (list) list.push(i);
        else byShard.set(shard[i], [i]);
      });
      const order = [...byShard.values()].flat();
      const results = await scheduler.putMany(order.map((i) => ({ data: items[i].data, options: { ...items[i].options, queue: shard[i] } })));
      const out: PutResult[] = new Array(items.length);
      order.forEach((i, j) => (out[i] = results[j]));
      return out;
    },
    work(handler, options) {
      rejectQueue(options, 'options');
      // One router for every shard's worker (a map is checked once, and copied once).
      const run = options?.sandbox === true ? handler : handlerOf(handler as Handler | Handlers);
      const workers = queues.map((queue) => scheduler.work(run as Handler, { ...options, queue }));
      return {
        workers,
        close: async (closeOptions) => void (await Promise.all(workers.map((w) => w.close(closeOptions)))),
      };
    },
    async result(hash, options) {
      rejectQueue(options, 'options');
      // The shard is the one the id's first 8 hex digits pick, as in shardOf.
      const shard = parseInt(parse(taskHash, hash, 'hash').slice(0, 8), 16);
      if (!Number.isFinite(shard)) throw new ValidationError('hash', 'expected the hash string that put() returned');
      return scheduler.result(hash, { ...options, queue: queues[shard % n] });
    },
    async stats() {
      return sumStats(await Promise.all(queues.map((queue) => scheduler.stats({ queue }))));
    },
    async limitGroups(limit, options) {
      rejectQueue(options, 'options');
      // The first shard checks the arguments, so bad input writes nothing to any shard.
      await scheduler.limitGroups(limit, { ...options, queue: queues[0] });
      await Promise.all(queues.slice(1).map((queue) => scheduler.limitGroups(limit, { ...options, queue })));
    },
    async groupLimits() {
      const all = await Promise.all(queues.map((queue) => scheduler.groupLimits({ queue })));
      const active: Record<string, number> = {};
      for (const l of all) for (const [g, n] of Object.entries(l.active)) active[g] = (active[g] ?? 0) + n;
      return { ...all[0], active };
    },
  };
}
