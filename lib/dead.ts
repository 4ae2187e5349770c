/**
 * Dead letters: tasks that used up their attempts are kept (capped by count and age) so an
 * operator can list them with their last error, re-drive them to ready, or purge them.
 */
import { list, type ListOptions } from './admin';
import type { Context } from './context';
import { ValidationError } from './errors';
import type { Json } from './payload';
import type { TaskInfo } from './task';

/** A dead task, with when it died (epoch ms, Redis clock). */
export interface DeadTask<T = Json> extends TaskInfo<T> {
  readonly diedAt: number;
}

export type ListDeadOptions = ListOptions;

/** Tasks per script call when re-driving or purging a whole dead set: keeps each call short. */
const BATCH = 500;

/** Dead tasks, most recent death first. */
export async function listDead<T>(ctx: Context, options?: ListDeadOptions): Promise<DeadTask<T>[]> {
  // A DeadTask has its data: previews are list()'s alone.
  if (typeof options === 'object' && options !== null && 'preview' in options) throw new ValidationError('options.preview', 'is not a known option');
  const page = await list<T>(ctx, 'dead', options);
  return page.tasks.map((task) => ({ ...task, diedAt: task.diedAt ?? 0 }));
}

/** Re-drives one dead task (`id`), or every dead task of the queue in batches (`id` undefined). */
export async function redrive(ctx: Context, queue: string, id?: string): Promise<number> {
  if (id !== undefined) return ctx.scripts.run('redrive', ctx.keys(queue), { id, limit: 1 });
  return drain(() => ctx.scripts.run('redrive', ctx.keys(queue), { id: null, limit: BATCH }));
}

/** Deletes every dead task of the queue, in batches. */
export function purgeDead(ctx: Context, queue: string): Promise<number> {
  return drain(() => ctx.scripts.run('purge', ctx.keys(queue), { limit: BATCH }));
}

async function drain(batch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let n = BATCH; n === BATCH; total += n) n = await batch();
  return total;
}
