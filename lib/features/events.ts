/**
 * Queue events: the scripts append each task outcome (completed, failed, dead, expired,
 * deduplicated, cancelled) and each progress report to a per-queue Redis stream, capped by length (lua/include/events.lua),
 * and with the scheduler's option `events: 'all'` the lifecycle events too (added, active, lapsed,
 * retrying, drained); paused and resumed always. events()
 * reads it as an async iterator, on a connection of its own, so any process can follow a queue,
 * and a producer can wait for its own task's outcome.
 */
import { entryTime, latest, xinfoStream, xrange, xread, type StreamEntry } from '../ops/commands/streams';
import { dedicated, routed } from '../ops/commands/via';
import type { Standalone } from '../types/client';
import { serverTime, type Context } from '../redis/context';
import { type DocketError, fromRedisError } from '../types/errors';
import { errorFields } from '../domain/log';
import { eventsOptions, parse, throughputOptions } from '../domain/options';
import type { Keyring } from '../domain/crypto';
import { viewOf } from '../domain/task';
import type { Ending } from '../types/outcome';
import { minutesFor, readMinutes } from './minutes';
import type { EventType, EventsOptions, QueueEvent, Throughput, ThroughputOptions } from '../types/events';

/** Entries read per call, and how long one blocking read waits before it looks again. */
const BATCH = 100;
const BLOCK_MS = 5000;
/** Pause before reading again after a lost connection. */
const RETRY_MS = 200;

/**
 * The events of `queue`. The starting point is fixed now, on the scheduler's connection, before
 * any later call of this process reaches Redis: so events() then put() never misses the put's
 * outcome, however fast a worker is.
 */
export function events(ctx: Context, queue: string, options: EventsOptions | undefined, closing: AbortSignal): AsyncIterableIterator<QueueEvent> {
  const o = parse(eventsOptions, options ?? {}, 'options');
  // Ends with the caller's signal, or when the scheduler closes.
  const signal = o.signal ? AbortSignal.any([o.signal, closing]) : closing;
  const key = ctx.keys(queue).events;
  const deadline = { ms: ctx.options.commandTimeout, what: 'events' };
  const start: Promise<string> =
    o.from === 'start' ? Promise.resolve('0-0') : o.from !== 'now' ? Promise.resolve(o.from) : latest(routed(ctx.conn, key, deadline), key).then((id) => id ?? '0-0');
  // A start that fails is reported by the first next(), not as an unhandled rejection now.
  start.catch(() => {});
  return read(ctx, queue, key, start, signal);
}

async function* read(ctx: Context, queue: string, key: string, start: Promise<string>, signal: AbortSignal): AsyncGenerator<QueueEvent> {
  let last = await start;
  let conn: Standalone | null = null;
  const drop = () => {
    const c = conn;
    conn = null;
    if (c?.isOpen) void c.disconnect().catch(() => {});
  };
  signal.addEventListener('abort', drop);
  try {
    while (!signal.aborted) {
      let entries: StreamEntry[];
      try {
        conn ??= await ctx.conn.duplicate(key, ctx.options.commandTimeout);
        entries = (await xread(dedicated(conn), [[key, last]], { count: BATCH, block: BLOCK_MS })).get(key) ?? [];
      } catch (err) {
        if (signal.aborted) return;
        const error = fromRedisError(err, 'events');
        // A lost connection (a restart, a failover): read again from the last event seen, on a
        // new connection. Anything else (an ACL refusal, a reply of another shape: a ReplyError) is for the caller.
        if (!isConnectionLoss(error)) throw error;
        ctx.log.warn({ queue, ...errorFields(error) }, 'docket: events connection lost; reading again');
        drop();
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        continue;
      }
      for (const entry of entries) {
        last = entry.id;
        yield toEvent(queue, entry, ctx.keyring);
      }
    }
  } finally {
    signal.removeEventListener('abort', drop);
    drop();
  }
}

function isConnectionLoss(err: DocketError): boolean {
  return err.code === 'ERR_CONNECTION' || err.code === 'ERR_INDETERMINATE' || err.code === 'ERR_TIMEOUT';
}

