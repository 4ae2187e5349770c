/**
 * Throughput over a day: the per-minute counters each queue keeps of its attempts' outcomes
 * (completed, failed and retrying, dead) for the last 24 hours, in one small hash (`minutes`,
 * lua/include/minutes.lua; docs/design.md#keys). The events stream is capped by entries, so on a
 * busy queue it holds minutes, not a day; the counters hold a day in at most 4,321 fields whatever
 * the rate, for one HINCRBY per ack call or failure. throughput() reads them (events.ts) when asked
 * for a window the stream would not cover.
 */
import { hgetall } from '../ops/commands/hashes';
import { routed } from '../ops/commands/via';
import { serverTime, type Context } from '../redis/context';

/** A minute, the counters' grain, in ms; and how many minutes they keep. */
export const MINUTE_MS = 60_000;
export const MINUTES_KEPT = 1440;
/** Windows up to this long are read from the events stream by default (the dashboard's 10-minute chart). */
export const STREAM_WINDOW_MS = 600_000;

/** The parsed throughput options this module reads. */
interface Parsed {
  window: number;
  bucket: number;
  source: 'auto' | 'events' | 'minutes';
}

/** Whether throughput() reads the counters: asked to, or (auto) a window past 10 minutes in whole-minute buckets. */
export function minutesFor(o: Parsed): boolean {
  if (o.source !== 'auto') return o.source === 'minutes';
  return o.window > STREAM_WINDOW_MS && o.bucket % MINUTE_MS === 0;
}

const KINDS: Record<string, 'completed' | 'failed' | 'dead'> = { c: 'completed', f: 'failed', d: 'dead' };

/** What the counters hold, in buckets: throughput() (events.ts) makes a Throughput of it. */
export interface MinuteCounts {
  now: number;
  since: number;
  buckets: Array<{ at: number; completed: number; failed: number; dead: number }>;
}

/**
 * The counters of `queue` in buckets of `bucket` ms (whole minutes), aligned to the clock: the last
 * bucket is the one `now` falls in (still filling), the first starts `window` before its end. One
 * HGETALL of at most 4,321 fields, however busy the queue.
 */
export async function readMinutes(ctx: Context, queue: string, o: Parsed): Promise<MinuteCounts> {
  const key = ctx.keys(queue).minutes;
  const now = await serverTime(ctx, key, 'throughput');
  const fields = await hgetall(routed(ctx.conn, key, { ms: ctx.options.commandTimeout, what: 'throughput' }), key);
  const count = Math.ceil(o.window / o.bucket);
  const last = Math.floor(now / o.bucket) * o.bucket;
  const start = last - (count - 1) * o.bucket;
  const buckets = Array.from({ length: count }, (_, i) => ({ at: start + i * o.bucket, completed: 0, failed: 0, dead: 0 }));
  for (const [field, value] of fields) {
    const kind = KINDS[field[0]];
    const minute = Number(field.slice(1));
    if (kind === undefined || !Number.isSafeInteger(minute)) continue; // 'swept'
    const i = Math.floor((minute * MINUTE_MS - start) / o.bucket);
    if (i >= 0 && i < count) buckets[i][kind] += Number(value) || 0;
  }
  // The counters keep whole minutes of the last day: older buckets were never counted (or deleted).
  const kept = (Math.floor(now / MINUTE_MS) - MINUTES_KEPT + 1) * MINUTE_MS;
  return { now, since: Math.max(start, kept), buckets };
}
