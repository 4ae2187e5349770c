/**
 * Every error docket throws is a {@link DocketError} with a stable `code`, so callers branch on
 * `err.code` or `instanceof`, never on message text. A duplicate put is not an error: it is a
 * result (`added: false`).
 *
 * One concept over 300 lines: the error hierarchy, one short class per code, and the one mapping
 * from Redis errors to it.
 */
import { spanToMs, type Duration } from './time';

/** The stable codes of docket's errors. */
export type ErrorCode =
  | 'ERR_VALIDATION'
  | 'ERR_PAYLOAD_TOO_LARGE'
  | 'ERR_CLOSED'
  | 'ERR_LEASE_LOST'
  | 'ERR_RUN_TIMEOUT'
  | 'ERR_EVENT_LOOP_BLOCKED'
  | 'ERR_UNKNOWN_TASK_NAME'
  | 'ERR_OUT_OF_MEMORY'
  | 'ERR_INDETERMINATE'
  | 'ERR_TIMEOUT'
  | 'ERR_CONNECTION'
  | 'ERR_LOADING'
  | 'ERR_BUSY'
  | 'ERR_TRYAGAIN'
  | 'ERR_READONLY'
  | 'ERR_NOPERM'
  | 'ERR_REDIS'
  | 'ERR_MISSING_PEER'
  | 'ERR_METRICS_REGISTERED'
  | 'ERR_QUEUE_ACTIVE'
  | 'ERR_AMBIGUOUS_HASH'
  | 'ERR_SANDBOX_EXIT'
  | 'ERR_HASH_FUNCTION'
  | 'ERR_UNREADABLE_RECORD'
  | 'ERR_DECRYPTION'
  | 'ERR_REPLY'
  | 'ERR_UNRECOVERABLE'
  | 'ERR_RETRY_LATER'
  | 'ERR_CANCELLED'
  | 'ERR_UNSUPPORTED_SERVER';

/** Base class of every error docket throws. */
export class DocketError extends Error {
  /** The stable code of this error (`'ERR_VALIDATION'`...): branch on it, or on the class, never on the message. */
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/**
 * An argument or option is invalid. `field` names it (`options.delay`, `data.user.id`, `items[3].options.queue`).
 * Thrown before any I/O: nothing was written to Redis. (The one exception is reported, not thrown:
 * work() hands onError a ValidationError for an `options.backoff` that threw.)
 */
export class ValidationError extends DocketError {
  /** The argument or option that was refused, as a path: `options.delay`, `data.user.id`, `items[3].options.queue`. */
  readonly field: string;

  constructor(field: string, message: string, code: ErrorCode = 'ERR_VALIDATION', options?: { cause?: unknown }) {
    super(code, `${field}: ${message}`, options);
    this.field = field;
  }
}

/**
 * What is recorded of a thrown value no part of which can be read (a Proxy whose every trap
 * throws): not its type, not its text, not its JSON. Its attempt still fails with this as its error.
 */
export const UNSHOWABLE_THROWN = '[a thrown value that cannot be shown]';

/**
 * An argument could not even be read: a getter or a proxy trap of it threw `cause` while docket
 * looked at it. Refused like any invalid argument, before any I/O, with what it threw as `cause`.
 */
export function unreadable(field: string, cause: unknown): ValidationError {
  let thrown: string;
  try {
    thrown = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  } catch {
    thrown = 'a value that cannot be shown';
  }
  return new ValidationError(field, `could not be read: reading it threw ${thrown}`, 'ERR_VALIDATION', { cause });
}

/**
 * An optional feature needs a package docket does not depend on itself (prom-client for metrics,
 * @opentelemetry/api for tracing): install it next to docket. `module` names it.
 */
export class MissingPeerError extends DocketError {
  /** The package to install: `prom-client` or `@opentelemetry/api`. */
  readonly module: string;

  constructor(module: string, feature: string, cause?: unknown) {
    super('ERR_MISSING_PEER', `${feature} needs the package ${module}: npm install ${module}`, { cause });
    this.module = module;
  }
}

/**
 * registerMetrics() found one of its metric names in the registry already: it was called twice on
 * that registry, or another scheduler's metrics are there under the same names. Nothing was
 * registered. `metric` names the first name that clashed.
 */
export class MetricsRegisteredError extends ValidationError {
  /** The first of docket's metric names found in the registry already. */
  readonly metric: string;

