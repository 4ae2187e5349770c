/**
 * Putting tasks: every item is checked and serialised before anything is sent, then items go to
 * put.lua in chunks, one script call (one round trip, pipelined) per chunk (put-chunks.ts). Single
 * puts made in the same turn of the event loop (many callers, each awaiting its own put) are
 * gathered into calls of 25 per queue: a put costs its share of a script call, not a round trip.
 *
 * A put, from the caller's items to the script's answer: each step (options, payload, identity,
 * chunking, gathering single puts) is a function here; put()'s options are in lib/types/put.ts.
 */
import { performance } from 'node:perf_hooks';
import { registryKey } from '../domain/keys';
import { register } from '../redis/registry';
import type { Context } from '../redis/context';
import { smismember } from '../ops/commands/sets';
import { routed } from '../ops/commands/via';
import { afterArg, carry, otherQueues, type DependencyRef } from '../features/deps';
import { errorFields } from '../domain/log';
import { encodeCarrier, listened, traced } from '../features/tracing';
import { tracingChannels as channels } from '../types/tracing';
import type { Carrier } from '../types/task';
import type { PutOptions, PutResult, PutStatus } from '../types/put';
import { PayloadTooLargeError, ValidationError } from '../types/errors';
import { identityOf } from '../domain/hashing';
import { DEFAULT_MAX_ATTEMPTS } from '../domain/domain';
import { eventArgs, parse, putOptions } from '../domain/options';
import { canonicalJson } from '../domain/payload';
import type { Json } from '../types/json';
import { put, type PutCode, type PutItem } from '../ops/put';
import { CHUNK_ITEMS, GATHERED_ITEMS, inChunks } from './put-chunks';

/** Most puts take the default options: those are parsed once, not once per task. */
const DEFAULTS = parse(putOptions, {}, 'options');
interface Prepared {
  queue: string;
  /** The task as put.lua takes it. */
  item: PutItem;
  bytes: number;
  options: ParsedPut;
  /** Other queues its `after` names: they must exist, and its put is carried to them. */
  others: string[];
  /** The schedule that puts it (runNow), for its record; '' for none. */
  schedule: string;
  /** When put() or putMany() was called (performance.now()): its `delay` counts from then. */
  calledAt: number;
}
type ParsedPut = typeof DEFAULTS;

export async function putMany(ctx: Context, items: Array<{ data: Json; options?: unknown }>): Promise<PutResult[]> {
  if (!Array.isArray(items)) throw new ValidationError('items', 'expected an array of { data, options }');
  const calledAt = performance.now();
  const prepared = items.map((item, i) => prepare(ctx, item, `items[${i}].`, '', calledAt));
  await checkQueues(ctx, prepared);
  return withTrace(prepared, async () => (await Promise.all(chunks(ctx, prepared, CHUNK_ITEMS).map((c) => c.results))).flat());
}

/**
 * Puts one task, in the same script call as the other puts of this turn of the event loop.
 * `schedule` names the schedule that puts it outside its occurrences (runScheduleNow), for its record.
 */
export function putOne(ctx: Context, data: Json, options: unknown, schedule = ''): Promise<PutResult> {
  const prepared = prepare(ctx, { data, options }, '', schedule);
  // Not async, and no await unless the task waits on another queue: the common put goes to its
  // gathered call with no extra promise in between (an async wrapper cost about 5% of put's rate).
  if (prepared.others.length > 0) return checkQueues(ctx, [prepared]).then(() => sendOne(ctx, prepared));
  return sendOne(ctx, prepared);
}

function sendOne(ctx: Context, prepared: Prepared): Promise<PutResult> {
  if (!listened(channels.put)) return gather(ctx, prepared);
  return withTrace([prepared], async () => [await gather(ctx, prepared)]).then((r) => r[0]);
}

/**
 * Publishes the put on `docket:put` when anyone listens; a trace context a subscriber leaves in a
 * task's carrier is stored with the task (see tracing.ts).
 */
function withTrace(prepared: Prepared[], send: () => Promise<PutResult[]>): Promise<PutResult[]> {
  if (!listened(channels.put)) return send();
  const items = prepared.map((p) => ({ queue: p.queue, carrier: {} as Carrier }));
  return traced(
    channels.put,
    () => ({ items }),
    () => {
      items.forEach((item, i) => {
        const trace = encodeCarrier(item.carrier);
        if (trace !== '') prepared[i].item.options = optionsJson(prepared[i].options, trace, prepared[i].schedule);
      });
      return send();
    },
  );
}

function gather(ctx: Context, prepared: Prepared): Promise<PutResult> {
  let gather = gathering.get(ctx);
  if (!gather) {
    gather = { items: [], waiters: [], sent: null };
    gathering.set(ctx, gather);
    // setImmediate, not a microtask: it runs once every caller woken by this socket read has had
    // its turn to put, so one call carries them all.
    gather.sent = new Promise((resolve) => setImmediate(resolve)).then(() => flush(ctx));
  }
  const g = gather;
  return new Promise((resolve, reject) => {
    g.items.push(prepared);
    g.waiters.push({ resolve, reject });
  });
}

