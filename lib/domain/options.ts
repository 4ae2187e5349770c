/**
 * Every option docket takes, checked and defaulted here by zod and nowhere else. Schemas are
 * strict, so a misspelled option is reported instead of dropped.
 *
 * One concept over 300 lines: the option schemas, kept in one place so that every check and default
 * has one home.
 */
import { z } from 'zod';
import type { ClientOptions, RedisLike } from './client';
import { DEFAULT_MAX_ATTEMPTS, LISTED_STATES } from './domain';
import { unreadable, ValidationError, type DocketError } from './errors';
import { guardHash, type HashFunction } from './hashing';
import { urlProblem } from './redis-url';
import { spanToMs, instantToMs } from './time';

const NAME_RULE = /^[^\s{}*?[\]\\\u0000-\u001f\u007f]+$/;
/**
 * A lone surrogate (half of a UTF-16 pair): Redis stores names and keys as UTF-8, where every lone
 * surrogate becomes U+FFFD, so 'k\ud800' and 'k\udfff' would name one task. Such strings are refused.
 */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;
const wellFormed = { error: 'must be well-formed Unicode (it has a lone surrogate)' };
const isWellFormed = (s: string) => !LONE_SURROGATE.test(s);
const NAME_HINT = 'no braces, glob characters (* ? [ ]), backslashes or white space';

/** Queue names become a Redis Cluster hash tag, so braces would break the slot; globs break SCAN. */
export const queueName = z
  .string({ error: 'expected a string' })
  .min(1, { error: 'must be 1 to 128 characters' })
  .max(128, { error: 'must be 1 to 128 characters' })
  .regex(NAME_RULE, { error: `must have ${NAME_HINT}` })
  .refine(isWellFormed, wellFormed);

const prefixName = z
  .string({ error: 'expected a string' })
  .min(1, { error: 'must be 1 to 64 characters' })
  .max(64, { error: 'must be 1 to 64 characters' })
  .regex(NAME_RULE, { error: `must have ${NAME_HINT}` })
  .refine(isWellFormed, wellFormed);

const unit = z.number().finite({ error: 'must be a finite number >= 0' }).nonnegative({ error: 'must be a finite number >= 0' }).optional();
/** date-fns' Duration, with every unit it knows. */
const durationObject = z.strictObject({
  years: unit,
  months: unit,
  weeks: unit,
  days: unit,
  hours: unit,
  minutes: unit,
  seconds: unit,
});
const SPAN_HINT = 'expected milliseconds (a finite number >= 0) or a Duration such as { minutes: 5 }';

/**
 * The latest instant docket accepts (the end of year 4999, UTC), and the longest span (100 years).
 * A run-at beyond what a Date can show (1e300 was accepted once) broke every view that printed it.
 * And Redis's Lua writes a number with 14 significant digits (cjson.encode, tostring, `..`), so a
 * time of 1e14 ms (16 November 5138) or later came back changed from a task's record: the end of
 * the year 9999 came back 1 ms later. The latest run-at plus the longest span (an expire counts
 * from the run-at) stays under 1e14.
 */
export const MAX_INSTANT_MS = Date.UTC(4999, 11, 31, 23, 59, 59, 999);
export const MAX_SPAN_MS = 100 * 365.25 * 24 * 3600 * 1000;

/** A relative span: ms or a date-fns Duration, turned into whole milliseconds. */
const span = z
  .union([z.number().finite({ error: SPAN_HINT }).nonnegative({ error: SPAN_HINT }), durationObject], { error: SPAN_HINT })
  .transform((value) => spanToMs(value))
  .refine((ms) => ms <= MAX_SPAN_MS, { error: `must be at most 100 years (${MAX_SPAN_MS} ms)` });

const positiveSpan = span.refine((ms) => ms > 0, { error: 'must be longer than 0 ms' });