function toEvent(queue: string, { id, at, fields: f }: StreamEntry, keyring: Keyring | null = null): QueueEvent {
  const attempt = f.get('attempt');
  const runAt = f.get('runAt');
  const type = f.get('type') as EventType;
  // Encrypted with a key this scheduler lacks (options.encryption): undefined, shown as null, marked.
  const result = f.get('result') ? viewOf(keyring, f.get('result')!, "an event's result") : null;
  const progress = f.has('progress') ? viewOf(keyring, f.get('progress')!, "an event's progress") : null;
  return {
    id,
    queue,
    type,
    hash: f.get('id') ?? '',
    at,
    attempt: attempt === undefined ? null : Number(attempt),
    error: f.get('error') ?? null,
    ending: endingOf(type, f.get('ending')),
    into: f.get('into') ?? null,
    name: f.get('name') ?? null,
    worker: f.get('worker') || null,
    runAt: runAt === undefined ? null : Number(runAt),
    group: f.get('group') ?? null,
    result: result ?? null,
    progress: progress ?? null,
    ...(result === undefined || progress === undefined ? { encrypted: true as const } : {}),
  };
}

/** An event's ending: a snooze's is 'snoozed'; a failed, dead or retrying event's is its field (absent: an older writer's, 'failed'). */
function endingOf(type: EventType, field: string | undefined): Ending | null {
  if (type === 'snoozed') return 'snoozed';
  if (type !== 'failed' && type !== 'dead' && type !== 'retrying') return null;
  return field === 'unrecoverable' || field === 'retry-later' ? field : 'failed';
}

const TYPES: readonly EventType[] = [
  'completed',
  'failed',
  'dead',
  'expired',
  'deduplicated',
  'replaced',
  'merged',
  'cancelled',
  'progress',
  'snoozed',
  'added',
  'active',
  'lapsed',
  'retrying',
  'drained',
  'paused',
  'resumed',
];

/** Outcomes per time bucket, counted from the events stream (what a throughput chart plots). */
export async function throughput(ctx: Context, queue: string, options?: ThroughputOptions): Promise<Throughput> {
  const o = parse(throughputOptions, options ?? {}, 'options');
  if (minutesFor(o)) {
    // The per-minute counters (lib/features/minutes.ts) count completed, failed and dead only.
    const m = await readMinutes(ctx, queue, o);
    const buckets = m.buckets.map((b) => ({ ...(Object.fromEntries(TYPES.map((t) => [t, 0])) as Record<EventType, number>), ...b }));
    return { now: m.now, bucket: o.bucket, since: m.since, buckets, source: 'minutes' };
  }
  const key = ctx.keys(queue).events;
  const deadline = { ms: ctx.options.commandTimeout, what: 'throughput' };
  const now = await serverTime(ctx, key, 'throughput');
  const count = Math.ceil(o.window / o.bucket);
  const start = now - count * o.bucket;
  const buckets = Array.from({ length: count }, (_, i) => ({
    at: start + i * o.bucket,
    ...(Object.fromEntries(TYPES.map((t) => [t, 0])) as Record<EventType, number>),
  }));
  // The stream is capped (eventsMaxLength), so this read is bounded however busy the queue.
  const entries = await xrange(routed(ctx.conn, key, deadline), key, String(start));
  for (const { at, fields } of entries) {
    // An event in the very millisecond of `now` belongs to the last bucket (ends are exclusive
    // otherwise); one written after the TIME read (XRANGE reads to the end) is past the window.
    const i = at === now ? count - 1 : Math.floor((at - start) / o.bucket);
    const type = fields.get('type') as EventType;
    if (i >= 0 && i < count && type in buckets[i]) buckets[i][type]++;
  }
  // Trimming (MAXLEN) drops the oldest entries: once any were dropped, the counts are whole only
  // from the oldest entry left.
  // (Redis before 7.0 counts no entries added: its counts are taken as whole.)
  const info = entries.length > 0 ? await xinfoStream(routed(ctx.conn, key, deadline), key) : null;
  const trimmed = info?.entriesAdded != null && info.entriesAdded > info.length;
  const first = trimmed && info.recordedFirstEntryId !== null ? entryTime(info.recordedFirstEntryId, 'XINFO STREAM') : 0;
  return { now, bucket: o.bucket, since: Math.max(start, first), buckets, source: 'events' };
}
