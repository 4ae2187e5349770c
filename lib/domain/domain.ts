/**
 * The domain: what a task is, in words said once. A leaf module (it imports nothing of docket's),
 * so the options, the codecs, the task's life and the surfaces (CLI, dashboard) all take these
 * words and numbers from here instead of keeping copies that drift apart. The Lua side cannot
 * import it: where a script holds one of these values, __tests__/domain.test.ts checks the script
 * against this module. Its one import is a type of lib/types/, which imports nothing.
 */
import type { TaskState } from '../types/task';

/**
 * The states a task can be in, in the order of its life, as the scripts name them: `waiting` on
 * the tasks it was put after, then `delayed` or `ready`, `active` while leased, `dead` once out of
 * attempts, `done` once acked (kept in the queue's history: lua/include/history.lua).
 */
export const TASK_STATES = ['waiting', 'delayed', 'ready', 'active', 'dead', 'done'] as const;

/**
 * The states TASK_STATES names: the public TaskState (lib/types/task.ts), or this fails to
 * compile (a state in one and not the other).
 */
export type NamedState = Agreed<(typeof TASK_STATES)[number], TaskState>;

/**
 * `B`, once `A` and `B` are each assignable to the other (else a compile error here): a type
 * derived from a constant or a schema, checked against the public type it must match.
 */
export type Agreed<A extends B, B extends C, C = A> = B;

/** The same states in the order the views (list(), the CLI, the dashboard) show them: what runs next first. */
export const LISTED_STATES = ['ready', 'delayed', 'waiting', 'active', 'dead', 'done'] as const satisfies readonly TaskState[];

/**
 * Attempts a task gets unless its put says otherwise. A record leaves its attempts out when they
 * are this many (lua/include/record.lua), so most records are shorter by a field: records already
 * stored read it back, so changing it needs a layout migration (lib/redis/layout.ts).
 */
export const DEFAULT_MAX_ATTEMPTS = 5;

/** The most characters of an error kept as a task's last error; the rest is cut, with an ellipsis. */
export const MAX_ERROR_CHARS = 2000;

/**
 * How many done tasks a queue's history keeps, and how long (ms), for a cap keep() leaves out: the
 * last 1,000, for a day. Bounded because a history kept forever is a memory leak that grows with
 * every task run (BullMQ's default, keep everything, is a well-known trap); a day covers "what ran
 * since yesterday" for an operator, and 1,000 records of a few hundred bytes each stay under 1 MB.
 */
export const DONE_HISTORY = { count: 1000, age: 24 * 3600 * 1000 } as const;

/**
 * Whether a queue without keep() keeps a history (with the DONE_HISTORY caps): on. A finished task
 * then leaves its record in the queue's bounded history (lua/include/history.lua) for list('done'),
 * get and the dashboard's Done tab; keep({ queue, done: { count: 0 } }) turns it off for a queue,
 * and a task's own `keep` option for one task.
 */
export const HISTORY_BY_DEFAULT: boolean = true;
