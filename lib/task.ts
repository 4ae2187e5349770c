/**
 * What a task looks like to callers, and how the records Lua hands back become those shapes.
 * A task's stored metadata is a small JSON object in the queue's `meta` hash (docs/design.md).
 */
import type { Dependency } from './deps';
import type { Json } from './payload';
import type { Carrier } from './tracing';

/** A leased task, as claim() and work() hand it out. */
export interface Task<T = Json> {
  /** The task's id: its identity hash. */
  readonly hash: string;
  readonly queue: string;
  readonly data: T;
  /** Which delivery this is: 1 on the first. */
  readonly attempt: number;
  /** When the task became (or was due to become) runnable, epoch ms on the Redis clock. */
  readonly runAt: number;
  /** When an unclaimed task is dropped, or null for never. */
  readonly expireAt: number | null;
  /** The lease deadline on the Redis clock; extend() moves it. */
  leaseUntil: number;
  /** The lease token: ack, fail and extend are refused once it no longer matches (fencing). */
  readonly token: string;
  /**
   * The producer's trace context (W3C `traceparent`, `tracestate`), stored when put() was traced
   * (see tracing.ts), else null.
   */
  readonly trace: Carrier | null;
  /** How long (ms) the task's outcome is kept once it finishes, or null when it is not kept. */
  readonly keepResult: number | null;
  /** How long (ms) one attempt may run (its put's `timeout`), or null for no limit of its own. */
  readonly timeout: number | null;
  /** Its name (put's `name`), or null: what `work({ [name]: handler })` routes by. */
  readonly name: string | null;
  /** Its fair group (put's `group`), or null: whose turn and group limit it counts against. */
  readonly group: string | null;
  /**
   * Stores the task's latest progress (any JSON), fenced like ack: resolves true once stored,
   * false when the lease is lost. Writes are throttled to one per task per 100 ms; the last value
   * is always written (before the task's ack). Throws a ValidationError at once for a value that
   * is not JSON or is over `maxResultBytes`.
   */
  progress(value: Json): Promise<boolean>;
  /**
   * Appends a line to the task's log, fenced like ack: resolves true once stored, false when the
   * lease is lost. Lines written in one turn of the event loop go in one call; the worker stores
   * them before the task's ack. The log keeps the newest `logMaxLines` lines and `logMaxBytes`
   * bytes (the oldest go first) and goes with the task; `scheduler.logs()` reads it. Throws a
   * ValidationError at once for a line that is not a string (a PayloadTooLargeError for one
   * alone over `logMaxBytes`).
   */
  log(line: string): Promise<boolean>;
  /**
   * The tasks this one was put after (`after`), in put order, each with its outcome: its result
   * when it kept one (keepResult), else null once it is gone. Empty for a task put without `after`.
   */
  dependencies(): Promise<Dependency[]>;
}

/** Where a task is: 'waiting' on the tasks it was put after, then delayed or ready, active, dead. */
export type TaskState = 'waiting' | 'delayed' | 'ready' | 'active' | 'dead';

/** A task as get() reports it. */
export interface TaskInfo<T = Json> {
  readonly hash: string;
  readonly queue: string;
  readonly data: T;
  readonly state: TaskState;
  readonly runAt: number;
  readonly expireAt: number | null;
  /** Deliveries so far. */
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly priority: boolean;
  /** The priority level: 0 for a normal task, 1 to 9 ahead of normal ones (9 first). */
  readonly level: number;
  /** The fair-scheduling group given to put, if any. */
  readonly group: string | null;
  /** The de-dup key given to put, if any. */
  readonly key: string | null;
  /** The last failure recorded (a handler's error, or 'lease expired'), if any. */
  readonly lastError: string | null;
  /** The lease deadline while active, else null. */
  readonly leaseUntil: number | null;
  /** Which worker holds the lease (host:pid:random) while active, else null. */
  readonly worker: string | null;
  /** The latest progress its handler reported (kept until the task finishes), else null. */
  readonly progress: Json | null;
  /** How long its outcome is kept once it finishes (ms), else null. */
  readonly keepResult: number | null;
  /** How long one attempt may run (its put's `timeout`, ms), else null. */
  readonly timeout: number | null;
  /** Its name (put's `name`), else null. */
  readonly name: string | null;
}

/** The stored metadata; single letters keep each of a million records small. */
export interface Meta {
  r: number; // run-at
  m: number; // max attempts
  n: number; // deliveries so far
  c: number; // created at
  p?: number; // priority level 1-9 (absent: 0, normal)
  g?: string; // fair-scheduling group
  q?: string; // its place in its group's order, once parked by the group's limit (cleared when leased)
  k?: string; // de-dup key
  x?: number; // expire window (ms after run-at)
  e?: number; // expire-at
  t?: string; // lease token
  l?: number; // lease deadline
  w?: string; // worker holding the lease
  tp?: string; // the producer's trace context, encoded (tracing.ts)
  err?: string; // last error
  kr?: number; // keep the outcome this long once finished (ms)
  to?: number; // run timeout of one attempt (ms)
  nm?: string; // name
  pg?: 1; // has reported progress (in the queue's `progress` hash)
  lg?: 1; // has log lines (in the queue's `logs` hash)
}

export function toTaskInfo<T>(queue: string, hash: string, reply: [string, string, TaskState, string | null]): TaskInfo<T> {
  const [payload, metaJson, state, progress] = reply;
  const meta = JSON.parse(metaJson) as Meta;
  return {
    hash,
    queue,
    data: JSON.parse(payload) as T,
    state,
    runAt: meta.r,
    expireAt: meta.e ?? null,
    attempts: meta.n,
    maxAttempts: meta.m,
    priority: (meta.p ?? 0) > 0,
    level: meta.p ?? 0,
    group: meta.g ?? null,
    key: meta.k ?? null,
    lastError: meta.err ?? null,
    leaseUntil: meta.l ?? null,
    worker: meta.w ?? null,
    progress: progress ? (JSON.parse(progress) as Json) : null,
    keepResult: meta.kr ?? null,
    timeout: meta.to ?? null,
    name: meta.nm ?? null,
  };
}
