/**
 * The storage layout of a queue's tasks. Since 0.x's compact storage (docs/design.md#keys), a task
 * is one field of `tasks`: its record and its payload together. A queue written by an earlier
 * docket keeps them apart, in `meta` and `data`; createScheduler moves such a queue's tasks into
 * `tasks` before it returns (lua/migrate.lua, a batch per call, each task whole), so an upgrade
 * loses none. Workers of the earlier version must be stopped first: the two layouts do not mix on
 * one queue (docs/operations.md, upgrading).
 */
import { queues } from './registry';
import type { Context } from './context';
import { PermissionError } from '../domain/errors';
import { exists } from '../ops/commands/keyspace';
import { routed } from '../ops/commands/via';
import { migrate } from '../ops/migrate';

/** Tasks moved per migrate call: small enough that one call stays a few milliseconds. */
const BATCH = 500;

/** Moves the tasks of every registered queue still in the old layout; returns how many queues it moved. */
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
  const old = await Promise.all(
    names.map(async (queue) => {
      const { meta } = ctx.keys(queue);
      return (await exists(routed(ctx.conn, meta, deadline), meta)) === 1;
    }),
  );
  const moving = names.filter((_, i) => old[i]);
  for (const queue of moving) {
    let step = { left: 1, cursor: '0' };
    while (step.left > 0) step = await ctx.scripts.run(migrate, ctx.keys(queue), { limit: BATCH, cursor: step.cursor });
  }
  return moving.length;
}