/** The longest a finished task's outcome is kept (keepResult): 30 days. */
export const MAX_KEEP_RESULT_MS = 30 * 24 * 3600 * 1000;
/** The longest run timeout: what one timer can count (setTimeout fires at once beyond it), about 24 days. */
export const MAX_RUN_TIMEOUT_MS = 2 ** 31 - 1;
/**
 * The longest span this process counts with a timer (Node's setTimeout and setInterval fire after
 * 1 ms beyond it): commandTimeout, work()'s lease (renewed every third of it), shutdownTimeout.
 * A commandTimeout of a year timed every call out at once before this bound.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;
const timerSpan = <S extends z.ZodType<number>>(base: S) => base.refine((ms) => ms <= MAX_TIMER_MS, { error: `must be at most 24 days (${MAX_TIMER_MS} ms): a timer counts it` });
const runTimeout = positiveSpan.refine((ms) => ms <= MAX_RUN_TIMEOUT_MS, { error: `must be at most 24 days (${MAX_RUN_TIMEOUT_MS} ms)` });

/** The longest de-dup window: 30 days. */
export const MAX_DEDUP_WINDOW_MS = 30 * 24 * 3600 * 1000;
const keepResult = positiveSpan.refine((ms) => ms <= MAX_KEEP_RESULT_MS, { error: `must be at most 30 days (${MAX_KEEP_RESULT_MS} ms)` });

const INSTANT_HINT = 'expected a valid Date or epoch milliseconds >= 0';
const instant = z
  .union([z.number().finite({ error: INSTANT_HINT }).nonnegative({ error: INSTANT_HINT }), z.date().refine((d) => !Number.isNaN(d.getTime()), { error: INSTANT_HINT })], {
    error: INSTANT_HINT,
  })
  .transform((value) => instantToMs(value))
  .refine((ms) => ms <= MAX_INSTANT_MS, { error: `must be no later than the end of the year 4999 (${MAX_INSTANT_MS} ms)` });

/** A whole number from 1 to `max`. */
export const count = (max: number) =>
  z
    .number({ error: 'expected a number' })
    .int({ error: 'expected a whole number' })
    .min(1, { error: `must be from 1 to ${max}` })
    .max(max, { error: `must be from 1 to ${max}` });

const clientLike = z.custom<RedisLike>((v) => typeof v === 'object' && v !== null && typeof (v as { sendCommand?: unknown }).sendCommand === 'function', {
  error: 'expected a node-redis client (4, 5 or 6) or a node-redis 4 cluster',
});

/** A function option: checked to be one, and passed through as it is. */
const fn = <F>() => z.custom<F>((v) => typeof v === 'function', { error: 'expected a function' });

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
    /** Largest result (or progress value) a handler may report, in bytes of JSON. */
    maxResultBytes: count(512 * 1024 * 1024).default(64 * 1024),
    /** Most log lines kept per task (task.log): the oldest go first. */
    logMaxLines: count(1_000_000).default(100),
    /** Most bytes of log kept per task (each line's JSON plus 15 bytes): the oldest lines go first. */
    logMaxBytes: count(512 * 1024 * 1024).default(64 * 1024),
    /** Receives start-up warnings about Redis settings. */
    onWarning: fn<(message: string) => void>().optional(),
    /**
     * Replaces the identity hash (tests). Wrapped (hashing.ts): what it throws, or a return that is
     * no hash, becomes a HashFunctionError, so a put still rejects with a DocketError.
     */
    hash: fn<HashFunction>().transform(guardHash).optional(),
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

/** Highest priority level; `priority: true` means this one. */
export const MAX_LEVEL = 9;
/** A priority: false (0, normal), true (the highest level), or a level 0-9; parsed to the level. */
const priority = z
  .union([z.boolean(), z.number().int().min(0).max(MAX_LEVEL)], { error: `expected a boolean or a whole number from 0 to ${MAX_LEVEL}` })
  .transform((p) => (p === true ? MAX_LEVEL : p === false ? 0 : p));