/** Sends the gathered single puts now (close() calls it before the connection goes). */
export async function flushPuts(ctx: Context): Promise<void> {
  await gathering.get(ctx)?.sent;
}

interface Gathered {
  items: Prepared[];
  waiters: Array<{ resolve: (r: PutResult) => void; reject: (e: unknown) => void }>;
  sent: Promise<void> | null;
}
const gathering = new WeakMap<Context, Gathered>();

async function flush(ctx: Context): Promise<void> {
  const g = gathering.get(ctx)!;
  gathering.delete(ctx);
  // Grouped by queue, in put order within each: one call touches one queue's keys.
  const byQueue = new Map<string, number[]>();
  g.items.forEach((p, i) => {
    const list = byQueue.get(p.queue);
    if (list) list.push(i);
    else byQueue.set(p.queue, [i]);
  });
  await Promise.all(
    [...byQueue.values()].map(async (indexes) => {
      let at = 0;
      // Each chunk's callers are answered as its reply comes, while Redis runs the next chunk.
      for (const call of chunks(
        ctx,
        indexes.map((i) => g.items[i]),
        GATHERED_ITEMS,
      )) {
        const part = indexes.slice(at, (at += call.size));
        try {
          const results = await call.results;
          part.forEach((i, j) => g.waiters[i].resolve(results[j]));
        } catch (err) {
          part.forEach((i) => g.waiters[i].reject(err));
        }
      }
    }),
  );
}

function prepare(ctx: Context, item: { data: Json; options?: unknown }, at: string, schedule = '', calledAt = performance.now()): Prepared {
  if (at && (typeof item !== 'object' || item === null)) throw new ValidationError(at.slice(0, -1), 'expected { data, options }');
  const o = item.options == null ? DEFAULTS : parse(putOptions, item.options, `${at}options`);
  const payload = canonicalJson(item.data, `${at}data`, { bytes: ctx.options.maxPayloadBytes });
  const bytes = Buffer.byteLength(payload);
  if (bytes > ctx.options.maxPayloadBytes) throw new PayloadTooLargeError(`${at}data`, bytes, ctx.options.maxPayloadBytes);
  const queue = o.queue ?? ctx.options.queue;
  const id = ctx.taskId(queue, identityOf(payload, o.key, o.name));
  const after = afterArg(queue, id, o.after, o.onDependencyFailure, at);
  // Sealed with its MAC, so that put.lua's de-dup tells equal payloads of the queue (crypto.ts).
  const stored = ctx.keyring ? ctx.keyring.sealPayload(payload, ctx.options.prefix, queue) : payload;
  return { queue, item: { id, payload: stored, options: optionsJson(o, '', schedule), after }, bytes, options: o, others: otherQueues(queue, after), schedule, calledAt };
}

/**
 * A task may wait only on tasks of queues that exist (that have had a put): a misspelt queue name
 * would leave it waiting for ever. Checked before anything is written; queues this process has
 * put to are known without asking.
 */
async function checkQueues(ctx: Context, prepared: Prepared[]): Promise<void> {
  const unknown = [...new Set(prepared.flatMap((p) => p.others))].filter((q) => !ctx.registered.has(q));
  if (unknown.length === 0) return;
  const key = registryKey(ctx.options.prefix);
  const known = await smismember(routed(ctx.conn, key, { ms: ctx.options.commandTimeout, what: 'put' }), key, ...unknown);
  const missing = unknown.filter((_, i) => !known[i]);
  if (missing.length === 0) return;
  prepared.forEach((p, i) => {
    const refs = (p.options.after ?? []) as DependencyRef[];
    const j = refs.findIndex((r) => typeof r !== 'string' && missing.includes(r.queue));
    if (j < 0) return;
    const name = (refs[j] as { queue: string }).queue;
    throw new ValidationError(`${prepared.length > 1 ? `items[${i}].` : ''}options.after[${j}].queue`, `no queue named ${JSON.stringify(name)} has had a task put`);
  });
}

/**
 * The options travel as one argument, '' for the defaults: most tasks take them, and each argument
 * costs on both sides (encoding here, a Lua string in Redis). Otherwise a JSON object of the
 * options given, by the short names lua/include/options.lua decodes (once, by cjson); a default
 * is left out. `trace` is an encoded carrier.
 */
function optionsJson(o: ParsedPut, trace: string, schedule: string): string {
  const given: Record<string, string | number | Record<string, number>> = {};
  if (o.delay !== undefined) given.d = o.delay;
  if (o.at !== undefined) given.a = o.at;
  if (o.priority !== 0) given.p = o.priority;
  if (o.expire !== undefined) given.x = o.expire;
  if (o.maxAttempts !== DEFAULT_MAX_ATTEMPTS) given.m = o.maxAttempts;
  if (o.group !== undefined) given.g = o.group;
  if (trace !== '') given.tr = trace;
  if (o.keepResult !== undefined) given.kr = o.keepResult;
  const kp = o.keep === undefined ? {} : keepCaps(o.keep);
  if (Object.keys(kp).length > 0) given.kp = kp;
  const mode = `${o.unique === 'until-start' ? 's' : ''}${o.onDuplicate === 'replace' ? 'r' : o.onDuplicate === 'debounce' ? 'd' : ''}`;
  if (mode !== '') given.md = mode;
  if (o.dedupWindow !== undefined) given.w = o.dedupWindow;
  if (o.timeout !== undefined) given.to = o.timeout;
  if (o.name !== undefined) given.nm = o.name;
  if (o.key !== undefined) given.k = o.key;
  if (schedule !== '') given.sc = schedule;
  return Object.keys(given).length > 0 ? JSON.stringify(given) : '';
}

