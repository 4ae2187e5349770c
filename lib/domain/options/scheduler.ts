/**
 * createScheduler's options: where the connection comes from (a URL, a caller's client, a
 * cluster's nodes, node-redis's own options) and the limits that hold for every queue of the
 * scheduler, and the logger. What docket relies on in a client or its options is checked here,
 * before anything connects, so a bad one fails with a ValidationError and not in node-redis.
 */
import { z } from 'zod';
import type { ClientOptions, RedisLike } from '../../types/client';
import type { EncryptionKey } from '../crypto';
import { guardHash } from '../hashing';
import type { HashFunction } from '../../types/scheduler-options';
import { urlProblem } from '../redis-url';
import { prefixName, queueName } from './names';
import { count, fn, positiveSpan, timerSpan } from './values';

const clientLike = z.custom<RedisLike>((v) => typeof v === 'object' && v !== null && typeof (v as { sendCommand?: unknown }).sendCommand === 'function', {
  error: 'expected a node-redis client (4, 5 or 6), a node-redis 4 cluster, or an ioredis 5 or 6 Redis or Cluster',
});

/** Checked here, not by node-redis, whose errors quote the URL with its password (redis-url.ts). */
const redisUrl = z.string({ error: 'expected a string' }).superRefine((url, ctx) => {
  const problem = urlProblem(url);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * node-redis's client options, passed on to createClient (or as a cluster's node defaults). What
 * docket relies on is checked: the URL (as url is), and no reconnectStrategy or legacyMode, which
 * would take away docket's fail-fast first connect or the promise API it calls.
 */
const clientOptionsArg = z
  .custom<ClientOptions>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), { error: 'expected an object of node-redis client options' })
  .superRefine((o, ctx) => {
    if (o.url !== undefined) {
      const problem = typeof o.url === 'string' ? urlProblem(o.url) : 'expected a string';
      if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['url'] });
    }
    if (o.legacyMode) ctx.addIssue({ code: 'custom', message: 'is not supported: docket calls the promise API', path: ['legacyMode'] });
    const socket: unknown = o.socket;
    if (socket === undefined) return;
    if (typeof socket !== 'object' || socket === null) ctx.addIssue({ code: 'custom', message: 'expected an object', path: ['socket'] });
    else if ('reconnectStrategy' in socket) {
      const message = "is docket's own: it fails the first connect fast, then reconnects for as long as it takes";
      ctx.addIssue({ code: 'custom', message, path: ['socket', 'reconnectStrategy'] });
    }
  });

/**
 * A key of options.encryption: 32 bytes (AES-256), as a Buffer (or Uint8Array) or a base64
 * string (44 characters; `openssl rand -base64 32` makes one).
 */
const encryptionKey = z.custom<Buffer | Uint8Array | string>().transform((v, ctx) => {
  const bytes = typeof v === 'string' && /^[A-Za-z0-9+/]*={0,2}$/.test(v) ? Buffer.from(v, 'base64') : v instanceof Uint8Array ? Buffer.from(v) : undefined;
  if (bytes?.length === 32) return bytes;
  ctx.addIssue({ code: 'custom', message: 'expected 32 bytes: a Buffer, or a base64 string of 44 characters' });
  return z.NEVER;
});

/** options.encryption: the first key seals, every key listed opens (rotation). */
const encryption = z
  .strictObject({
    keys: z
      .array(
        z.strictObject({
          id: z.string({ error: 'expected a string' }).regex(/^[A-Za-z0-9_.-]{1,64}$/, { error: 'expected 1 to 64 letters, digits, _ . or -' }),
          key: encryptionKey,
        }),
        { error: 'expected an array of { id, key }' },
      )
      .min(1, { error: 'expected at least one key' })
      .max(100),
  })
  .superRefine((o, ctx) => {
    const seen = new Set<string>();
    o.keys.forEach((k, i) => {
      if (seen.has(k.id)) ctx.addIssue({ code: 'custom', message: `repeats the id ${JSON.stringify(k.id)}`, path: ['keys', i, 'id'] });
      seen.add(k.id);
    });
  })
  .transform((o): EncryptionKey[] => o.keys);