  constructor(metric: string, cause?: unknown) {
    super(
      'registry',
      `already has a metric named ${metric}. registerMetrics() adds docket's metrics once per registry: call it once (it reports every queue of ` +
        "the prefix, or options.queues); to export a second scheduler's metrics on the same registry, give that call its own options.prefix, such as 'billing_'",
      'ERR_METRICS_REGISTERED',
      { cause },
    );
    this.metric = metric;
  }
}

/** The canonical payload is larger than `maxPayloadBytes`, or a result or progress value larger than `maxResultBytes`. Thrown before any I/O. */
export class PayloadTooLargeError extends ValidationError {
  /** The value's size in bytes (with `atLeast`, what was written of it before it was refused). */
  readonly bytes: number;
  /** The limit it went over, in bytes: `maxPayloadBytes`, `maxResultBytes`, or `logMaxBytes` for a log line. */
  readonly limit: number;

  /**
   * `what` names the value in the message: a payload, a result, a progress value. `atLeast`: the
   * value was refused before it was written whole, so `bytes` is what was written by then.
   */
  constructor(field: string, bytes: number, limit: number, what = 'payload', atLeast = false) {
    super(field, `${what} is ${atLeast ? 'more than ' : ''}${bytes} bytes, over the limit of ${limit} bytes`, 'ERR_PAYLOAD_TOO_LARGE');
    this.bytes = bytes;
    this.limit = limit;
  }
}

/**
 * obliterate() refused: tasks of the queue are leased (active), and `force` was not given.
 * Nothing was deleted. Stop the queue's workers (or let them finish), or pass `force: true`.
 */
export class QueueActiveError extends DocketError {
  /** The queue that was not obliterated. */
  readonly queue: string;
  /** Tasks of the queue leased when it was refused. */
  readonly active: number;

  constructor(queue: string, active: number) {
    super('ERR_QUEUE_ACTIVE', `queue ${queue} has ${active} active task${active === 1 ? '' : 's'}: stop its workers first, or pass force: true`);
    this.queue = queue;
    this.active = active;
  }
}

/**
 * A short hash (a prefix of a task's hash, as the CLI takes one) that names no one task for sure:
 * several tasks of the queue start with it (`candidates` lists a few), or the queue was too large
 * to search all of it (`searched` false). Nothing was changed. Give more of the hash.
 */
export class AmbiguousHashError extends DocketError {
  readonly prefix: string;
  readonly queue: string;
  /** Some of the hashes that start with `prefix`, sorted (at most a handful). */
  readonly candidates: readonly string[];
  /** Whether the search covered every task of the queue; false when it stopped at its bound. */
  readonly searched: boolean;

  /** `more`: more tasks start with `prefix` than `candidates` lists. */
  constructor(prefix: string, queue: string, candidates: readonly string[], options: { more: boolean; searched: boolean }) {
    const list = candidates.length === 0 ? '' : ` (${candidates.join(', ')}${options.more || !options.searched ? ', ...' : ''})`;
    const why = !options.searched
      ? `queue '${queue}' has too many tasks to search them all${list}`
      : `${options.more ? `more than ${candidates.length}` : candidates.length} tasks of queue '${queue}' start with it${list}`;
    super('ERR_AMBIGUOUS_HASH', `hash prefix ${prefix} is ambiguous: ${why}; give more of the hash`);
    this.prefix = prefix;
    this.queue = queue;
    this.candidates = candidates;
    this.searched = options.searched;
  }
}

/** The scheduler or worker was closed before the call. */
export class ClosedError extends DocketError {
  constructor(what: string) {
    super('ERR_CLOSED', `${what} is closed`);
  }
}

/**
 * The worker no longer holds a task's lease: it lapsed, or the task was leased to another worker.
 * work() aborts a handler's signal with this error as the reason.
 */
export class LeaseLostError extends DocketError {
  /** The task whose lease was lost. */
  readonly hash: string;

  constructor(hash: string) {
    super('ERR_LEASE_LOST', `lease on task ${hash} was lost; another worker may run it`);
    this.hash = hash;
  }
}

/**
 * The task was cancelled while it ran (`cancel(hash, { queue, running: true })`, from any process):
 * work() aborts the handler's signal with this error as the reason at the worker's next heartbeat.
 * The task has ended `cancelled` by then; what the handler returns or throws afterwards is ignored.
 */
export class CancelledError extends DocketError {
  /** The task that was cancelled. */
  readonly hash: string;

