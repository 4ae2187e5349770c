/**
 * The domain: what a task is, in words said once. A leaf module (it imports nothing of docket's),
 * so the options, the codecs, the task's life and the surfaces (CLI, dashboard) all take these
 * words and numbers from here instead of keeping copies that drift apart. The Lua side cannot
 * import it: where a script holds one of these values, __tests__/domain.test.ts checks the script
 * against this module.
 */

/**
 * The states a task can be in, in the order of its life, as the scripts name them: `waiting` on
 * the tasks it was put after, then `delayed` or `ready`, `active` while leased, `dead` once out of
 * attempts.
 */
export const TASK_STATES = ['waiting', 'delayed', 'ready', 'active', 'dead'] as const;

/** Where a task is: 'waiting' on the tasks it was put after, then delayed or ready, active, dead. */
export type TaskState = (typeof TASK_STATES)[number];

/** The same states in the order the views (list(), the CLI, the dashboard) show them: what runs next first. */
export const LISTED_STATES = ['ready', 'delayed', 'waiting', 'active', 'dead'] as const satisfies readonly TaskState[];

/**
 * Attempts a task gets unless its put says otherwise. A record leaves its attempts out when they
 * are this many (lua/include/record.lua), so most records are shorter by a field: records already
 * stored read it back, so changing it needs a layout migration (lib/redis/layout.ts).
 */
export const DEFAULT_MAX_ATTEMPTS = 5;

/** The most characters of an error kept as a task's last error; the rest is cut, with an ellipsis. */
export const MAX_ERROR_CHARS = 2000;
