/**
 * Dependencies: a task put `after` others waits until each is done (the rules are in
 * lua/include/deps.lua). This module turns `after` into put.lua's argument, carries steps
 * between queues, and reads what a task waited on.
 *
 * Why a carrier: a script touches one queue (one Redis Cluster slot), so a step for another queue
 * (register a dependent there, tell a dependent there that its dependency finished) waits in the
 * queue's `outbox`. Whoever made it carries it at once: put, cancel, and claims (a claim reply says
 * when steps are due). A carrier takes steps under a lease, applies them in their queue, then
 * says so; one that dies midway leaves them to be taken again when the lease ends, by any process
 * that claims from the queue. Every step is idempotent, so carrying one twice is harmless.
 *
 * Steps for the queue itself wait in its `settle` list, and a script applies a batch of them (100):
 * a failure down a 1,000-long chain is 1,000 steps. The client of the call that left more carries
 * on with them too, a batch a call, until none is left, so no worker needs to be claiming.
 */
import { outbox, stepQueue } from '../ops/outbox';
import { apply } from '../ops/apply';
import type { Context } from '../redis/context';
import { hget } from '../ops/commands/hashes';
import { routed } from '../ops/commands/via';
import { UnreadableRecordError, ValidationError } from '../types/errors';
import { errorFields } from '../domain/log';
import { result } from '../life/outcome';
import type { Dependency, DependencyFailure, DependencyRef } from '../types/outcome';
import { parseRecord } from '../domain/payload';

export { MAX_AFTER } from '../domain/options';
/** How long a carrier holds the steps it took; after that another may take them. */
export const CARRY_LEASE_MS = 5000;
/** Steps taken per outbox call, and per apply call in one queue. */
const CARRY_BATCH = 100;
/** Rounds one carry makes before it says what it carried and looks again. */
const CARRY_ROUNDS = 100;

export type { Dependency, DependencyFailure, DependencyRef };

const POLICY: Record<DependencyFailure, string> = { dead: 'd', run: 'r', cancel: 'c' };

/**
 * put.lua's `after` slot for a task `id` of `queue`: '' for none, else the failure policy's letter
 * and the JSON [[queue, hash], ...] it waits on, each once. Refuses a task that names itself.
 */
export function afterArg(queue: string, id: string, after: readonly DependencyRef[] | undefined, policy: DependencyFailure, at: string): string {
  if (!after || after.length === 0) return '';
  const seen = new Set<string>();
  const refs: Array<[string, string]> = [];
  after.forEach((ref, i) => {
    const [q, hash] = typeof ref === 'string' ? [queue, ref] : [ref.queue, ref.hash];
    if (q === queue && hash === id) throw new ValidationError(`${at}options.after[${i}]`, 'a task cannot wait on itself');
    const key = `${q}\u0000${hash}`;
    if (!seen.has(key)) refs.push([q, hash]);
    seen.add(key);
  });
  return POLICY[policy] + JSON.stringify(refs);
}

/** The other queues an `after` slot names (their names must be known: see checkQueues). */
export function otherQueues(queue: string, arg: string): string[] {
  if (arg === '') return [];
  return (JSON.parse(arg.slice(1)) as Array<[string, string]>).map(([q]) => q).filter((q) => q !== queue);
}

/**
 * Applies `queue`'s own steps left in `settle`, then carries its due outbox steps to their queues,
 * until none is left. Calls for a queue that is being carried join that carry, which then looks
 * once more. A queue whose steps made new ones (a failure passing down a chain across queues) is
 * carried in turn, in the background: a chain is followed to its end, however many times it
 * crosses queues, with no worker claiming. Throws what a call to Redis threw; the steps it held
 * are taken again once their lease ends.
 */