/** A fair-scheduling group (a tenant): stored in the task record and in option strings, so no `|`. */
const groupName = z
  .string({ error: 'expected a string' })
  .min(1, { error: 'must be 1 to 128 characters' })
  .max(128, { error: 'must be 1 to 128 characters' })
  .regex(/^[^|\s\u0000-\u001f\u007f]+$/, { error: 'must have no | , white space or control characters' })
  .refine(isWellFormed, wellFormed);

/** A task's name: short, printable, no '|' (put.lua's options are '|'-separated). */
export const taskName = z
  .string({ error: 'expected a string' })
  .min(1, { error: 'must be 1 to 128 characters' })
  .max(128, { error: 'must be 1 to 128 characters' })
  .regex(/^[^|\u0000-\u001f\u007f]+$/, { error: 'must have no | or control characters' })
  .refine(isWellFormed, wellFormed);

/** The most shards a sharded() queue may have. */
export const MAX_SHARDS = 1024;
/** sharded(name, count): how many queues the shards are. */
export const shardCount = z
  .number({ error: `must be a whole number from 1 to ${MAX_SHARDS}` })
  .int({ error: `must be a whole number from 1 to ${MAX_SHARDS}` })
  .min(1, { error: `must be a whole number from 1 to ${MAX_SHARDS}` })
  .max(MAX_SHARDS, { error: `must be a whole number from 1 to ${MAX_SHARDS}` });

/** The most tasks one put may wait on (`after`). */
export const MAX_AFTER = 10_000;
/** A task's hash as put() returned it: the one check of every hash a caller gives. */
export const taskHash = z
  .string({ error: 'expected the hash string that put() returned' })
  .min(1, { error: 'expected the hash string that put() returned' })
  .max(1024, { error: 'must be at most 1024 characters' });
/** A hash a put waits on: hashes hold no '|' (dependency indexes split at it). */
const dependencyHash = taskHash.regex(/^[^|]*$/, { error: "must have no '|'" });
/** A task a put waits on: a hash of the same queue, or { queue, hash } of any queue. */
const dependencyRef = z.union([dependencyHash, z.strictObject({ queue: queueName, hash: dependencyHash })], {
  error: 'expected a hash string or { queue, hash }',
});

export const putOptions = z
  .strictObject({
    queue: queueName.optional(),
    priority: priority.default(0),
    group: groupName.optional(),
    delay: span.optional(),
    at: instant.optional(),
    expire: positiveSpan.optional(),
    key: z.string({ error: 'expected a string' }).min(1).max(1024).refine(isWellFormed, wellFormed).optional(),
    name: taskName.optional(),
    maxAttempts: count(1000).default(DEFAULT_MAX_ATTEMPTS),
    keepResult: keepResult.optional(),
    unique: z.enum(['until-done', 'until-start'], { error: "expected 'until-done' or 'until-start'" }).default('until-done'),
    dedupWindow: positiveSpan.refine((ms) => ms <= MAX_DEDUP_WINDOW_MS, { error: `must be at most 30 days (${MAX_DEDUP_WINDOW_MS} ms)` }).optional(),
    onDuplicate: z.enum(['keep', 'replace', 'debounce'], { error: "expected 'keep', 'replace' or 'debounce'" }).default('keep'),
    timeout: runTimeout.optional(),
    after: z
      .array(dependencyRef, { error: 'expected an array of hashes or { queue, hash }' })
      .max(MAX_AFTER, { error: `must name at most ${MAX_AFTER} tasks` })
      .optional(),
    onDependencyFailure: z.enum(['dead', 'run', 'cancel'], { error: "expected 'dead', 'run' or 'cancel'" }).default('dead'),
  })
  .refine((o) => o.delay === undefined || o.at === undefined, {
    error: 'give either delay or at, not both',
    path: ['at'],
  });

export const queueOptions = z.strictObject({ queue: queueName.optional() });

/** reschedule, changePriority and cancel: `explain` answers why a refused change was refused. */
export const changeOptions = z.strictObject({ queue: queueName.optional(), explain: z.boolean().optional() });

