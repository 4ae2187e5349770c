/**
 * Queue events: the scripts append each task outcome (completed, failed, dead, expired,
 * deduplicated) to a per-queue Redis stream, capped by length (lua/include/events.lua). events()
 * reads it as an async iterator, on a connection of its own, so any process can follow a queue,
 * and a producer can wait for its own task's outcome.
 */
import { z } from 'zod';
import type { Standalone } from './connection';
import type { Context } from './context';
import { type DocketError, fromRedisError } from './errors';
import { errorFields } from './log';
import { parse } from './options';

export type EventType = 'completed' | 'failed' | 'dead' | 'expired' | 'deduplicated';

export interface QueueEvent {
  /** The stream entry id: events are ordered by it, and `from` resumes after it. */
  readonly id: string;
  readonly queue: string;
  readonly type: EventType;
  /** The task's hash, as put() returned it. */
  readonly hash: string;
  /** When it happened: epoch ms on the Redis clock. */
  readonly at: number;
  /** Which delivery it was (completed, failed, dead), else null. */
  readonly attempt: number | null;
  /** The failure, cut to its first 500 characters (failed, dead), else null; get() has it whole. */
  readonly error: string | null;
}

export interface EventsOptions {
  /**
   * Where to start: 'now' (default: only events after this call), 'start' (the oldest the stream
   * still holds), or an event id to resume after.
   */
  from?: 'now' | 'start' | string;
  /** Aborting it ends the iteration; so does closing the scheduler. */
  signal?: AbortSignal;
}

const eventsOptions = z.strictObject({
  from: z.union([z.literal('now'), z.literal('start'), z.string().regex(/^\d+-\d+$/)], { error: "expected 'now', 'start' or an event id such as '1700000000000-0'" }).default('now'),
  signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal, { error: 'expected an AbortSignal' }).optional(),
});

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
    o.from === 'start' ? Promise.resolve('0-0')
    : o.from !== 'now' ? Promise.resolve(o.from)
    : ctx.conn.send(key, ['XREVRANGE', key, '+', '-', 'COUNT', '1'], deadline).then((r) => (r as Array<[string]>)[0]?.[0] ?? '0-0');
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
      let reply: unknown;
      try {
        conn ??= await ctx.conn.duplicate(key, ctx.options.commandTimeout);
        reply = await conn.sendCommand(['XREAD', 'COUNT', String(BATCH), 'BLOCK', String(BLOCK_MS), 'STREAMS', key, last]);
      } catch (err) {
        if (signal.aborted) return;
        const error = fromRedisError(err, 'events');
        // A lost connection (a restart, a failover): read again from the last event seen, on a
        // new connection. Anything else (an ACL refusal, say) is for the caller.
        if (!isConnectionLoss(error)) throw error;
        ctx.log.warn({ queue, ...errorFields(error) }, 'docket: events connection lost; reading again');
        drop();
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        continue;
      }
      for (const [id, fields] of (reply as Array<[string, Array<[string, string[]]>]> | null)?.[0]?.[1] ?? []) {
        last = id;
        yield toEvent(queue, id, fields);
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

function toEvent(queue: string, id: string, fields: string[]): QueueEvent {
  const f = new Map<string, string>();
  for (let i = 0; i < fields.length; i += 2) f.set(fields[i], fields[i + 1]);
  const attempt = f.get('attempt');
  return {
    id,
    queue,
    type: f.get('type') as EventType,
    hash: f.get('id') ?? '',
    at: Number(id.slice(0, id.indexOf('-'))),
    attempt: attempt === undefined ? null : Number(attempt),
    error: f.get('error') ?? null,
  };
}