/**
 * put's `keep`, as the record stores it (meta.kp, read by lua/include/history.lua and deadcaps.lua):
 * flat, by short name, only the caps given: dc and da the done count and age, xc and xa the dead
 * ones; false is a count of 0 (not kept). Empty caps are left out whole.
 */
function keepCaps(keep: NonNullable<ParsedPut['keep']>): Record<string, number> {
  const caps: Record<string, number> = {};
  for (const [kind, c, a] of [[keep.done, 'dc', 'da'] as const, [keep.dead, 'xc', 'xa'] as const]) {
    if (kind === false) caps[c] = 0;
    else if (kind !== undefined) {
      if (kind.count !== undefined) caps[c] = kind.count;
      if (kind.age !== undefined) caps[a] = kind.age;
    }
  }
  return caps;
}

/**
 * Puts occurrences of the recurring schedule `schedule` in one call (each item with an `at`).
 * put.lua skips an occurrence that was put before (by any process): `added` is false and `hash`
 * empty. Once the schedule is gone (unschedule), it puts none and answers `gone`.
 */
export async function putOccurrences(ctx: Context, queue: string, schedule: string, items: Array<{ data: Json; options: PutOptions }>): Promise<{ gone: boolean; results: PutResult[] }> {
  const prepared = items.map((item, i) => prepare(ctx, item, `items[${i}].`));
  const replies = await call(ctx, queue, prepared, schedule);
  return { gone: replies.some((r) => r.code === -1), results: replies.map((r) => r.result) };
}

/** Puts `prepared` in put order, in chunks (put-chunks.ts). */
function chunks(ctx: Context, prepared: Prepared[], most: number): Array<{ size: number; results: Promise<PutResult[]> }> {
  return inChunks(
    prepared,
    most,
    () => ctx.scripts.isCached(put),
    async (queue, chunk, answered) => (await call(ctx, queue, chunk, '', answered)).map((r) => r.result),
  );
}

/**
 * The items as sent: a delayed task's options also carry `wt`, the whole ms its put waited in this
 * process (gathered, chunked, behind the calls before it) up to now, as it is sent, so that put.lua
 * counts its `delay` from the put() call (lua/include/anchor.lua). A duration on the monotonic
 * clock, floored: the caller's clock plays no part, and no task comes due before its delay has
 * passed since its call. Only delayed tasks carry it: the common put sends nothing more.
 */
function sentItems(chunk: Prepared[]): PutItem[] {
  const now = performance.now();
  return chunk.map((p) => (p.options.delay === undefined ? p.item : { ...p.item, options: `{"wt":${Math.max(0, Math.floor(now - p.calledAt))},${p.item.options.slice(1)}` }));
}

/** What a put did, by its code; a skipped occurrence (-1, the schedule is gone) reads as a duplicate. */
const STATUS: Record<PutCode, PutStatus> = { 1: 'added', 2: 'revived', 3: 'replaced', 0: 'duplicate', [-1]: 'duplicate' };

/** One put.lua call; `code` is 1 (added), 2 (revived), 3 (replaced), 0 (a duplicate, or an occurrence put before) or -1 (schedule gone). */
async function call(ctx: Context, queue: string, chunk: Prepared[], schedule: string, answered?: () => void): Promise<Array<{ code: PutCode; result: PutResult }>> {
  const input = { maxAttempts: DEFAULT_MAX_ATTEMPTS, schedule, ...eventArgs(ctx.options), items: sentItems(chunk) };
  let answers;
  try {
    answers = await ctx.scripts.run(put, ctx.keys(queue), input);
  } finally {
    answered?.();
  }
  // A task that waits on tasks of other queues registers with them through the outbox: carried
  // now, so that the put returns with it done (if this fails, the queue's next claim carries it).
  if (chunk.some((p) => p.others.length > 0)) {
    await carry(ctx, queue).catch((err: unknown) => ctx.log.warn({ queue, ...errorFields(err) }, 'docket: could not register a task with the queues it waits on yet; a claim will'));
  }
  // After the put, so a refused put registers nothing; a failure here must not fail a put that
  // was made, and the next put tries again.
  await register(ctx, queue).catch((err: unknown) => ctx.log.warn({ queue, ...errorFields(err) }, 'docket: could not add the queue to the registry'));
  return answers.map(({ id, code, runAt }) => ({ code, result: { hash: id, added: code === 1 || code === 2, status: STATUS[code], queue, runAt } }));
}
