/**
 * What operators need beyond the task API: counts and lifetime totals per queue, pages of tasks by
 * state, pausing a queue for every worker, and the registry of queue names that the CLI and the
 * dashboard list (so they never scan the keyspace).
 */
import { z } from 'zod';
import type { Context } from './context';
import { parse, queueName } from './options';
import type { Json } from './payload';
import { toTaskInfo, type TaskInfo, type TaskState } from './task';

/** Lifetime counters of a queue, kept in Redis by the scripts, so every process sees the same. */
export interface QueueTotals {
  /** Puts that stored a new task (a dead task put again counts too). */
  added: number;
  /** Puts that found a live duplicate. */
  deduplicated: number;
  /** Acks that finished a task. */
  completed: number;
  /** Failed attempts: fail() calls and lapsed leases. */
  failed: number;
  /** Tasks that used up their attempts. */
  dead: number;
  /** Tasks dropped because they expired unclaimed. */
  expired: number;
  /** Leases that lapsed before their worker acked or failed (a crashed or stalled worker). */
  leaseLost: number;
}

export interface QueueStats {
  ready: number;
  delayed: number;
  active: number;
  dead: number;
  /** Tasks dropped because they expired unclaimed, since the queue began (= totals.expired). */
  expired: number;
  /** Puts that found a live duplicate, since the queue began (= totals.deduplicated). */
  deduplicated: number;
  /** Whether claims are paused (pause()): workers lease nothing until resume(). */
  paused: boolean;
  totals: QueueTotals;
}

export interface ListOptions {
  queue?: string;
  /** Most tasks to return. Default 100, at most 1000. */
  limit?: number;
  /** How many to skip, in the state's order. Default 0. */
  offset?: number;
}

/** A page of tasks in one state, with the server's time to judge run-ats and leases by. */
export interface TaskPage<T = Json> {
  /** The Redis server's clock (epoch ms) when the page was read. */
  now: number;
  /** Tasks in this state in all (not only on this page). */
  total: number;
  tasks: Array<TaskInfo<T> & { diedAt: number | null }>;
}

export const STATES: readonly TaskState[] = ['ready', 'delayed', 'active', 'dead'];

const stateArg = z.enum(STATES as [TaskState, ...TaskState[]], { error: `expected one of ${STATES.join(', ')}` });
export const listOptions = z.strictObject({
  queue: queueName.optional(),
  limit: z.number().int().min(1, { error: 'must be from 1 to 1000' }).max(1000, { error: 'must be from 1 to 1000' }).default(100),
  offset: z.number().int().min(0, { error: 'must be 0 or more' }).default(0),
});

const COUNTERS: Record<keyof QueueTotals, string> = {
  added: 'added',
  deduplicated: 'deduplicated',
  completed: 'completed',
  failed: 'failed',
  dead: 'dead',
  expired: 'expired',
  leaseLost: 'lease-lost',
};

export async function stats(ctx: Context, queue: string): Promise<QueueStats> {
  const reply = (await ctx.scripts.run('stats', ctx.keys(queue), [])) as Array<string | number>;
  const counters = new Map<string, number>();
  for (let i = 5; i < reply.length; i += 2) counters.set(String(reply[i]), Number(reply[i + 1]));
  const totals = Object.fromEntries(Object.entries(COUNTERS).map(([field, name]) => [field, counters.get(name) ?? 0])) as unknown as QueueTotals;
  return {
    ready: Number(reply[0]),
    delayed: Number(reply[1]),
    active: Number(reply[2]),
    dead: Number(reply[3]),
    expired: totals.expired,
    deduplicated: totals.deduplicated,
    paused: Number(reply[4]) === 1,
    totals,
  };
}

export async function list<T>(ctx: Context, state: unknown, options?: ListOptions): Promise<TaskPage<T>> {
  const s = parse(stateArg, state, 'state');
  const o = parse(listOptions, options ?? {}, 'options');
  const queue = o.queue ?? ctx.options.queue;
  const reply = (await ctx.scripts.run('list', ctx.keys(queue), [s, o.offset, o.limit])) as string[];
  const tasks: TaskPage<T>['tasks'] = [];
  for (let i = 2; i < reply.length; i += 4) {
    const info = toTaskInfo<T>(queue, reply[i], [reply[i + 1], reply[i + 2], s]);
    tasks.push({ ...info, diedAt: s === 'dead' ? Number(reply[i + 3]) : null });
  }
  return { now: Number(reply[0]), total: Number(reply[1]), tasks };
}

/**
 * The Redis server's clock (epoch ms), which every run-at, lease and event time is on: operators
 * judge "in 5 s" and "+5m" by it, not by a local clock that may be off.
 */
export async function serverTime(ctx: Context): Promise<number> {
  const key = ctx.keys(ctx.options.queue).counts;
  const [seconds, micros] = (await ctx.conn.send(key, ['TIME'], { ms: ctx.options.commandTimeout, what: 'time' })) as [string, string];
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** Pauses (`paused` true) or resumes a queue; true when this call changed its state. */
export async function setPaused(ctx: Context, queue: string, paused: boolean): Promise<boolean> {
  return Number(await ctx.scripts.run('pause', ctx.keys(queue), [paused ? 1 : 0])) === 1;
}

/**
 * The registry of queue names: one SET per prefix, outside every queue's hash tag (on a cluster it
 * lives on a slot of its own). A process adds a queue once, after its first put there; the CLI
 * and dashboard read it with SMEMBERS instead of scanning the keyspace.
 */
export function registryKey(prefix: string): string {
  return `${prefix}:queues`;
}

/** Every queue registered under this prefix, by name. */
export async function queues(ctx: Context): Promise<string[]> {
  const key = registryKey(ctx.options.prefix);
  const deadline = { ms: ctx.options.commandTimeout, what: 'queues' };
  const names = (await ctx.conn.send(key, ['SMEMBERS', key], deadline)) as string[];
  return names.sort();
}

/** Adds `queue` to the registry once per process; a failure is retried on the next put. */
export async function register(ctx: Context, queue: string): Promise<void> {
  if (ctx.registered.has(queue)) return;
  const key = registryKey(ctx.options.prefix);
  await ctx.conn.send(key, ['SADD', key, queue], { ms: ctx.options.commandTimeout, what: 'register' });
  ctx.registered.add(queue);
}

/** The stats of several queues (a sharded queue's shards) as one: paused only when all are. */
export function sumStats(all: QueueStats[]): QueueStats {
  const add = <K extends string>(keys: readonly K[], pick: (s: QueueStats) => Record<K, number>) =>
    Object.fromEntries(keys.map((k) => [k, all.reduce((n, s) => n + pick(s)[k], 0)])) as Record<K, number>;
  const counts = add(['ready', 'delayed', 'active', 'dead', 'expired', 'deduplicated'] as const, (s) => s);
  const totals = add(Object.keys(COUNTERS) as Array<keyof QueueTotals>, (s) => s.totals);
  return { ...counts, paused: all.length > 0 && all.every((s) => s.paused), totals };
}