  constructor(hash: string) {
    super('ERR_CANCELLED', `task ${hash} was cancelled while it ran`);
    this.hash = hash;
  }
}

/**
 * The worker's event loop was blocked so long that its heartbeat fired `lagMs` late: reported to
 * work()'s onError (and the logger) when the lag reaches half the heartbeat deadline. Past the
 * deadline other workers take the worker for dead and run its tasks again.
 */
export class EventLoopBlockedError extends DocketError {
  /** The id of the worker whose loop was blocked (host:pid:random). */
  readonly worker: string;
  /** How late its heartbeat fired, in ms. */
  readonly lagMs: number;
  /** The heartbeat deadline in ms (work()'s heartbeatDeadline): past it, other workers take this one for dead. */
  readonly deadlineMs: number;

  constructor(worker: string, lagMs: number, deadlineMs: number) {
    const past = lagMs >= deadlineMs;
    super(
      'ERR_EVENT_LOOP_BLOCKED',
      `worker ${worker}: the event loop was blocked (or the process paused) for about ${lagMs} ms, against a heartbeat deadline of ${deadlineMs} ms; ` +
        (past ? 'other workers may have taken this one for dead and run its tasks again. ' : 'a little longer and other workers take this one for dead and run its tasks again. ') +
        'Move CPU-bound work off the loop (work(module, { sandbox: true }) runs handlers in threads), or raise the heartbeatDeadline option of work() (recovery after a crash then takes as long)',
    );
    this.worker = worker;
    this.lagMs = lagMs;
    this.deadlineMs = deadlineMs;
  }
}

/**
 * An attempt ran longer than its `timeout` (a put or work() option): work() aborts the handler's
 * signal with this error as the reason and fails the attempt with it, which is then retried or goes
 * dead like any failure.
 */
export class RunTimeoutError extends DocketError {
  /** The task that ran too long. */
  readonly hash: string;
  /** The attempt's timeout that ran out, in ms. */
  readonly timeoutMs: number;

  constructor(hash: string, timeoutMs: number) {
    super('ERR_RUN_TIMEOUT', `task ${hash} ran longer than its timeout of ${timeoutMs} ms`);
    this.hash = hash;
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A worker routing by task name (`work({ [name]: handler })`) leased a task whose name has no
 * handler, and no `'*'` one. Never thrown by a method: the attempt fails with it, so the task is
 * retried (another worker may have the handler) and goes dead after its attempts, with this as its
 * last error, rather than being acked unseen.
 */
export class UnknownTaskNameError extends DocketError {
  /** The task whose name has no handler. */
  readonly hash: string;
  /** The task's name, or null for a task put without one. */
  readonly taskName: string | null;

  constructor(hash: string, taskName: string | null, known: string[]) {
    const what = taskName === null ? 'has no name' : `is named ${JSON.stringify(taskName)}`;
    super('ERR_UNKNOWN_TASK_NAME', `task ${hash} ${what}, and this worker has no handler for it (it has ${known.map((k) => JSON.stringify(k)).join(', ')})`);
    this.hash = hash;
    this.taskName = taskName;
  }
}

/**
 * Thrown by a handler to end its task for good: the task goes dead at once, whatever attempts it has
 * left, with this error as its last one (its ending: `'unrecoverable'`). For a failure no retry can
 * mend: a 4xx, a bad address. Found by name and code as well as by class, so one thrown by another
 * copy of docket (a sandboxed handler's) counts too.
 */
export class UnrecoverableError extends DocketError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_UNRECOVERABLE', message, options);
  }
}

/** When a RetryLaterError's next attempt runs: `delay` from the failure (ms or a Duration), or `at` (a Date or epoch ms). */
export type RetryLaterOptions =
  | {
      /** Wait this long from the failure: ms, or a Duration such as `{ minutes: 5 }` (at most 100 years). */
      delay: number | Duration;
    }
  | {
      /** Run the next attempt at this instant: a Date or epoch ms, no later than the year 4999. */
      at: Date | number;
    };

/**
 * Thrown by a handler to have its next attempt run later: after `delay`, or at `at` (a
 * `Retry-After`), not at the back-off's time. It counts as an attempt, so at the last one the task
 * goes dead (its ending: `'retry-later'`). Options that are not one of those throw a
 * ValidationError here. `delay` and `at` are as given (a Date as epoch ms); the other is null.
 */
export class RetryLaterError extends DocketError {
  /** The wait before the next attempt, from the failure (ms or a Duration), as given; null when `at` was given. */
  readonly delay: number | Duration | null;
  /** When the next attempt runs, epoch ms (a Date given is turned into ms); null when `delay` was given. */
  readonly at: number | null;

