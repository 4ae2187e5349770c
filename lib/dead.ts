/**
 * Dead letters: tasks that used up their attempts are kept (capped by count and age) so an
 * operator can list them with their last error, re-drive them to ready, or purge them.
 */
import { z } from 'zod';
import type { Context } from './context';
import { parse, queueName } from './options';
import type { Json } from './payload';
import { toTaskInfo, type TaskInfo } from './task';

/** A dead task, with when it died (epoch ms, Redis clock). */
export interface DeadTask<T = Json> extends TaskInfo<T> {
  readonly diedAt: number;
}

export interface ListDeadOptions {
  queue?: string;
  /** Most tasks to return, most recent death first. Default 100, at most 1000. */
  limit?: number;
  /** How many of the most recent to skip. Default 0. */
  offset?: number;
}

const listOptions = z.strictObject({
  queue: queueName.optional(),
  limit: z.number().int().min(1, { error: 'must be from 1 to 1000' }).max(1000, { error: 'must be from 1 to 1000' }).default(100),
  offset: z.number().int().min(0, { error: 'must be 0 or more' }).default(0),
});

/** Tasks per script call when re-driving or purging a whole dead set: keeps each call short. */
const BATCH = 500;

export async function listDead<T>(ctx: Context, options?: ListDeadOptions): Promise<DeadTask<T>[]> {
  const o = parse(listOptions, options ?? {}, 'options');
  const queue = o.queue ?? ctx.options.queue;
  const reply = (await ctx.scripts.run('dead', ctx.keys(queue), [o.offset, o.limit])) as string[];
  const tasks: DeadTask<T>[] = [];
  for (let i = 0; i < reply.length; i += 4) {
    const info = toTaskInfo<T>(queue, reply[i], [reply[i + 1], reply[i + 2], 'dead']);
    tasks.push({ ...info, diedAt: Number(reply[i + 3]) });
  }
  return tasks;
}

/** Re-drives one dead task (`id`), or every dead task of the queue in batches (`id` undefined). */
export async function redrive(ctx: Context, queue: string, id?: string): Promise<number> {
  if (id !== undefined) return Number(await ctx.scripts.run('redrive', ctx.keys(queue), [id, 1]));
  return drain(() => ctx.scripts.run('redrive', ctx.keys(queue), ['', BATCH]));
}

/** Deletes every dead task of the queue, in batches. */
export function purgeDead(ctx: Context, queue: string): Promise<number> {
  return drain(() => ctx.scripts.run('purge', ctx.keys(queue), [BATCH]));
}

async function drain(batch: () => Promise<unknown>): Promise<number> {
  let total = 0;
  for (let n = BATCH; n === BATCH; total += n) n = Number(await batch());
  return total;
}