export function carry(ctx: Context, queue: string): Promise<void> {
  const byQueue = carrying.get(ctx) ?? carrying.set(ctx, new Map()).get(ctx)!;
  const current = byQueue.get(queue);
  if (current) {
    current.again = true;
    return current.done;
  }
  const state = { again: false, done: Promise.resolve() };
  state.done = (async () => {
    try {
      do {
        state.again = false;
        const { chase, more } = await carryOnce(ctx, queue);
        // Out of rounds (a fan-out of more than CARRY_ROUNDS batches): on with the rest.
        if (more) state.again = true;
        for (const q of chase) void carry(ctx, q).catch((err: unknown) => ctx.log.warn({ queue: q, ...errorFields(err) }, 'docket: could not carry dependency steps yet'));
      } while (state.again);
    } finally {
      byQueue.delete(queue);
    }
  })();
  byQueue.set(queue, state);
  return state.done;
}
const carrying = new WeakMap<Context, Map<string, { again: boolean; done: Promise<void> }>>();

/** One carry of `queue`: the queues its steps made new steps in, and whether steps are left. */
async function carryOnce(ctx: Context, queue: string): Promise<{ chase: Set<string>; more: boolean }> {
  await settleAll(ctx, queue);
  let carried: string[] = [];
  const chase = new Set<string>();
  for (let round = 0; round < CARRY_ROUNDS; round++) {
    const { steps } = await ctx.scripts.run(outbox, ctx.keys(queue), { lease: CARRY_LEASE_MS, most: CARRY_BATCH, carried });
    carried = [];
    if (steps.length === 0) return { chase, more: false };
    const byTarget = new Map<string, string[]>();
    for (const step of steps) {
      const target = stepQueue(step);
      byTarget.set(target, [...(byTarget.get(target) ?? []), step]);
    }
    await Promise.all(
      [...byTarget].map(async ([target, list]) => {
        const { left, due } = await ctx.scripts.run(apply, ctx.keys(target), { events: ctx.options.eventsMaxLength, steps: list });
        // The steps made new steps there (a registration that found its task finished answers, a
        // failure passes down a chain there): carried on too.
        if (due !== null || left > 0) chase.add(target);
      }),
    );
    carried = steps;
  }
  // Out of rounds: say what was carried, then the caller goes on.
  await ctx.scripts.run(outbox, ctx.keys(queue), { lease: CARRY_LEASE_MS, most: 0, carried });
  return { chase, more: true };
}

/**
 * Applies the steps waiting in `queue`'s own `settle` list, a batch a call, until none is left: each
 * call stays short, and the whole chain a failure runs down is settled without a worker. Another
 * client applying them at the same time is harmless: each step is popped once.
 */
async function settleAll(ctx: Context, queue: string): Promise<void> {
  const input = { events: ctx.options.eventsMaxLength, steps: [] };
  while ((await ctx.scripts.run(apply, ctx.keys(queue), input)).left > 0);
}

/**
 * The tasks task `hash` of `queue` was put after, in put order, each with its outcome as result()
 * reads it: the live state while it runs, its kept outcome once finished (kept only when it was
 * put or worked with keepResult), else null. Empty for a task put without `after`, or gone.
 */
export async function dependencies(ctx: Context, queue: string, hash: string, limit = Infinity): Promise<Dependency[]> {
  const key = ctx.keys(queue).deplist;
  const raw = await hget(routed(ctx.conn, key, { ms: ctx.options.commandTimeout, what: 'dependencies' }), key, hash);
  if (!raw) return [];
  const what = `the dependency list of task ${hash}`;
  const list = parseRecord<unknown>(raw, what);
  // Valid JSON of another shape (written by something else) is as unreadable as text that is not JSON.
  if (!isRefList(list)) throw new UnreadableRecordError(what, new TypeError('not a JSON array of [queue, hash] pairs'));
  // One outcome read per dependency: a page that shows the first few reads only those.
  const refs = list.slice(0, limit);
  const never = new AbortController().signal;
  return Promise.all(refs.map(async ([q, h]) => ({ queue: q, hash: h, outcome: await result(ctx, q, h, 0, never) })));
}

/** A dependency list as put.lua stores it (include/add.lua): JSON [[queue, hash], ...]. */
function isRefList(value: unknown): value is Array<[string, string]> {
  return Array.isArray(value) && value.every((ref) => Array.isArray(ref) && typeof ref[0] === 'string' && typeof ref[1] === 'string');
}