  constructor(message: string, options: RetryLaterOptions, errorOptions?: { cause?: unknown }) {
    super('ERR_RETRY_LATER', message, errorOptions);
    const { delay, at } = retryLater(options);
    this.delay = delay;
    this.at = at;
  }
}

/** The units a Duration may have, as the span options take it (domain/options/values.ts). */
const DURATION_UNITS = ['years', 'months', 'weeks', 'days', 'hours', 'minutes', 'seconds'];
/** The latest instant and longest span docket takes (domain/options/values.ts: MAX_INSTANT_MS, MAX_SPAN_MS). */
const LATEST_MS = Date.UTC(4999, 11, 31, 23, 59, 59, 999);
const LONGEST_MS = 100 * 365.25 * 24 * 3600 * 1000;

/**
 * RetryLaterError's options, checked here rather than by the zod schemas: this module is all of
 * docket's errors a sandbox thread loads (sandbox.ts), so it imports only time.ts (which imports
 * nothing). The bounds are those of every other span and instant: a Duration's whole span, summed
 * as snooze() and every span option sum it, is at most 100 years ({ years: 200 } was once taken
 * because each field was checked alone).
 */
function retryLater(options: unknown): { delay: number | Duration | null; at: number | null } {
  const o = options as Record<string, unknown> | null;
  if (typeof o !== 'object' || o === null) throw new ValidationError('options', 'expected { delay } or { at }');
  const keys = Object.keys(o).filter((k) => o[k] !== undefined);
  if (keys.length !== 1 || (keys[0] !== 'delay' && keys[0] !== 'at')) throw new ValidationError('options', `expected exactly one of delay or at, got ${keys.join(', ') || 'neither'}`);
  const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
  if (keys[0] === 'at') {
    const ms = o.at instanceof Date ? o.at.getTime() : o.at;
    if (!finite(ms) || ms > LATEST_MS) throw new ValidationError('options.at', 'expected a valid Date or epoch milliseconds >= 0, no later than the year 4999');
    return { delay: null, at: Math.round(ms) };
  }
  const delay = o.delay;
  if (finite(delay) && delay <= LONGEST_MS) return { delay, at: null };
  const isDuration =
    typeof delay === 'object' && delay !== null && !Array.isArray(delay) && Object.entries(delay).every(([k, v]) => DURATION_UNITS.includes(k) && (v === undefined || finite(v)));
  if (!isDuration) throw new ValidationError('options.delay', 'expected milliseconds (a finite number >= 0, at most 100 years) or a Duration such as { minutes: 5 }');
  if (spanToMs(delay as Duration) > LONGEST_MS) throw new ValidationError('options.delay', `must be at most 100 years (${LONGEST_MS} ms)`);
  return { delay: { ...(delay as Duration) }, at: null };
}

/**
 * A sandboxed handler's thread (`work(module, { sandbox: true })`) exited while it ran a task: the
 * handler called process.exit(), or the thread was stopped. Never thrown by a method: the attempt
 * fails with it (an uncaught exception fails it with that exception instead), and the thread is
 * replaced for the next task. `exitCode` is the thread's exit code.
 */
export class SandboxExitError extends DocketError {
  /** The task whose thread exited. */
  readonly hash: string;
  /** The exit code of the thread that exited. */
  readonly exitCode: number;

  constructor(hash: string, exitCode: number) {
    super('ERR_SANDBOX_EXIT', `the thread running task ${hash} exited with code ${exitCode}`);
    this.hash = hash;
    this.exitCode = exitCode;
  }
}

/**
 * The `hash` function given to createScheduler threw, or returned no hash (a non-empty string):
 * thrown by the call that hashed (put, putMany, a sharded put), before any I/O; `cause` holds what
 * it threw. Fix the function: docket cannot name a task without it.
 */
export class HashFunctionError extends DocketError {
  constructor(problem: string, cause?: unknown) {
    super('ERR_HASH_FUNCTION', `options.hash ${problem}: it must return a non-empty string for every identity`, { cause });
  }
}

/**
 * A record docket read from Redis is not what docket writes: a task's payload, metadata, result or
 * progress that is not JSON (written by hand, or by another program, or damaged). `what` names
 * the record; `cause` holds the JSON parser's error. Nothing was changed by the read.
 */
export class UnreadableRecordError extends DocketError {
  /** The record that could not be read (a task's payload, metadata, result or progress). */
  readonly what: string;

