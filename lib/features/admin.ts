/**
 * What operators need beyond the task API: counts and lifetime totals per queue, pages of tasks by
 * state, pausing a queue for every worker, and the registry of queue names that the CLI and the
 * dashboard list (so they never scan the keyspace).
 */
import { serverTime as readServerTime, type Context } from '../redis/context';
import { COUNTED_STATES, listOptions, parse, stateArg, STATES } from '../domain/options';
import type { Json } from '../types/json';
import { list as listOp, type ListedRecord } from '../ops/list';
import { pause as pauseOp } from '../ops/pause';
import { stats as statsOp } from '../ops/stats';
import { ENCRYPTED, isSealed, type Keyring } from '../domain/crypto';
import { toTaskInfo } from '../domain/task';
import type { TaskState } from '../types/task';
import type { NamedTotals, QueueStats, QueueTotals } from '../types/queues';
import type { ListOptions, ListedTask, PreviewListOptions, PreviewPage, PreviewTask, TaskPage } from '../types/lists';

/** Every state, in the order the views show them (declared with list()'s checks in domain/options/). */
export { COUNTED_STATES, STATES };
export { queues } from '../redis/registry';

const COUNTERS: Record<keyof QueueTotals, string> = {
  added: 'added',
  deduplicated: 'deduplicated',
  replaced: 'replaced',
  merged: 'merged',
  completed: 'completed',
  failed: 'failed',
  dead: 'dead',
  expired: 'expired',
  leaseLost: 'lease-lost',
  cancelled: 'cancelled',
};

export async function stats(ctx: Context, queue: string): Promise<QueueStats> {
  const { ready, delayed, active, dead, waiting, paused, pausedGroups, counters } = await ctx.scripts.run(statsOp, ctx.keys(queue), {});
  const byName: Record<string, NamedTotals> = Object.create(null) as Record<string, NamedTotals>;
  for (const [field, count] of counters) {
    const bar = field.indexOf('|');
    if (bar < 0) continue;
    const [outcome, name] = [field.slice(0, bar), field.slice(bar + 1)];
    if (outcome !== 'completed' && outcome !== 'failed' && outcome !== 'dead') continue;
    (byName[name] ??= { completed: 0, failed: 0, dead: 0 })[outcome] = count;
  }
  const totals = Object.fromEntries(Object.entries(COUNTERS).map(([field, name]) => [field, counters.get(name) ?? 0])) as unknown as QueueTotals;
  return {
    ready,
    delayed,
    active,
    dead,
    waiting,
    expired: totals.expired,
    deduplicated: totals.deduplicated,
    replaced: totals.replaced,
    paused,
    pausedGroups,
    totals,
    byName: { ...byName },
  };
}

/**
 * A page of tasks in one state. With `preview`, the script returns only the first bytes of each
 * payload (and its size), and the tasks carry those instead of parsed data.
 */
export function list(ctx: Context, state: unknown, options: PreviewListOptions): Promise<PreviewPage>;
export function list<T>(ctx: Context, state: unknown, options?: ListOptions): Promise<TaskPage<T>>;
export async function list<T>(ctx: Context, state: unknown, options?: ListOptions): Promise<TaskPage<T> | PreviewPage> {
  const s = parse(stateArg, state, 'state');
  const o = parse(listOptions, options ?? {}, 'options');
  const queue = o.queue ?? ctx.options.queue;
  // ARGV preview 0 reads whole payloads: list() without the option keeps its data.
  const { now, total, tasks } = await ctx.scripts.run(listOp, ctx.keys(queue), { state: s, offset: o.offset, count: o.limit, preview: o.preview ?? 0 });
  if (o.preview === undefined) return { now, total, tasks: tasks.map((r) => toListed<T>(queue, s, r, ctx.keyring)) };
  return { now, total, tasks: tasks.map((r) => toPreview(queue, s, r)) };
}

function toListed<T>(queue: string, state: TaskState, { id, payload, meta, score, progress }: ListedRecord, keyring: Keyring | null = null): ListedTask<T> {
  // A missing payload (a damaged record) reads as null, as it always has.
  const info = toTaskInfo<T>(queue, id, { payload, meta, state, progress }, keyring);
  return { ...info, diedAt: state === 'dead' ? Number(score) : null, waitingOn: state === 'waiting' ? Number(score) : null };
}

