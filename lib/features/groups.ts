/**
 * Per-group limits: at most N tasks of a fair-scheduling group active at once, across every worker
 * of the queue. The limit lives in Redis (`glimits`), so every claim honours the same one; a claim
 * parks a task whose group is at its limit, and the group's next finished task brings one back.
 */
import { hget, hgetall } from '../ops/commands/hashes';
import { zcard } from '../ops/commands/zsets';
import { routed } from '../ops/commands/via';
import type { Context } from '../redis/context';
import { concurrencyArg, groupLimitArg, groupLimitOptions, groupPauseOptions, orderGroupsArg, orderGroupsOptions, parse } from '../domain/options';
import { gpause } from '../ops/gpause';
import { cap } from '../ops/cap';
import { limit as limitOp } from '../ops/limit';
import { order } from '../ops/order';
import type { ConcurrencyLimit, GroupLimitOptions, GroupLimits, OrderGroupsOptions } from '../types/limits';

/** Parked tasks moved per script call when a limit is raised or removed: keeps each call short. */
const BATCH = 1000;

export async function limitGroups(ctx: Context, limit: unknown, options?: GroupLimitOptions): Promise<void> {
  const n = parse(groupLimitArg, limit, 'limit');
  const o = parse(groupLimitOptions, options ?? {}, 'options');
  const keys = ctx.keys(o.queue ?? ctx.options.queue);
  // The first call writes the limit; later ones only move parked tasks the limit now has room for.
  let from: string | null = null;
  do {
    ({ next: from } = await ctx.scripts.run(limitOp, keys, { group: o.group ?? null, limit: n ?? null, from, batch: BATCH }));
  } while (from !== null);
}

export async function groupLimits(ctx: Context, options?: { queue?: string }): Promise<GroupLimits> {
  const keys = ctx.keys(ctx.queueOf(options));
  const deadline = { ms: ctx.options.commandTimeout, what: 'groupLimits' };
  const [limits, active] = await Promise.all([hgetall(routed(ctx.conn, keys.glimits, deadline), keys.glimits), hgetall(routed(ctx.conn, keys.gactive, deadline), keys.gactive)]);
  const numbers = (fields: Map<string, string>) => Object.fromEntries([...fields].map(([k, v]) => [k, Number(v)]));
  // A paused group's flag shares the hash: field '<group>|paused' (group names have no '|'); so do
  // ordered groups' setting ('|ordered') and held heads ('<group>|head': lua/include/controls.lua).
  const paused = [...limits.keys()].filter((k) => k.endsWith(PAUSED)).map((k) => k.slice(0, -PAUSED.length));
  const groups = numbers(new Map([...limits].filter(([k]) => !k.includes('|'))));
  const fallback = groups[''];
  delete groups[''];
  return { default: fallback ?? null, groups, active: numbers(active), paused: paused.sort() };
}

/** The suffix of a paused group's field in `glimits` (lua/gpause.lua). */
const PAUSED = '|paused';

/**
 * Pauses (`paused` true) or resumes one fair group of a queue; true when this call changed its
 * state. A paused group's tasks stay put, keeping their place; the other groups run. Resume moves
 * its parked tasks back in their order (as many as its limit has room for), a batch a call.
 */
export async function pauseGroup(ctx: Context, options: unknown, paused: boolean): Promise<boolean> {
  const o = parse(groupPauseOptions, options, 'options');
  const keys = ctx.keys(o.queue ?? ctx.options.queue);
  const first = await ctx.scripts.run(gpause, keys, { group: o.group, paused, more: false, batch: BATCH, events: ctx.options.eventsMaxLength });
  // The rest of a long backlog, a batch a call; a pause in between stops it (the script checks).
  for (let moved = first.moved; !paused && moved === BATCH;)
    ({ moved } = await ctx.scripts.run(gpause, keys, { group: o.group, paused, more: true, batch: BATCH, events: ctx.options.eventsMaxLength }));
  return first.changed;
}

/**
 * Makes a queue's fair groups ordered (`on` true) or not. In an ordered queue each group's tasks
 * run one at a time in their order, and a task that will run again (a retry, a snooze, a lapsed
 * lease; with `holdOnDead`, a death) keeps its group's head meanwhile: nothing behind it runs.
 * Stored in Redis, so every worker applies it; turning it off releases every hold.
 */
export async function orderGroups(ctx: Context, on: unknown, options?: OrderGroupsOptions): Promise<void> {
  const yes = parse(orderGroupsArg, on, 'on');
  const o = parse(orderGroupsOptions, options ?? {}, 'options');
  const keys = ctx.keys(o.queue ?? ctx.options.queue);
  await ctx.scripts.run(order, keys, { mode: !yes ? 'off' : o.holdOnDead ? 'hold' : 'on' });
  // The parked tasks the new setting has room for go back, every group, a batch a call: limit.lua
  // from '-' moves them without touching a limit (its first call alone writes one).
  let from: string | null = '-';
  do {
    ({ next: from } = await ctx.scripts.run(limitOp, keys, { group: null, limit: null, from, batch: BATCH }));
  } while (from !== null);
}

/**
 * At most `limit` tasks of the queue leased at once across every worker and process (null
 * removes the limit). Decided inside the claim, after lapsed leases are re-queued, so a worker
 * that dies gives its slots back through the usual recovery. Combines with group limits.
 */
export async function limitConcurrency(ctx: Context, limit: unknown, options?: { queue?: string }): Promise<void> {
  const n = parse(concurrencyArg, limit, 'limit');
  const keys = ctx.keys(ctx.queueOf(options));
  await ctx.scripts.run(cap, keys, { fields: [{ name: 'concurrency', value: n ?? null }] });
}

export async function concurrencyLimit(ctx: Context, options?: { queue?: string }): Promise<ConcurrencyLimit> {
  const keys = ctx.keys(ctx.queueOf(options));
  const deadline = { ms: ctx.options.commandTimeout, what: 'concurrencyLimit' };
  const [limit, active] = await Promise.all([hget(routed(ctx.conn, keys.limits, deadline), keys.limits, 'concurrency'), zcard(routed(ctx.conn, keys.active, deadline), keys.active)]);
  return { limit: limit === null ? null : Number(limit), active };
}