  constructor(what: string, cause: unknown) {
    super('ERR_UNREADABLE_RECORD', `${what} in Redis is unreadable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.what = what;
  }
}

/**
 * A value stored encrypted (options.encryption) could not be opened: its key id is not among the
 * scheduler's keys, or it fails its authentication tag (damaged, or written with another key of
 * the same id). `what` names the value. A handler's task fails with it; views show "encrypted".
 */
export class DecryptionError extends DocketError {
  /** The value that could not be decrypted (a payload, a result...). */
  readonly what: string;

  constructor(what: string, problem: string) {
    super('ERR_DECRYPTION', `${what} cannot be decrypted: ${problem}`);
    this.what = what;
  }
}

/**
 * Redis refused a write because `maxmemory` is reached. A refused put wrote nothing: put is a
 * deny-oom script, refused before it runs. (The scripts that work or shrink a queue are allow-oom,
 * so workers can still drain a full Redis: see ScriptFlags in scripts.ts.)
 */
export class OutOfMemoryError extends DocketError {
  constructor(cause: unknown) {
    super('ERR_OUT_OF_MEMORY', 'Redis is out of memory (maxmemory reached): the write was refused', { cause });
  }
}

/**
 * The call was sent but its reply never came (the connection broke after the write): whether it
 * took effect is unknown. Retrying is safe: a put is de-duplicated, an ack retried with the same
 * token is answered as before, a fail or extend is refused once the lease moved on.
 */
export class IndeterminateError extends DocketError {
  constructor(what: string, cause?: unknown, code: ErrorCode = 'ERR_INDETERMINATE') {
    super(code, `${what}: no reply from Redis, the outcome is unknown (safe to retry)`, { cause });
  }
}

/**
 * No reply within `commandTimeout`. For a call that writes the outcome is unknown, as for
 * IndeterminateError; a read (get, stats, listDead) changed nothing.
 */
export class TimeoutError extends IndeterminateError {
  /** The `commandTimeout` that ran out, in ms. */
  readonly timeoutMs: number;

  constructor(what: string, timeoutMs: number) {
    super(`${what} timed out after ${timeoutMs} ms`, undefined, 'ERR_TIMEOUT');
    this.timeoutMs = timeoutMs;
  }
}

/** The command was never sent: the connection is closed or down. Nothing was written. */
export class ConnectionError extends DocketError {
  constructor(cause: unknown) {
    super('ERR_CONNECTION', `not connected to Redis: ${messageOf(cause)}`, { cause });
  }
}

/** Redis is loading its data set (just restarted). docket retries these within the deadline. */
export class LoadingError extends DocketError {
  constructor(cause: unknown) {
    super('ERR_LOADING', 'Redis is loading its data set', { cause });
  }
}

/** Redis is busy running a long script. docket retries these within the deadline. */
export class BusyError extends DocketError {
  constructor(cause: unknown) {
    super('ERR_BUSY', 'Redis is busy running a script', { cause });
  }
}

/**
 * Redis Cluster could not serve the call just now: its keys' slot is being moved between masters
 * (`TRYAGAIN`), or the cluster is down (`CLUSTERDOWN`, say during a failover). Redis refuses the
 * call before running it, so nothing ran; docket retries these within the deadline.
 */
export class TryAgainError extends DocketError {
  constructor(cause: unknown) {
    super('ERR_TRYAGAIN', `Redis Cluster asked to try again later: ${messageOf(cause)}`, { cause });
  }
}

/** The server is a read-only replica (say, just after a failover). Nothing was written. */
export class ReadOnlyError extends DocketError {
  constructor(cause: unknown) {
    super('ERR_READONLY', 'Redis refused the write: the server is a read-only replica', { cause });
  }
}

/**
 * The Redis user may not run a command or touch a key (ACL). Refused up front, nothing was
 * written; refused inside a script, its earlier writes stay (Redis has no rollback), which is why
 * createScheduler checks up front that the user may run every command docket needs, and refuses
 * to start (this error, with `commands`) when one is missing (docs/guarantees.md lists them).
 */
export class PermissionError extends DocketError {
  /** The commands the user may not run, when createScheduler's start-up check found them; else empty. */
  readonly commands: readonly string[];

  constructor(cause: unknown, commands: readonly string[] = []) {
    super('ERR_NOPERM', `Redis refused the call for lack of permission: ${messageOf(cause)}`, { cause });
    this.commands = commands;
  }
}

/**
 * The Redis server is too old for docket: every operation is a Redis Functions call (FUNCTION
 * LOAD, FCALL), which Redis 7.0 (Valkey 7.2) brought. createScheduler refuses such a server before
 * it writes anything. `found` is the version the server reported ('unknown' when it would not
 * say), `needed` the oldest docket runs on.
 */
export class UnsupportedServerError extends DocketError {
  /** The server's version (INFO's redis_version), or 'unknown'. */
  readonly found: string;
  /** The oldest Redis version docket runs on. */
  readonly needed: string;

  constructor(found: string, needed: string, cause?: unknown) {
    // A server of a new enough version can still lack the command: renamed away, or a proxy's.
    const why = cause ? 'it has no FUNCTION command (renamed or disabled); docket' : 'it';
    super('ERR_UNSUPPORTED_SERVER', `Redis ${found} cannot run docket: ${why} needs Redis ${needed} or later (Valkey 7.2 or later), for Redis Functions`, { cause });
    this.found = found;
    this.needed = needed;
  }
}

/**
 * A script's reply did not have the shape its header documents (lib/ops reads every reply):
 * a Lua script and this client disagree, say a server still running another docket version's
 * scripts. `script` names it. The script ran: what it wrote stays.
 */
export class ReplyError extends DocketError {
  /** The script whose reply was not as documented (`claim`, `put`...). */
  readonly script: string;

  constructor(script: string, problem: string) {
    super('ERR_REPLY', `unexpected reply from script ${script}: ${problem}`);
    this.script = script;
  }
}

/** Any other failure reported by Redis; `cause` holds the original. */
export class RedisError extends DocketError {
  constructor(cause: unknown) {
    super('ERR_REDIS', `Redis call failed: ${messageOf(cause)}`, { cause });
  }
}

/** Server error prefixes, and the class each maps to. */
const REPLY_CODES: Record<string, new (cause: unknown) => DocketError> = {
  OOM: OutOfMemoryError,
  LOADING: LoadingError,
  BUSY: BusyError,
  TRYAGAIN: TryAgainError,
  CLUSTERDOWN: TryAgainError,
  READONLY: ReadOnlyError,
  NOPERM: PermissionError,
};

/** node-redis errors thrown before a command was written: nothing reached Redis. */
const NOT_SENT = new Set(['ClientClosedError', 'ClientOfflineError', 'ReconnectStrategyError', 'ConnectionTimeoutError']);

/**
 * The one place that turns a raw client or server error into a DocketError. `what` names the
 * call, for the case where the connection broke after the command was sent.
 */
export function fromRedisError(err: unknown, what = 'Redis call'): DocketError {
  if (err instanceof DocketError) return err;
  const name = err instanceof Error ? err.constructor.name : '';
  const errno = (err as { code?: unknown })?.code;
  // The connection broke while a reply was awaited: the command may or may not have run.
  if (name === 'SocketClosedUnexpectedlyError' || errno === 'ECONNRESET' || errno === 'EPIPE') {
    return new IndeterminateError(what, err);
  }
  if (NOT_SENT.has(name) || errno === 'ECONNREFUSED') return new ConnectionError(err);
  const message = messageOf(err);
  // A script's error keeps the code of the command that raised it; 'ERR' may wrap it on older servers.
  const code = /^([A-Z]+)\b/.exec(message)?.[1] ?? '';
  // Inside a script, Redis 7.0 words an ACL refusal as "...can't run this command or subcommand".
  if (/can't run this command|no permissions/i.test(message)) return new PermissionError(err);
  const Known = REPLY_CODES[code] ?? REPLY_CODES[/\b(OOM|NOPERM|READONLY)\b/.exec(message)?.[1] ?? ''];
  return Known ? new Known(err) : new RedisError(err);
}

/** Errors that mean "try the same call again shortly": the server will answer normally soon. */
export function isTransient(err: unknown): boolean {
  return err instanceof LoadingError || err instanceof BusyError || err instanceof TryAgainError;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
