/**
 * History: a queue keeps its finished tasks for a bounded count and age, separately for done and
 * dead (keep()). Done tasks are kept apart from live ones (lua/include/history.lua), so a kept done
 * task never counts as a live duplicate for put; get() and list('done') read them, and runAgain()
 * puts one's data and options again as a new task.
 */
import { DONE_HISTORY } from '../domain/domain';
import { ValidationError } from '../types/errors';
import { keepOptions, parse, taskHash } from '../domain/options';
import type { Json } from '../types/json';
import { toTaskInfo } from '../domain/task';
import type { PutOptions, PutResult } from '../types/put';
import { get as getOp } from '../ops/get';
import { keep as keepOp } from '../ops/keep';
import type { Context } from '../redis/context';
import { putOne } from './put';
import type { KeepOptions } from '../types/history';

export { DONE_HISTORY };

/**
 * Sets how many finished tasks the queue keeps, and how long; stored in Redis for every worker.
 * Given `done`, a cap it leaves out is DONE_HISTORY's (so `done: {}` turns the history on with the
 * defaults); a dead cap left out stays as it was (the scheduler's deadMaxCount and deadMaxAge).
 */
export async function keep(ctx: Context, options: KeepOptions): Promise<void> {
  const { queue, done, dead } = parse(keepOptions, options ?? {}, 'options');
  await ctx.scripts.run(keepOp, ctx.keys(ctx.queueOf({ queue })), {
    doneCount: done ? (done.count ?? DONE_HISTORY.count) : null,
    doneAge: done ? (done.age ?? DONE_HISTORY.age) : null,
    deadCount: dead?.count ?? null,
    deadAge: dead?.age ?? null,
  });
}

/**
 * Puts done task `hash`'s data and options (name, group, key, priority, attempts, timeout,
 * keepResult, keep) again, as put() would: its de-dup rules apply, and the PutResult's status says what
 * the put did (`added`, or `duplicate` when a run of the same task is live). null when the queue
 * has no task of that hash, done or live.
 */
export async function runAgain(ctx: Context, hash: unknown, options: { queue?: string } | undefined): Promise<PutResult | null> {
  const queue = ctx.queueOf(options);
  const id = parse(taskHash, hash, 'hash');
  // Its latest done run; or, once a put started a new run of it (the done run is then no longer its
  // latest: a later get or result must not answer an earlier run), that run's data and options: the
  // put then says 'duplicate' while it is live.
  const keys = ctx.keys(queue);
  const record = (await ctx.scripts.run(getOp, keys, { id, history: true })) ?? (await ctx.scripts.run(getOp, keys, { id, history: false }));
  if (record === null) return null;
  const task = toTaskInfo<Json>(queue, id, record, ctx.keyring);
  if (task.encrypted) throw new ValidationError('hash', `task ${id} is encrypted with a key this scheduler does not have: its data cannot be put again`);
  const again: PutOptions = { queue, priority: task.level, maxAttempts: task.maxAttempts };
  if (task.name !== null) again.name = task.name;
  if (task.group !== null) again.group = task.group;
  if (task.key !== null) again.key = task.key;
  if (task.timeout !== null) again.timeout = task.timeout;
  if (task.keepResult !== null) again.keepResult = task.keepResult;
  if (task.keep !== undefined) again.keep = task.keep;
  return putOne(ctx, task.data, again);
}
