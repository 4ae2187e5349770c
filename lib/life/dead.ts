/**
 * Dead letters: tasks that used up their attempts are kept (capped by count and age) so an
 * operator can list them with their last error, re-drive them to ready, or purge them.
 */
import { list } from '../features/admin';
import { purge } from '../ops/purge';
import { redrive as redriveOp } from '../ops/redrive';
import type { Change, RedriveRefusal } from '../types/task-calls';
import type { Context } from '../redis/context';
import { listDeadOptions, parse } from '../domain/options';
import type { DeadTask, ListDeadOptions } from '../types/history';

/** Tasks per script call when re-driving or purging a whole dead set: keeps each call short. */
const BATCH = 500;

/** Dead tasks, most recent death first. */
export async function listDead<T>(ctx: Context, options?: ListDeadOptions): Promise<DeadTask<T>[]> {
  // A DeadTask has its data: previews are list()'s alone.
  parse(listDeadOptions, options ?? {}, 'options');
  const page = await list<T>(ctx, 'dead', options);
  return page.tasks.map((task) => ({ ...task, diedAt: task.diedAt ?? 0 }));
}

/**
 * Re-drives dead task `id`: done, or refused with the script's own reason, given in the same step
 * (`missing`, `active` with its worker, or `pending`: not dead).
 */
export async function redriveOne(ctx: Context, queue: string, id: string): Promise<Change<RedriveRefusal>> {
  const redriven = await ctx.scripts.run(redriveOp, ctx.keys(queue), { id, most: 1 });
  if (!redriven.done) return redriven.worker === undefined ? { done: false, reason: redriven.reason } : { done: false, reason: redriven.reason, worker: redriven.worker };
  return { done: true };
}

/** Re-drives every dead task of the queue, in batches; how many. */
export function redrive(ctx: Context, queue: string): Promise<number> {
  return drain(async () => {
    const redriven = await ctx.scripts.run(redriveOp, ctx.keys(queue), { id: null, most: BATCH });
    // A batch refuses nothing (the codec checks it): only how many went back.
    return redriven.done ? redriven.count : 0;
  });
}

/** Deletes every dead task of the queue, in batches. */
export function purgeDead(ctx: Context, queue: string): Promise<number> {
  return drain(() => ctx.scripts.run(purge, ctx.keys(queue), { most: BATCH }));
}

async function drain(batch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let n = BATCH; n === BATCH; total += n) n = await batch();
  return total;
}