export const schedulerOptions = z
  .strictObject({
    url: redisUrl.optional(),
    client: clientLike.optional(),
    clientOptions: clientOptionsArg.optional(),
    /** Root nodes of a Redis Cluster, which docket then opens (and close() closes) itself. */
    cluster: z.array(redisUrl, { error: 'expected an array of redis:// URLs' }).min(1, { error: 'expected at least one node' }).max(100).optional(),
    prefix: prefixName.default('docket'),
    queue: queueName.default('default'),
    /** Largest canonical payload accepted, in bytes. */
    maxPayloadBytes: count(512 * 1024 * 1024).default(512 * 1024),
    /** Dead tasks kept per queue; the oldest beyond this are purged. */
    deadMaxCount: count(10_000_000).default(10_000),
    /** How long a dead task is kept for inspection and re-drive. */
    deadMaxAge: positiveSpan.default(7 * 24 * 3600 * 1000),
    /** Deadline of every Redis call, retries of LOADING, BUSY and TRYAGAIN included. */
    commandTimeout: timerSpan(positiveSpan).default(5000),
    /** Entries kept in each queue's events stream (about: trimming is approximate); 0 for none. */
    eventsMaxLength: z
      .number({ error: 'expected a number' })
      .int({ error: 'expected a whole number' })
      .min(0, { error: 'must be from 0 to 10000000' })
      .max(10_000_000, { error: 'must be from 0 to 10000000' })
      .default(10_000),
    /**
     * Which events the scripts write: 'outcomes' (default), the outcome events only; 'all', the
     * lifecycle events too (added, active, lapsed, retrying, drained): an XADD more per put and
     * per claim, which is why they are asked for (docs/api.md#events).
     */
    events: z.enum(['outcomes', 'all'], { error: "expected 'outcomes' or 'all'" }).default('outcomes'),
    /** Largest result (or progress value) a handler may report, in bytes of JSON. */
    maxResultBytes: count(512 * 1024 * 1024).default(64 * 1024),
    /** Most log lines kept per task (task.log): the oldest go first. */
    logMaxLines: count(1_000_000).default(100),
    /** Most bytes of log kept per task (each line's JSON plus 15 bytes): the oldest lines go first. */
    logMaxBytes: count(512 * 1024 * 1024).default(64 * 1024),
    /** Receives start-up warnings about Redis settings. */
    onWarning: fn<(message: string) => void>().optional(),
    /** Which start-up warnings to give: `aof: false` drops the one about AOF being off (checks.ts). */
    warnings: z.strictObject({ aof: z.boolean({ error: 'expected true or false' }).default(true) }, { error: 'expected an object such as { aof: false }' }).default({ aof: true }),
    /**
     * Replaces the identity hash (tests). Wrapped (hashing.ts): what it throws, or a return that is
     * no hash, becomes a HashFunctionError, so a put still rejects with a DocketError.
     */
    hash: fn<HashFunction>().transform(guardHash).optional(),
    /** Payloads, results, progress and logs stored AES-256-GCM encrypted (crypto.ts). */
    encryption: encryption.optional(),
  })
  // Where the connection comes from: one of a caller's client, a cluster's root nodes, or a URL.
  .superRefine((o, ctx) => {
    const clash = (path: string, message: string) => ctx.addIssue({ code: 'custom', message, path: [path] });
    if (o.cluster && (o.url !== undefined || o.client !== undefined)) clash('cluster', 'give cluster, or url or client, not both');
    else if (o.client !== undefined && o.clientOptions !== undefined) clash('clientOptions', 'configure the client you give instead: docket opens no client of its own then');
    else if (o.clientOptions?.url !== undefined && (o.url !== undefined || o.cluster)) clash('clientOptions', 'give the URL once: url, or clientOptions.url');
  });

/** A log method of pino's call shape: `logger.warn({ queue }, 'docket: ...')`. */
type LogMethod = (obj: Record<string, unknown>, msg: string) => void;
/** The levels docket calls (log.ts): info and warn. A logger may have more; docket leaves them alone. */
const LOG_LEVELS = ['info', 'warn'] as const;

/** The logger option (log.ts's Logger): an object with the levels docket calls, as functions. */
export const loggerOption = z.custom<{ info: LogMethod; warn: LogMethod; debug?: LogMethod; error?: LogMethod }>().superRefine((logger, ctx) => {
  if (typeof logger !== 'object' || logger === null) {
    ctx.addIssue({ code: 'custom', message: `expected a logger with ${LOG_LEVELS.join(' and ')} methods (pino-shaped)` });
    return;
  }
  for (const level of LOG_LEVELS) {
    if (typeof logger[level] !== 'function') ctx.addIssue({ code: 'custom', message: 'expected a function', path: [level] });
  }
});

export type ParsedSchedulerOptions = z.output<typeof schedulerOptions>;

/**
 * What a script that writes events is given: the stream's cap (eventsMaxLength) and whether to
 * write the lifecycle events too (events: 'all'; lua/include/events.lua's `life`).
 */
export function eventArgs(o: Pick<ParsedSchedulerOptions, 'events' | 'eventsMaxLength'>): { events: number; lifecycle: boolean } {
  return { events: o.eventsMaxLength, lifecycle: o.events === 'all' };
}
