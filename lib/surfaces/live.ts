/**
 * Reads the Scheduler interface has no method for, made with the scheduler's own Context (its
 * connection, key names and command timeout, as lib/features/admin.ts reads), shared by the
 * dashboard's pages and the CLI (`docket workers`): the live workers of a queue
 * with the leases each holds (`workers`, `held`), the tasks parked by their group's limit and the
 * groups held by their rate (`parked`, `gheld`), and one task's recent events (`events`). See
 * docs/design.md#keys for each key. Every read is bounded: a queue with a million leases costs
 * the page a few thousand entries at most. A reply of another shape is a ReplyError (the page
 * reports it), never an empty list that would pass for an idle queue.
 */
import { xrevrange } from '../ops/commands/streams';
import { routed, type Via } from '../ops/commands/via';
import { zcard, zrange, zrangeWithScores } from '../ops/commands/zsets';
import { contextOf, type Context } from '../redis/context';
import type { Scheduler } from '../types/scheduler';

/** Most workers listed, soonest heartbeat deadline first. */
export const MAX_WORKERS = 200;
/** Most leases read (from `held`, by holder); the rest are counted, not listed. */
export const MAX_HELD = 2000;
/** Most parked tasks read (from `parked`, by group); the rest are counted, not listed. */
export const MAX_PARKED = 2000;
/** Most rate-held groups read. */
export const MAX_RATE_HELD = 200;
/** How far back a task's events are looked for: the queue's newest this many events. */
export const EVENTS_SCANNED = 2000;

/** One holder of leases: a work() worker with its heartbeat, or a direct claim() caller (no heartbeat). */
export interface WorkerView {
  id: string;
  /** When its heartbeat runs out (epoch ms, Redis clock), or null for a holder with no heartbeat entry. */
  beatUntil: number | null;
  /** The hashes of the tasks it holds, among the leases read. */
  holds: string[];
}

export interface WorkersView {
  now: number;
  /** Workers in the `workers` set in all. */
  workerCount: number;
  /** Leases in all; `held` lists at most MAX_HELD of them. */
  heldCount: number;
  workers: WorkerView[];
}

export interface ParkedView {
  /** Parked tasks in all, and the first MAX_PARKED of them by group, in the order they come back. */
  count: number;
  byGroup: Record<string, string[]>;
  /** Groups held by their rate limit, and when each window reopens (epoch ms, Redis clock). */
  rateHeld: Record<string, number>;
}

/** One event of a task from its queue's events stream. */
export interface TaskEvent {
  /** When (epoch ms, Redis clock: the stream entry's id). */
  at: number;
  type: string;
  attempt: number | null;
  error: string | null;
}

/** The scheduler's Context, or null for a scheduler createScheduler did not make (these views then say so). */
export function contextFor(scheduler: Scheduler): Context | null {
  return contextOf(scheduler) ?? null;
}

/** The scheduler's connection to the node of `key`, within the command timeout; `what` names the read in errors. */
export function via(ctx: Context, key: string, what: string): Via {
  return routed(ctx.conn, key, { ms: ctx.options.commandTimeout, what });
}

/** The live workers of `queue` and what each holds; holders of leases without a heartbeat come last. */
export async function readWorkers(ctx: Context, queue: string, now: number): Promise<WorkersView> {
  const k = ctx.keys(queue);
  const [workers, workerCount, held, heldCount] = await Promise.all([
    zrangeWithScores(via(ctx, k.workers, 'dashboard workers'), k.workers, 0, MAX_WORKERS - 1),
    zcard(via(ctx, k.workers, 'dashboard workers'), k.workers),
    zrange(via(ctx, k.held, 'dashboard workers'), k.held, 0, MAX_HELD - 1),
    zcard(via(ctx, k.held, 'dashboard workers'), k.held),
  ]);
  const holds = new Map<string, string[]>();
  for (const member of held) {
    // `<worker id>|<task id>`: hashes hold no '|', so the last one ends the worker's id.
    const bar = member.lastIndexOf('|');
    const id = member.slice(0, bar);
    holds.set(id, [...(holds.get(id) ?? []), member.slice(bar + 1)]);
  }
  const listed: WorkerView[] = workers.map(([id, until]) => ({ id, beatUntil: until, holds: holds.get(id) ?? [] }));
  const beating = new Set(listed.map((w) => w.id));
  const others = [...holds].filter(([id]) => !beating.has(id)).map(([id, hashes]) => ({ id, beatUntil: null, holds: hashes }));
  return { now, workerCount, heldCount, workers: [...listed, ...others] };
}

/** A queue's live workers as of the Redis clock: `available: false` when this scheduler's keys cannot be read here. */
export type WorkersPage = { queue: string; now: number } & ({ available: true; view: WorkersView } | { available: false });

/** What the dashboard's workers page and `docket workers` show of `queue`: readWorkers at the Redis clock's now. */
export async function readWorkersPage(scheduler: Scheduler, queue: string): Promise<WorkersPage> {
  const now = await scheduler.time();
  const ctx = contextFor(scheduler);
  if (ctx === null) return { queue, now, available: false };
  return { queue, now, available: true, view: await readWorkers(ctx, queue, now) };
}

/** The tasks parked by their group's limit, by group, and the groups their rate holds. */
export async function readParked(ctx: Context, queue: string): Promise<ParkedView> {
  const k = ctx.keys(queue);
  const [parked, count, gheld] = await Promise.all([
    zrange(via(ctx, k.parked, 'dashboard groups'), k.parked, 0, MAX_PARKED - 1),
    zcard(via(ctx, k.parked, 'dashboard groups'), k.parked),
    zrangeWithScores(via(ctx, k.gheld, 'dashboard groups'), k.gheld, 0, MAX_RATE_HELD - 1),
  ]);
  const byGroup: Record<string, string[]> = {};
  for (const member of parked) {
    // `<group>|<order>|<task id>`: group names hold no '|'.
    const [group, , ...rest] = member.split('|');
    (byGroup[group] ??= []).push(rest.join('|'));
  }
  return { count, byGroup, rateHeld: Object.fromEntries(gheld) };
}

/** Task `hash`'s events among the newest EVENTS_SCANNED of its queue, newest first. */
export async function readTaskEvents(ctx: Context, queue: string, hash: string): Promise<TaskEvent[]> {
  const k = ctx.keys(queue);
  const entries = await xrevrange(via(ctx, k.events, 'dashboard task events'), k.events, EVENTS_SCANNED);
  const found: TaskEvent[] = [];
  for (const { at, fields: f } of entries) {
    if (f.get('id') !== hash) continue;
    const attempt = f.get('attempt');
    found.push({ at, type: f.get('type') ?? '?', attempt: attempt === undefined ? null : Number(attempt), error: f.get('error') ?? null });
  }
  return found;
}