function toPreview(queue: string, state: TaskState, record: ListedRecord): PreviewTask {
  const { id, payload, bytes, progress } = record;
  // The head of an encrypted value cannot be opened, even with the key: shown as "encrypted".
  const sealed = isSealed(payload ?? '') || isSealed(progress ?? '');
  const shown = {
    preview: isSealed(payload ?? '') ? ENCRYPTED : (payload ?? ''),
    bytes,
    progressPreview: isSealed(progress ?? '') ? ENCRYPTED : progress || null,
    ...(sealed ? { encrypted: true as const } : {}),
  };
  try {
    // The head of a payload is no JSON to parse: the task's fields come from its meta alone (and
    // the progress, when it came whole).
    const { data: _, ...fields } = toListed<null>(queue, state, { ...record, payload: 'null', progress: null });
    if (progress && !isSealed(progress)) fields.progress = wholeJson(progress);
    return { ...fields, ...shown };
  } catch (err) {
    // A record that is not docket's (written by hand, or damaged): a view shows what it can of it,
    // its times as invalid, and says why in its last error, instead of failing the whole page.
    return { ...UNREADABLE, hash: id, queue, state, lastError: `docket: this task's record is unreadable (${(err as Error).message})`, ...shown };
  }
}

/** `text` parsed, or null when it is not whole JSON (a cut head). */
function wholeJson(text: string): Json | null {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return null;
  }
}

/** The fields of a task whose record cannot be read: nothing but NaN and null. */
const UNREADABLE = {
  runAt: NaN,
  expireAt: null,
  attempts: NaN,
  maxAttempts: NaN,
  priority: false,
  level: 0,
  group: null,
  key: null,
  schedule: null,
  leaseUntil: null,
  worker: null,
  diedAt: null,
  waitingOn: null,
  progress: null,
  keepResult: null,
  timeout: null,
  name: null,
  ending: null,
} as const;

/**
 * The Redis server's clock (epoch ms), which every run-at, lease and event time is on: operators
 * judge "in 5 s" and "+5m" by it, not by a local clock that may be off.
 */
export async function serverTime(ctx: Context, queue = ctx.options.queue): Promise<number> {
  // Asked of the queue's own node: on a cluster, the clock its scripts read.
  return readServerTime(ctx, ctx.keys(queue).counts, 'time');
}

/** Pauses (`paused` true) or resumes a queue; true when this call changed its state. */
export async function setPaused(ctx: Context, queue: string, paused: boolean): Promise<boolean> {
  return ctx.scripts.run(pauseOp, ctx.keys(queue), { paused, events: ctx.options.eventsMaxLength });
}

/** The stats of several queues (a sharded queue's shards) as one: paused only when all are. */
export function sumStats(all: QueueStats[]): QueueStats {
  const add = <K extends string>(keys: readonly K[], pick: (s: QueueStats) => Record<K, number>) =>
    Object.fromEntries(keys.map((k) => [k, all.reduce((n, s) => n + pick(s)[k], 0)])) as Record<K, number>;
  const counts = add([...COUNTED_STATES, 'expired', 'deduplicated', 'replaced'] as const, (s) => s);
  const totals = add(Object.keys(COUNTERS) as Array<keyof QueueTotals>, (s) => s.totals);
  // No prototype while summing: a task may be named __proto__.
  const byName: Record<string, NamedTotals> = Object.create(null) as Record<string, NamedTotals>;
  for (const s of all) {
    for (const [name, t] of Object.entries(s.byName)) {
      const sum = (byName[name] ??= { completed: 0, failed: 0, dead: 0 });
      sum.completed += t.completed;
      sum.failed += t.failed;
      sum.dead += t.dead;
    }
  }
  const pausedGroups = [...new Set(all.flatMap((s) => s.pausedGroups))].sort();
  return { ...counts, paused: all.length > 0 && all.every((s) => s.paused), pausedGroups, totals, byName: { ...byName } };
}
