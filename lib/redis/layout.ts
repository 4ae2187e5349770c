/**
 * The storage layout of a queue, brought up to date by createScheduler before it returns, per
 * registered queue, so an upgrade in place loses nothing (docs/design.md#layout-migration):
 * - Since 0.x's compact storage (docs/design.md#keys), a task is one field of `tasks`: its record
 *   and its payload together. A queue written by an earlier docket keeps them apart, in `meta` and
 *   `data`; lua/migrate.lua moves such a queue's tasks into `tasks` (a batch per call, each task
 *   whole). Workers of the earlier version must be stopped first: the two layouts do not mix on one
 *   queue (docs/operations.md, upgrading).
 * - docket 0.1 kept the until-start pointers in `waiting`, a word the task state uses too; they are
 *   in `redirects` now, and lua/rekey.lua moves them there in one call.
 */
import { queues } from './registry';
import type { Context } from './context';
import { PermissionError } from '../types/errors';
import { exists } from '../ops/commands/keyspace';
import { routed } from '../ops/commands/via';
import { migrate } from '../ops/migrate';
import { rekey } from '../ops/rekey';

/** Tasks moved per migrate call: small enough that one call stays a few milliseconds. */
const BATCH = 500;

/** Brings every registered queue still in an earlier layout up to date; returns how many queues it changed. */
export async function migrateLayout(ctx: Context): Promise<number> {
  let names: string[];
  try {
    names = await queues(ctx);
  } catch (err) {
    // A user without SMEMBERS (not required: access.ts) still has its own queue looked at.
    if (!(err instanceof PermissionError)) throw err;
    names = [];
  }
  if (!names.includes(ctx.options.queue)) names.push(ctx.options.queue);
  const deadline = { ms: ctx.options.commandTimeout, what: 'migrate' };
  const found = await Promise.all(
    names.map(async (queue) => {
      const { meta, waiting } = ctx.keys(queue);
      const via = routed(ctx.conn, meta, deadline);
      // One EXISTS for both legacy keys: a queue already up to date (most) pays nothing more.
      if ((await exists(via, meta, waiting)) === 0) return null;
      return { queue, tasks: (await exists(via, meta)) === 1 };
    }),
  );
  const moving = found.filter((q) => q !== null);
  for (const { queue, tasks } of moving) {
    const keys = ctx.keys(queue);
    // Only a queue that has `meta`: migrate needs HLEN and HSCAN, which a restricted user may lack.
    let step = { left: tasks ? 1 : 0, cursor: '0' };
    while (step.left > 0) step = await ctx.scripts.run(migrate, keys, { most: BATCH, cursor: step.cursor });
    await ctx.scripts.run(rekey, keys, {});
  }
  return moving.length;
}
