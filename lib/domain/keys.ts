/**
 * Every Redis key docket uses comes from here. A queue's keys have the form
 * `<prefix>:{<queue>}:<suffix>`: the `{queue}` hash tag puts all of them in one Redis Cluster slot,
 * so every script can touch all of them atomically. The one key outside every queue is the registry
 * of queue names, `<prefix>:queues` (registryKey). docs/design.md lists each key with its type.
 */

/** The ready lists of priority levels 1 to 9 (level 0, normal tasks, is `ready`). */
export const READY_LEVELS = ['ready1', 'ready2', 'ready3', 'ready4', 'ready5', 'ready6', 'ready7', 'ready8', 'ready9'] as const;

/** The fixed key set of a queue: nothing docket writes lives outside it. */
export const SUFFIXES = [
  'tasks',
  'delayed',
  'ready',
  'active',
  'dead',
  'counts',
  'wake',
  'acked',
  'workers',
  'held',
  'busy',
  'schedules',
  'occurred',
  'levels',
  ...READY_LEVELS,
  'grouped',
  'gtags',
  'parked',
  'gactive',
  'glimits',
  'paused',
  'events',
  'results',
  'kept',
  'progress',
  'windows',
  'redirects',
  'limits',
  'rates',
  'gheld',
  'blocked',
  'after',
  'dependents',
  'deplist',
  'settle',
  'outbox',
  'logs',
  'moved',
  'done',
  'history',
  'keep',
  'minutes',
  'cancels',
  'gpaused',
  // A marker, not data: set for 24 hours by the process that gave the start-up warning about
  // AOF (lib/redis/checks.ts), so the other processes on that server stay quiet for the day.
  'warned',
  // Legacy keys, listed so that obliterate deletes them too. The layout before one field per task
  // (record and payload apart): read only by migrate.lua, which moves such a queue's tasks into
  // `tasks`. And 0.1's name for `redirects`: read only by rekey.lua, which moves its pointers there.
  'data',
  'meta',
  'waiting',
] as const;
export type Suffix = (typeof SUFFIXES)[number];
export type QueueKeys = Readonly<Record<Suffix, string>>;

/** All keys of one queue. Names must already be validated (see domain/options/). */
export function queueKeys(prefix: string, queue: string): QueueKeys {
  const base = `${prefix}:{${queue}}:`;
  return Object.fromEntries(SUFFIXES.map((s) => [s, base + s])) as Record<Suffix, string>;
}

/**
 * The registry of queue names: one SET per prefix, outside every queue's hash tag (on a cluster it
 * lives on a slot of its own). A process adds a queue once, after its first put there; the CLI
 * and dashboard read it with SMEMBERS instead of scanning the keyspace.
 */
export function registryKey(prefix: string): string {
  return `${prefix}:queues`;
}
