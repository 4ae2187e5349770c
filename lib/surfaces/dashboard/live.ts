/**
 * Reads the Scheduler interface has no method for, made with the scheduler's own Context (its
 * connection, key names and command timeout, as lib/features/admin.ts reads): the live workers of a queue
 * with the leases each holds (`workers`, `held`), the tasks parked by their group's limit and the
 * groups held by their rate (`parked`, `gheld`), and one task's recent events (`events`). See
 * docs/design.md#keys for each key. Every read is bounded: a queue with a million leases costs
 * the page a few thousand entries at most.
 */
import { contextOf, type Context } from '../../redis/context';
import type { Scheduler } from '../scheduler';

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

function send(ctx: Context, key: string, args: string[], what: string): Promise<unknown> {
  return ctx.conn.send(key, args, { ms: ctx.options.commandTimeout, what });
}

/** `[member, score, member, score, ...]` (RESP2) or `[{value, score}]`-like replies, as pairs. */
function pairs(reply: unknown): Array<[string, number]> {
  const out: Array<[string, number]> = [];
  if (!Array.isArray(reply)) return out;
  for (let i = 0; i + 1 < reply.length; i += 2) out.push([String(reply[i]), Number(reply[i + 1])]);
  return out;
}

function strings(reply: unknown): string[] {
  return Array.isArray(reply) ? reply.map(String) : [];
}

/** The live workers of `queue` and what each holds; holders of leases without a heartbeat come last. */
export async function readWorkers(ctx: Context, queue: string, now: number): Promise<WorkersView> {
  const k = ctx.keys(queue);
  const [workers, workerCount, held, heldCount] = await Promise.all([
    send(ctx, k.workers, ['ZRANGE', k.workers, '0', String(MAX_WORKERS - 1), 'WITHSCORES'], 'dashboard workers'),
    send(ctx, k.workers, ['ZCARD', k.workers], 'dashboard workers'),
    send(ctx, k.held, ['ZRANGE', k.held, '0', String(MAX_HELD - 1)], 'dashboard workers'),
    send(ctx, k.held, ['ZCARD', k.held], 'dashboard workers'),
  ]);
  const holds = new Map<string, string[]>();
  for (const member of strings(held)) {
    // `<worker id>|<task id>`: hashes hold no '|', so the last one ends the worker's id.
    const bar = member.lastIndexOf('|');
    const id = member.slice(0, bar);
    holds.set(id, [...(holds.get(id) ?? []), member.slice(bar + 1)]);
  }
  const listed: WorkerView[] = pairs(workers).map(([id, until]) => ({ id, beatUntil: until, holds: holds.get(id) ?? [] }));
  const beating = new Set(listed.map((w) => w.id));
  const others = [...holds].filter(([id]) => !beating.has(id)).map(([id, hashes]) => ({ id, beatUntil: null, holds: hashes }));
  return { now, workerCount: Number(workerCount), heldCount: Number(heldCount), workers: [...listed, ...others] };
}

/** The tasks parked by their group's limit, by group, and the groups their rate holds. */
export async function readParked(ctx: Context, queue: string): Promise<ParkedView> {
  const k = ctx.keys(queue);
  const [parked, count, gheld] = await Promise.all([
    send(ctx, k.parked, ['ZRANGE', k.parked, '0', String(MAX_PARKED - 1)], 'dashboard groups'),
    send(ctx, k.parked, ['ZCARD', k.parked], 'dashboard groups'),
    send(ctx, k.gheld, ['ZRANGE', k.gheld, '0', String(MAX_RATE_HELD - 1), 'WITHSCORES'], 'dashboard groups'),
  ]);
  const byGroup: Record<string, string[]> = {};
  for (const member of strings(parked)) {
    // `<group>|<order>|<task id>`: group names hold no '|'.
    const [group, , ...rest] = member.split('|');
    (byGroup[group] ??= []).push(rest.join('|'));
  }
  return { count: Number(count), byGroup, rateHeld: Object.fromEntries(pairs(gheld)) };
}

/** Task `hash`'s events among the newest EVENTS_SCANNED of its queue, newest first. */
export async function readTaskEvents(ctx: Context, queue: string, hash: string): Promise<TaskEvent[]> {
  const k = ctx.keys(queue);
  const reply = await send(ctx, k.events, ['XREVRANGE', k.events, '+', '-', 'COUNT', String(EVENTS_SCANNED)], 'dashboard task events');
  const found: TaskEvent[] = [];
  for (const entry of Array.isArray(reply) ? reply : []) {
    const [id, fields] = entry as [string, unknown];
    const f = new Map<string, string>();
    const list = strings(fields);
    for (let i = 0; i + 1 < list.length; i += 2) f.set(list[i], list[i + 1]);
    if (f.get('id') !== hash) continue;
    const attempt = f.get('attempt');
    found.push({ at: Number(String(id).split('-')[0]), type: f.get('type') ?? '?', attempt: attempt === undefined ? null : Number(attempt), error: f.get('error') ?? null });
  }
  return found;
}