/** Most active tasks at once per group. */
export const MAX_GROUP_LIMIT = 100_000;
/** A per-group limit: a whole number of active tasks, or null for none. */
export const groupLimitArg = z.union([z.null(), count(MAX_GROUP_LIMIT)], {
  error: `expected null or a whole number from 1 to ${MAX_GROUP_LIMIT}`,
});
/** A rate limit: at most `max` claims per `per` (a span longer than 0, at most 30 days), on one queue. */
export const rateArg = z
  .strictObject(
    {
      max: count(1_000_000),
      per: positiveSpan.refine((ms) => ms <= MAX_DEDUP_WINDOW_MS, { error: `must be at most 30 days (${MAX_DEDUP_WINDOW_MS} ms)` }),
      queue: queueName.optional(),
      group: groupName.optional(),
      eachGroup: z.boolean({ error: 'expected a boolean' }).optional(),
    },
    { error: 'expected null or { max, per, queue?, group?, eachGroup? }' },
  )
  .refine((o) => !(o.group !== undefined && o.eachGroup), { error: 'give group or eachGroup, not both', path: ['eachGroup'] });

/** Which rate limit limitRate(null, ...) removes: the queue's, one group's, or every group's. */
export const rateScope = z
  .strictObject({ queue: queueName.optional(), group: groupName.optional(), eachGroup: z.boolean({ error: 'expected a boolean' }).optional() })
  .refine((o) => !(o.group !== undefined && o.eachGroup), { error: 'give group or eachGroup, not both', path: ['eachGroup'] });

/** A queue's concurrency limit: a whole number of leased tasks, or null for none. */
export const concurrencyArg = z.union([z.null(), count(MAX_GROUP_LIMIT)], {
  error: `expected null or a whole number from 1 to ${MAX_GROUP_LIMIT}`,
});
export const groupLimitOptions = z.strictObject({ queue: queueName.optional(), group: groupName.optional() });

export const claimOptions = z.strictObject({
  queue: queueName.optional(),
  lease: positiveSpan.default(30_000),
});

export const failOptions = z.strictObject({
  error: z.unknown().optional(),
  retryIn: span.optional(),
  /** Overrides the task's own maxAttempts for this decision (used by work()). */
  maxAttempts: count(1000).optional(),
});

/** Heartbeats (heartbeat.ts): the defaults recover a crashed worker's tasks in 2–2.5 s. */
export const HEARTBEAT_INTERVAL_MS = 500;
export const HEARTBEAT_DEADLINE_MS = 2000;
export const MIN_HEARTBEAT_INTERVAL_MS = 100;
export const MAX_HEARTBEAT_INTERVAL_MS = 60_000;
/** A longer deadline would keep a crashed worker's tasks waiting longer than a lease: the lease recovers them then. */
export const MAX_HEARTBEAT_DEADLINE_MS = 10 * 60_000;

const abortSignal = z.custom<AbortSignal>((v) => v instanceof AbortSignal, { error: 'expected an AbortSignal' });

