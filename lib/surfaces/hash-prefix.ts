/**
 * Short hashes, as the CLI takes them wherever it takes a task's hash: `docket inspect email 3f9a1c`
 * for the task whose hash starts with 3f9a1c.
 *
 * The rule: a hash argument of 6 to 31 lowercase hex characters (a default hash has 32) is a
 * prefix when no task has it as its whole hash. It names the one task of the queue, pending,
 * active or dead (`tasks`) or in the done history (`history`), whose hash starts with it. Several
 * such tasks: an AmbiguousHashError listing a few. None: the argument is used as it was given, so
 * the command says there is no such task, as for any unknown hash. Anything else (a whole hash, a
 * shorter string, a hash of a custom `hash` function) is used as given.
 *
 * The search is HSCAN with MATCH `<prefix>*` on those two hashes of the queue only (never the
 * keyspace), MAX_STEPS steps of STEP_FIELDS fields each at most: Redis does a bounded piece of work
 * per step, and a queue too large to search in that many is refused (AmbiguousHashError,
 * `searched: false`) rather than searched without end.
 */
import { AmbiguousHashError } from '../types/errors';
import { hscanFields } from '../ops/commands/hashes';
import type { Context } from '../redis/context';
import { contextFor, via } from './live';
import type { Scheduler } from '../types/scheduler';

/** The fewest characters a short hash has: enough that one names one task in all but huge queues. */
export const MIN_PREFIX_CHARS = 6;
const PREFIX = new RegExp(`^[0-9a-f]{${MIN_PREFIX_CHARS},31}$`);
/** Fields Redis examines per HSCAN step. */
const STEP_FIELDS = 1000;
/** Steps per hash: a queue of up to about 100,000 tasks (and as many kept in its history) is searched whole. */
const MAX_STEPS = 100;
/** Candidates an ambiguous prefix lists; the search stops once it has one more than this. */
const SHOWN_CANDIDATES = 5;

/** How far a search goes: HSCAN steps per hash, and the fields each step examines. */
export interface SearchBounds {
  steps: number;
  fields: number;
}

/** Adds the hashes in `key` that start with `prefix` to `found` (stopping past SHOWN_CANDIDATES); whether `key` was searched whole. */
async function search(ctx: Context, key: string, prefix: string, found: Set<string>, bounds: SearchBounds): Promise<boolean> {
  let cursor = '0';
  for (let step = 0; step < bounds.steps; step++) {
    const page = await hscanFields(via(ctx, key, 'hash prefix search'), key, cursor, `${prefix}*`, bounds.fields);
    // A field with '|' is no task: the history's rows (`<run>|<id>`) and kept logs; its `<id>` fields
    // name the tasks whose latest run it keeps (lua/include/runs.lua).
    for (const field of page.fields) if (!field.includes('|')) found.add(field);
    cursor = page.cursor;
    if (cursor === '0' || found.size > SHOWN_CANDIDATES) return true;
  }
  return false;
}

/**
 * The whole hash `given` stands for in `queue`, by the rule above: `given` itself unless it is a
 * prefix of exactly one task's hash. Throws AmbiguousHashError when it is a prefix of several, or
 * when the queue is too large to be sure. `bounds` are for tests, which cannot fill a queue of 100,000.
 */
export async function resolveHash(scheduler: Scheduler, queue: string, given: string, bounds: SearchBounds = { steps: MAX_STEPS, fields: STEP_FIELDS }): Promise<string> {
  const ctx = contextFor(scheduler);
  if (!PREFIX.test(given) || ctx === null) return given;
  const k = ctx.keys(queue);
  const found = new Set<string>();
  let searched = true;
  for (const key of [k.tasks, k.history]) {
    searched = (await search(ctx, key, given, found, bounds)) && searched;
    // A task whose whole hash it is wins: a custom hash function may make short hashes.
    if (found.has(given)) return given;
    if (found.size > SHOWN_CANDIDATES) break;
  }
  if (found.size === 1 && searched) return [...found][0];
  if (found.size === 0 && searched) return given;
  const more = found.size > SHOWN_CANDIDATES;
  throw new AmbiguousHashError(given, queue, [...found].sort().slice(0, SHOWN_CANDIDATES), { more, searched: searched || more });
}
