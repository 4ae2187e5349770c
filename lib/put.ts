/**
 * Putting tasks: every item is checked and serialised before anything is sent, then items go to
 * put.lua in chunks, one script call (one round trip, pipelined) per chunk.
 */
import type { Context } from './context';
import { PayloadTooLargeError, ValidationError } from './errors';
import { identityOf } from './hashing';
import { parse, putOptions } from './options';
import { canonicalJson, type Json } from './payload';
import type { Span } from './time';

export interface PutOptions {
  /** Queue to put into. Default: the scheduler's `queue`. */
  queue?: string;
  /** true: claimed before every normal task. Default false. */
  priority?: boolean;
  /** Run this long after the Redis server's now: ms or a Duration ({ minutes: 5 }). Default 0. */
  delay?: Span;
  /** Absolute run-at (a Date or epoch ms). Not together with `delay`. */
  at?: Date | number;
  /** Drop the task if it is still unclaimed this long after it became due. Default: never. */
  expire?: Span;
  /** De-duplicate on this key instead of on the payload. */
  key?: string;
  /** Deliveries before the task goes dead. Default 5. */
  maxAttempts?: number;
}

export interface PutResult {
  /** The task's id, the same for every put of the same data (or key) while the task lives. */
  hash: string;
  /** false when an identical task was already there: a duplicate is a result, not an error. */
  added: boolean;
  queue: string;
  /** Run-at on the Redis clock (epoch ms); for a duplicate, the existing task's. */
  runAt: number;
}

/** Tasks per script call: large enough to amortise the round trip, small enough not to stall Redis. */
const CHUNK_ITEMS = 500;
/** A chunk also closes once its payloads pass this many bytes. */
const CHUNK_BYTES = 4 * 1024 * 1024;
interface Prepared {
  queue: string;
  args: Array<string | number>;
  bytes: number;
}

export async function putMany(
  ctx: Context,
  items: Array<{ data: Json; options?: unknown }>,
  many: boolean,
): Promise<PutResult[]> {
  if (!Array.isArray(items)) throw new ValidationError('items', 'expected an array of { data, options }');
  const prepared = items.map((item, i) => prepare(ctx, item, many ? `items[${i}].` : ''));
  const calls: Array<Promise<PutResult[]>> = [];
  let start = 0;
  while (start < prepared.length) {
    let end = start;
    let bytes = 0;
    const queue = prepared[start].queue;
    // A chunk holds one queue's tasks: a script call touches one queue's keys (one cluster slot).
    while (end < prepared.length && end - start < CHUNK_ITEMS && prepared[end].queue === queue && (bytes === 0 || bytes + prepared[end].bytes <= CHUNK_BYTES)) {
      bytes += prepared[end].bytes;
      end++;
    }
    calls.push(send(ctx, queue, prepared.slice(start, end)));
    start = end;
  }
  // Sent together: node-redis pipelines them, and one connection keeps their order.
  return (await Promise.all(calls)).flat();
}

function prepare(ctx: Context, item: { data: Json; options?: unknown }, at: string): Prepared {
  if (at && (typeof item !== 'object' || item === null)) throw new ValidationError(at.slice(0, -1), 'expected { data, options }');
  const o = parse(putOptions, item.options ?? {}, `${at}options`);
  const payload = canonicalJson(item.data, `${at}data`);
  const bytes = Buffer.byteLength(payload);
  if (bytes > ctx.options.maxPayloadBytes) throw new PayloadTooLargeError(`${at}data`, bytes, ctx.options.maxPayloadBytes);
  const id = ctx.hash(identityOf(payload, o.key));
  if (typeof id !== 'string' || id.length === 0) throw new ValidationError('options.hash', 'the hash function must return a non-empty string');
  const args = [
    id,
    payload,
    o.key ?? '',
    o.at === undefined ? (o.delay ?? 0) : '',
    o.at ?? '',
    o.priority ? '1' : '0',
    o.expire ?? '',
    o.maxAttempts,
  ];
  return { queue: o.queue ?? ctx.options.queue, args, bytes };
}

async function send(ctx: Context, queue: string, chunk: Prepared[]): Promise<PutResult[]> {
  const args = [chunk.length, ...chunk.flatMap((p) => p.args)];
  const reply = (await ctx.scripts.run('put', ctx.keys(queue), args)) as Array<string | number>;
  const results: PutResult[] = [];
  for (let i = 0; i < chunk.length * 3; i += 3) {
    results.push({ hash: String(reply[i]), added: Number(reply[i + 1]) === 1, queue, runAt: Number(reply[i + 2]) });
  }
  return results;
}