export const workOptions = z
  .strictObject({
    queue: queueName.optional(),
    concurrency: count(1000).default(1),
    lease: timerSpan(positiveSpan).default(30_000),
    maxAttempts: count(1000).optional(),
    backoff: fn<(attempt: number) => number>().optional(),
    signal: abortSignal.optional(),
    /** Called with errors the worker recovered from (Redis errors, lost leases). docket logs nothing itself. */
    onError: fn<(err: DocketError) => void>().optional(),
    shutdownTimeout: timerSpan(span).default(30_000),
    handleSignals: z.boolean({ error: 'expected a boolean' }).default(false),
    /** How long a task's outcome is kept once it finishes, for tasks whose put gave none. */
    keepResult: keepResult.optional(),
    /** How long one attempt may run, for tasks whose put gave none. */
    timeout: runTimeout.optional(),
    /** Run the handler module (a path or file URL) in worker threads (sandbox.ts). */
    sandbox: z.boolean({ error: 'expected a boolean' }).default(false),
    /** How often the worker's heartbeat is sent (heartbeat.ts). */
    heartbeatInterval: positiveSpan
      .refine((ms) => ms >= MIN_HEARTBEAT_INTERVAL_MS && ms <= MAX_HEARTBEAT_INTERVAL_MS, { error: `must be from ${MIN_HEARTBEAT_INTERVAL_MS} ms to ${MAX_HEARTBEAT_INTERVAL_MS / 1000} s` })
      .default(HEARTBEAT_INTERVAL_MS),
    /** How old its last heartbeat may be before other workers take it for dead and re-run its tasks. */
    heartbeatDeadline: positiveSpan
      .refine((ms) => ms <= MAX_HEARTBEAT_DEADLINE_MS, { error: `must be at most ${MAX_HEARTBEAT_DEADLINE_MS / 60_000} minutes` })
      .default(HEARTBEAT_DEADLINE_MS),
    /** Most tasks leased beyond the free slots while handlers are quick (worker.ts: prefetch). */
    prefetch: z
      .number({ error: 'expected a number' })
      .int({ error: 'expected a whole number' })
      .min(0, { error: 'must be from 0 to 100' })
      .max(100, { error: 'must be from 0 to 100' })
      .optional(),
  })
  .refine((o) => o.heartbeatDeadline >= 2 * o.heartbeatInterval, {
    // One late beat must not make a live worker look dead.
    error: 'must be at least twice heartbeatInterval',
    path: ['heartbeatDeadline'],
  });

/** The longest result() waits: what one timer can count (setTimeout fires at once beyond it). */
export const MAX_WAIT_MS = 2 ** 31 - 1;

export const resultOptions = z.strictObject({
  queue: queueName.optional(),
  /** How long to wait for the task to finish; 0 (default) answers at once. */
  wait: span.refine((ms) => ms <= MAX_WAIT_MS, { error: `must be at most 24 days (${MAX_WAIT_MS} ms)` }).default(0),
});

/** dependencies(hash, options): `limit` reads the outcomes of the first so many only. */
export const dependenciesOptions = z.strictObject({
  queue: queueName.optional(),
  limit: z.int({ error: 'expected a whole number' }).min(1, { error: 'must be at least 1' }).optional(),
});

export const closeOptions = z.strictObject({ timeout: timerSpan(span).optional() });

/** The states clean() deletes from: pending tasks (ready, delayed) and dead ones. */
export const CLEAN_STATES = ['ready', 'delayed', 'dead'] as const;

/** clean(options): which tasks of a queue to delete, in batches. */
export const cleanOptions = z.strictObject({
  queue: queueName.optional(),
  state: z.enum(CLEAN_STATES, { error: "expected 'ready', 'delayed' or 'dead'" }),
  /** Only tasks put (dead ones: died) at least this long ago, on the Redis clock. */
  olderThan: span.optional(),
  /** Most tasks to delete in all. Default: every one that matches. */
  limit: z.int({ error: 'expected a whole number' }).min(1, { error: 'must be at least 1' }).max(Number.MAX_SAFE_INTEGER, { error: 'must be a safe integer' }).optional(),
});

/** obliterate(options): `force` deletes the queue even while tasks of it are leased. */
export const obliterateOptions = z.strictObject({
  queue: queueName.optional(),
  force: z.boolean({ error: 'expected a boolean' }).default(false),
});

/** Occurrences closer than this are refused: each occurrence is a task, with its round trips. */
export const MIN_INTERVAL_MS = 100;

/** A recurring schedule's name: a hash field and part of each occurrence's de-dup key. */
export const scheduleName = z
  .string({ error: 'expected a string' })
  .min(1, { error: 'must be 1 to 200 characters' })
  .max(200, { error: 'must be 1 to 200 characters' })
  .regex(NAME_RULE, { error: `must have ${NAME_HINT}` })
  .refine(isWellFormed, wellFormed);

const cronText = z.string({ error: 'expected a string' }).min(1).max(256);
/**
 * A schedule: a cron expression (5 fields, or 6 with seconds first), the same with a time zone
 * (`{ cron, tz }`, an IANA name; default UTC), or an interval in ms or as a Duration.
 */
export const scheduleArg = z.union(
  [
    cronText.transform((cron) => ({ cron, tz: 'UTC' })),
    z.strictObject({ cron: cronText, tz: z.string({ error: 'expected a string' }).min(1).max(64).default('UTC') }),
    span.refine((ms) => ms >= MIN_INTERVAL_MS, { error: `an interval must be at least ${MIN_INTERVAL_MS} ms` }).transform((every) => ({ every })),
  ],
  { error: 'expected a cron expression, { cron, tz }, or an interval in ms or as a Duration' },
);

export const everyOptions = z.strictObject({
  queue: queueName.optional(),
  priority: priority.default(0),
  expire: positiveSpan.optional(),
  maxAttempts: count(1000).default(DEFAULT_MAX_ATTEMPTS),
  /** Occurrences missed while no process declared the schedule: none, the latest, or the latest `catchUpLimit`. */
  missed: z.enum(['skip', 'once', 'catch-up'], { error: "expected 'skip', 'once' or 'catch-up'" }).default('skip'),
  catchUpLimit: count(100).default(10),
  /** Keep each occurrence's outcome this long once it finishes (see put's keepResult). */
  keepResult: keepResult.optional(),
  /** Called with the errors of the background loop that puts occurrences; it retries on its own. */
  onError: fn<(err: DocketError) => void>().optional(),
});

/** Every state a task can be listed in (list()), in the order the views show them. */
export const STATES = LISTED_STATES;
export const stateArg = z.enum(STATES, { error: `expected one of ${STATES.join(', ')}` });
/** Past this, a preview is no preview: a whole payload is what list() without it returns. */
export const MAX_PREVIEW_BYTES = 65_536;
const PREVIEW_HINT = `must be a whole number of bytes from 1 to ${MAX_PREVIEW_BYTES}`;

/** list(state, options) and listDead(options): a page of tasks, with or without previews. */
export const listOptions = z.strictObject({
  queue: queueName.optional(),
  limit: z.number().int().min(1, { error: 'must be from 1 to 1000' }).max(1000, { error: 'must be from 1 to 1000' }).default(100),
  offset: z.number().int().min(0, { error: 'must be 0 or more' }).default(0),
  preview: z.number({ error: PREVIEW_HINT }).int({ error: PREVIEW_HINT }).min(1, { error: PREVIEW_HINT }).max(MAX_PREVIEW_BYTES, { error: PREVIEW_HINT }).optional(),
});

/** listDead(options): list()'s options less `preview` (a DeadTask has its whole data). */
export const listDeadOptions = listOptions.omit({ preview: true });

/** The options of a call whose queue is chosen for it (a shard's put, putMany, work): `queue` is refused. */
export const shardChosen = z.unknown().superRefine((o, ctx) => {
  if (o !== null && typeof o === 'object' && 'queue' in o) ctx.addIssue({ code: 'custom', message: 'is chosen by the shard, not given', path: ['queue'] });
});

/** A de-dup key where it is read before put checks it (a shard picks its queue by it): a string. */
export const keyArg = z.string({ error: 'expected a string' }).optional();

/** limitRate(limit) takes no second argument: the queue and group go inside the limit. */
export const limitRateTail = z.undefined({ error: 'give the queue and group inside the limit: limitRate({ max, per, queue, group })' });

/**
 * The options of a call through a queue handle (`scheduler.queue<T>(name)`): an object, whose
 * `queue`, when given, must be the handle's. The rest is left to the call's own schema.
 */
export function boundOptions(name: string) {
  return z
    .custom<object>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), { error: 'expected an object' })
    .superRefine((o, ctx) => {
      const given = (o as { queue?: unknown }).queue;
      if (given === undefined || given === name) return;
      const got = typeof given === 'string' ? JSON.stringify(given) : `of type ${typeof given}`;
      ctx.addIssue({ code: 'custom', message: `is ${got}, but this handle is bound to queue ${JSON.stringify(name)}: leave it out`, path: ['queue'] });
    });
}

/** instrumentOpenTelemetry(options): a tracer provider, or the global one. */
export const openTelemetryOptions = z.strictObject({
  tracerProvider: z
    .custom<{ getTracer(name: string, version?: string): unknown }>((v) => typeof v === 'object' && v !== null && typeof (v as { getTracer?: unknown }).getTracer === 'function', {
      error: 'expected a TracerProvider (an object with a getTracer method)',
    })
    .optional(),
});

/** events(options): where to start reading, and a signal that ends the iteration. */
export const eventsOptions = z.strictObject({
  from: z.union([z.literal('now'), z.literal('start'), z.string().regex(/^\d+-\d+$/)], { error: "expected 'now', 'start' or an event id such as '1700000000000-0'" }).default('now'),
  signal: abortSignal.optional(),
});

/** throughput(options): a window of at most 24 hours, cut into at most 1000 buckets. */
export const throughputOptions = z
  .strictObject({
    window: z.number().int().min(1000, { error: 'must be from 1000 to 86400000' }).max(86_400_000, { error: 'must be from 1000 to 86400000' }).default(600_000),
    // Bounded like window (past it, the bucket times made no valid stream id: a RedisError).
    bucket: z.number().int().min(100, { error: 'must be 100 or more' }).max(86_400_000, { error: 'must be at most 86400000' }).default(10_000),
  })
  .refine((o) => o.window / o.bucket <= 1000, { error: 'window / bucket must be at most 1000 buckets', path: ['bucket'] });

/** registerMetrics(registry): what it needs of a prom-client Registry (any prom-client 14 or 15). */
export const metricsRegistry = z.custom<{ registerMetric(metric: unknown): void }>((v) => typeof (v as { registerMetric?: unknown } | null | undefined)?.registerMetric === 'function', {
  error: 'expected a prom-client Registry',
});

/** registerMetrics(registry, options): which queues to report, and the metric names' prefix. */
export const metricsOptions = z.strictObject(
  {
    queues: z.array(queueName, { error: 'expected an array of queue names' }).optional(),
    prefix: z
      .string({ error: 'expected a Prometheus metric name prefix ([a-zA-Z_:][a-zA-Z0-9_:]*)' })
      .regex(/^[a-zA-Z_:][a-zA-Z0-9_:]*$/, { error: 'expected a Prometheus metric name prefix ([a-zA-Z_:][a-zA-Z0-9_:]*)' })
      .default('docket_'),
  },
  { error: 'expected { queues?, prefix? }' },
);

export const instantArg = instant;
/** A priority given on its own (changePriority), checked as put's option: parsed to the level 0-9. */
export const priorityArg = priority;
export const spanArg = positiveSpan;
export const countArg = count(1000);

/** Parses `value` with `schema`, or throws a ValidationError naming the first bad field. */
export function parse<S extends z.ZodType>(schema: S, value: unknown, field: string): z.output<S> {
  let result: z.ZodSafeParseResult<z.output<S>>;
  try {
    result = schema.safeParse(value);
  } catch (err) {
    // zod lets what a getter or proxy trap of the value throws through.
    throw unreadable(field, err);
  }
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  // Of several unknown options, name the first: the field is one place to look.
  const path = [...issue.path.map(String), ...(issue.code === 'unrecognized_keys' ? issue.keys.slice(0, 1) : [])];
  const name = path.reduce((acc, part) => (/^\d+$/.test(part) ? `${acc}[${part}]` : `${acc}.${part}`), field);
  const message = issue.code === 'unrecognized_keys' ? 'is not a known option' : issue.message;
  throw new ValidationError(name, message);
}

export type ParsedSchedule = z.output<typeof scheduleArg>;
export type ParsedEveryOptions = z.output<typeof everyOptions>;
export type ParsedSchedulerOptions = z.output<typeof schedulerOptions>;
export type ParsedWorkOptions = z.output<typeof workOptions>;
export type CleanOptionsInput = z.input<typeof cleanOptions>;
export type ObliterateOptionsInput = z.input<typeof obliterateOptions>;
