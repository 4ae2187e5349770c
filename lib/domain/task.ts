/**
 * What a task looks like to callers, and how the records Lua hands back become those shapes.
 * A task's stored metadata is a small JSON object, the record part of its field in the queue's
 * `tasks` hash (docs/design.md, lib/domain/meta.ts). One concept over 300 lines: a task's shapes
 * (Task, TaskInfo, its outcomes) and how its record becomes them.
 */
import type { TaskState } from './domain';
import type { Span } from './time';
import { parseMeta, type Meta } from './meta';
import { taskKeep, type TaskKeep } from './kept';
import { unseal, type Keyring } from './crypto';
import { parseRecord, type Json } from './payload';

/**
 * How a task's latest attempt that did not succeed ended: `failed` (the handler threw, timed out or
 * its lease lapsed: retried after the back-off, or dead once out of attempts), `unrecoverable` (it
 * threw an UnrecoverableError: dead at once), `retry-later` (it threw a RetryLaterError: retried at
 * the time it gave, or dead at its last attempt), `snoozed` (it called `task.snooze()`: delayed,
 * the attempt not counted).
 */
export type Ending = 'failed' | 'unrecoverable' | 'retry-later' | 'snoozed';

/** A trace context to store with a task: string fields, such as `traceparent` and `tracestate`. */
export type Carrier = Record<string, string>;

/** A leased task, as claim() and work() hand it out. */
export interface Task<T = Json> {
  /** The task's hash: the hash of its identity, as put() returned it (the Lua scripts call it the id). */
  readonly hash: string;
  /** The queue it was claimed from. */
  readonly queue: string;
  /** Its payload, as put: parsed from the stored canonical JSON (object keys in sorted order). */
  readonly data: T;
  /**
   * Which delivery this is: 1 on the first. Every lease counts, including one that later ran out;
   * only a lease handed back by a closing worker does not.
   */
  readonly attempt: number;
  /**
   * When the task became (or was due to become) runnable, epoch ms on the Redis clock: for a retry,
   * the retry's run-at.
   */
  readonly runAt: number;
  /** When an unclaimed task is dropped, epoch ms, or null for never. */
  readonly expireAt: number | null;
  /** The lease deadline on the Redis clock; extend() moves it, on this object too. */
  leaseUntil: number;
  /** The lease token: ack, fail and extend are refused once it no longer matches (fencing). */
  readonly token: string;
  /**
   * The producer's trace context (W3C `{ traceparent, tracestate? }`), stored when put() was traced
   * (docs/api.md#tracing), else null.
   */
  readonly trace: Carrier | null;
  /**
   * How long (ms) the task's outcome is kept once it finishes (its put's `keepResult`, else that of
   * the worker that leased it), or null when it is not kept.
   */
  readonly keepResult: number | null;
  /**
   * How long (ms) one attempt may run (its put's `timeout`), or null for no limit of its own
   * (docs/api.md#run-timeouts).
   */
  readonly timeout: number | null;
  /** Its name (put's `name`), or null: what `work({ [name]: handler })` routes by. */
  readonly name: string | null;
  /** Its fair group (put's `group`), or null: whose turn and group limit it counts against. */
  readonly group: string | null;
  /**
   * Stores the task's latest progress (any JSON), fenced like ack: resolves true once stored,
   * false when the lease is lost. Writes are throttled to one per task per 100 ms; the last value
   * is always written (before the task's ack). Throws a ValidationError at once for a value that
   * is not JSON or is over `maxResultBytes`. See docs/api.md#progress.
   */
  progress(value: Json): Promise<boolean>;
  /**
   * Appends a line to the task's log, fenced like ack: resolves true once stored, false when the
   * lease is lost. Lines written in one turn of the event loop go in one call; the worker stores
   * them before the task's ack. The log keeps the newest `logMaxLines` lines and `logMaxBytes`
   * bytes (the oldest go first) and goes with the task; `scheduler.logs()` reads it. Throws a
   * ValidationError at once for a line that is not a string (a PayloadTooLargeError for one
   * alone over `logMaxBytes`). See docs/api.md#task-logs.
   */
  log(line: string): Promise<boolean>;
  /**
   * The tasks this one was put after (`after`), in put order, each with its outcome: its result
   * when it kept one (keepResult), else null once it is gone. Empty for a task put without `after`.
   * See docs/api.md#dependencies-after-dependencies.
   */
  dependencies(): Promise<Dependency[]>;
  /**
   * Ends this attempt without counting it: the task waits `span` (ms or a Duration, from the Redis
   * server's now) and its lease is released, so the next delivery sees the same `attempt`. Fenced
   * like ack: resolves true once snoozed, false when the lease was lost (nothing changed). Once it
   * resolved true, the handler's return or throw is ignored (no ack, no fail). Its last progress and
   * log lines are stored first. Rejects with a ValidationError for a bad span, sending nothing.
   * See docs/api.md#how-a-handler-ends-its-attempt.
   */
  snooze(span: Span): Promise<boolean>;
}

export type { TaskState };

/** A task as get() reports it. */
export interface TaskInfo<T = Json> {
  /** The task's hash, as put() returned it. */
  readonly hash: string;
  /** Its queue. */
  readonly queue: string;
  /** Its payload; null when it is encrypted with a key this scheduler does not have (see `encrypted`). */
  readonly data: T;
  /** Where it is in its life: a {@link TaskState}. */
  readonly state: TaskState;
  /** Run-at, epoch ms on the Redis clock: for a retry, the retry's; after a redrive, the time of the redrive. */
  readonly runAt: number;
  /** When it is dropped if still unclaimed, epoch ms; null for never. */
  readonly expireAt: number | null;
  /**
   * Deliveries so far: leases given out, less those a closing worker handed back. Back to 0 after a
   * redrive.
   */
  readonly attempts: number;
  /** Deliveries before the task goes dead (put's `maxAttempts`); `attempts` counts them. */
  readonly maxAttempts: number;
  /**
   * Whether the task is ahead of normal ones: `level > 0`.
   * @deprecated Read `level`, the one word for a task's priority (it tells 1 from 9); this stays until 1.0.
   */
  readonly priority: boolean;
  /**
   * The priority level: 0 for a normal task, 1 to 9 ahead of normal ones (9 first). A put with
   * `priority: true` gave 9.
   */
  readonly level: number;
  /** The fair-scheduling group given to put, else null. */
  readonly group: string | null;
  /** The de-dup key given to put, else null. */
  readonly key: string | null;
  /**
   * The last failure recorded, else null: a handler's error (fail()'s `error`), `'failed'` for a
   * failure that gave none, or `'lease expired'`. A hand-back and a redrive keep it.
   */
  readonly lastError: string | null;
  /**
   * How its latest attempt that did not succeed ended, an {@link Ending}
   * (docs/api.md#how-a-handler-ends-its-attempt); null while none has, and for a done task.
   */
  readonly ending: Ending | null;
  /** The lease deadline while active, else null. */
  readonly leaseUntil: number | null;
  /**
   * Which worker holds the lease (host:pid:random) while active, and for a done task the worker that
   * ran it; else null. For direct claim() calls this is one id per scheduler.
   */
  readonly worker: string | null;
  /**
   * The latest progress its handler reported (docs/api.md#progress), kept across retries until the
   * task finishes; else null.
   */
  readonly progress: Json | null;
  /** How long its outcome is kept once it finishes (ms), else null. */
  readonly keepResult: number | null;
  /** How long one attempt may run (its put's `timeout`, ms), else null. */
  readonly timeout: number | null;
  /** Its name (put's `name`), else null. */
  readonly name: string | null;
  /**
   * The schedule (schedule() or every()) whose occurrence it is, else null (a plain put). A done
   * task in the history says it too.
   */
  readonly schedule: string | null;
  /**
   * What the queue keeps once it finishes, present only when its put gave `keep`
   * ({@link PutOptions.keep}): that option, spans in ms (a count of 0 reads as `false`).
   */
  readonly keep?: TaskKeep;
  /**
   * Only for a done task (state 'done', kept in its queue's history:
   * docs/api.md#history-keep-listdone-runagain): its run's result, put, first-started and finished times.
   */
  readonly done?: DoneRun;
  /**
   * Present (true) only when its data or progress is encrypted with a key this scheduler does not
   * have ({@link SchedulerOptions.encryption}): those read as null. Outcomes (result()), events and
   * log lines carry the same mark.
   */
  readonly encrypted?: true;
}

/** What a done task kept of its run (lua/include/history.lua); `worker` of its TaskInfo ran it. */
export interface DoneRun {
  /** The handler's resolved value; null when it resolved with nothing (or it is encrypted: see `encrypted`). */
  readonly result: Json | null;
  /** When it was put (or last revived), epoch ms on the Redis clock. */
  readonly putAt: number;
  /**
   * When its first attempt started; null when that attempt started while its queue kept no done
   * history and it had no `keep` of its own (the time is recorded only for the history), or before
   * docket recorded it.
   */
  readonly startedAt: number | null;
  /** When it was acked, epoch ms on the Redis clock. */
  readonly finishedAt: number;
}

/**
 * What a put did: `added`, a new task; `duplicate`, a live task with the same identity was there, or
 * one was put within its `dedupWindow` (a result, not an error; nothing changed); `revived`, a dead
 * task with the same identity was stored afresh with this put's options, its attempts reset and its
 * last error cleared; `replaced`, a pending task with the same identity took this put's options
 * (onDuplicate `'replace'` or `'debounce'`).
 */
export type PutStatus = 'added' | 'duplicate' | 'replaced' | 'revived';

/** What {@link Scheduler.put} resolves to, one per item for putMany(). */
export interface PutResult {
  /**
   * The task's id, the same for every put of the same data (or key) while the task lives: pass it to
   * get(), cancel() and reschedule(). Treat it as an opaque string: normally 32 hex characters, with
   * a `-1`, `-2`, ... suffix in the rare case of a hash collision.
   */
  hash: string;
  /**
   * true when this call stored the task (new, or a dead task revived); false when a live task with
   * the same identity was already there (`duplicate` or `replaced`), or a `dedupWindow` held the
   * identity: a duplicate is a result, not an error.
   */
  added: boolean;
  /** What this put did; `added` is true for `added` and `revived`. */
  status: PutStatus;
  /** The queue the task is in. */
  queue: string;
  /**
   * Run-at in epoch ms on the Redis clock. For a duplicate, the existing task's run-at (or, for a
   * duplicate within a `dedupWindow` whose task is gone, when the window ends); for a replaced task,
   * its new run-at.
   */
  runAt: number;
}

/**
 * Task `hash` as get() reports it, from its record as the get and list codecs decode it (by name:
 * lib/ops/get.ts). A record without a payload (damaged) reads as data null.
 */
export function toTaskInfo<T>(queue: string, hash: string, record: TaskRecord, keyring: Keyring | null = null): TaskInfo<T> {
  const { payload, state } = record;
  const meta = parseMeta(record.meta, `the metadata of task ${hash}`);
  const data = viewOf<T>(keyring, payload ?? 'null', `the payload of task ${hash}`);
  const progress = record.progress ? viewOf(keyring, record.progress, `the progress of task ${hash}`) : null;
  return {
    hash,
    queue,
    data: data ?? (null as T),
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
    // A record without `en` that recorded a failure ended its attempt the usual way.
    ending: state === 'done' ? null : (meta.en ?? (meta.err === undefined ? null : 'failed')),
    // A done task's record is the one it had when acked: its lease is over.
    leaseUntil: state === 'done' ? null : (meta.l ?? null),
    worker: meta.w ?? null,
    progress: progress ?? null,
    keepResult: meta.kr ?? null,
    timeout: meta.to ?? null,
    name: meta.nm ?? null,
    schedule: meta.sc ?? null,
    ...(meta.kp ? { keep: taskKeep(meta.kp) } : {}),
    ...(state === 'done' ? { done: doneRun(meta, keyring, hash) } : {}),
    ...(data === undefined || progress === undefined ? { encrypted: true } : {}),
  };
}

function doneRun(meta: Meta, keyring: Keyring | null, hash: string): DoneRun {
  const result = meta.rs === undefined ? null : (viewOf(keyring, meta.rs, `the result of task ${hash}`) ?? null);
  return { result, putAt: meta.c, startedAt: meta.s ?? null, finishedAt: meta.f ?? 0 };
}

/**
 * A stored value (payload, progress, result) as a view shows it: parsed, or undefined when it is
 * encrypted with a key this reader does not have, which a view shows as "encrypted", not a throw.
 */
export function viewOf<T = Json>(keyring: Keyring | null, text: string, what: string): T | undefined {
  const plain = unseal(keyring, text, what, true);
  return plain === undefined ? undefined : parseRecord<T>(plain, what);
}

/** A task's stored record and the state it is in, as get and list read it. */
export interface TaskRecord {
  /** Canonical JSON payload; null when the record has none (damaged). */
  payload: string | null;
  /** JSON task metadata (lib/domain/task.ts, Meta). */
  meta: string;
  state: TaskState;
  /** JSON progress, or null when none was reported. */
  progress: string | null;
}

/** A task a put waits on: its hash in the same queue, or `{ queue, hash }` in another. */
export type DependencyRef =
  | string
  | {
      /** The queue of the task waited on. */
      queue: string;
      /** Its hash, as put() returned it. */
      hash: string;
    };
/** What a task that failed does to the tasks waiting on it (see docs/api.md). */
export type DependencyFailure = 'dead' | 'run' | 'cancel';

/** One task that a task waited on, with its outcome (null once no outcome of it is kept). */
export interface Dependency<R = Json> {
  /** The queue of the task waited on. */
  queue: string;
  /** Its hash. */
  hash: string;
  /** Its outcome as {@link Scheduler.result} reads it (a finished one's result only when it kept one); null once nothing of it is kept. */
  outcome: TaskOutcome<R> | null;
}

interface OutcomeBase {
  /** The task's hash. */
  readonly hash: string;
  /** Its queue. */
  readonly queue: string;
  /** Deliveries so far (for a finished task: the deliveries it took). */
  readonly attempts: number;
  /**
   * Present (true) when its result or progress is encrypted with a key this scheduler does not
   * have (options.encryption): that reads as null. Absent otherwise.
   */
  readonly encrypted?: true;
}

/** A task that has not finished: waiting (delayed or ready) or leased. */
export interface LiveOutcome extends OutcomeBase {
  /** `pending` (delayed, ready or waiting) or `active` (leased). */
  readonly state: 'pending' | 'active';
  /** Its run-at, epoch ms on the Redis clock. */
  readonly runAt: number;
  /** The latest progress its handler reported, else null. */
  readonly progress: Json | null;
}

/** A task whose handler succeeded. */
export interface DoneOutcome<R = Json> extends OutcomeBase {
  /** It finished: its handler succeeded. */
  readonly state: 'done';
  /** The handler's resolved value; null when it resolved with nothing, or the result was not kept. */
  readonly result: R | null;
  /** When it finished: epoch ms on the Redis clock. */
  readonly finishedAt: number;
}

/** A task that used up its attempts. */
export interface DeadOutcome extends OutcomeBase {
  /** It finished dead. */
  readonly state: 'dead';
  /** The last failure (a handler's error, or 'lease expired'). */
  readonly error: string | null;
  /** How its last attempt ended: `failed` (out of attempts), `unrecoverable` or `retry-later` (see Ending). */
  readonly ending: Exclude<Ending, 'snoozed'>;
  /** When it went dead: epoch ms on the Redis clock. */
  readonly finishedAt: number;
}

/** A task dropped unclaimed once its expiry passed, or cancelled before it ran. */
export interface EndedOutcome extends OutcomeBase {
  /** `expired` (its expiry passed before a claim) or `cancelled`. */
  readonly state: 'expired' | 'cancelled';
  /** When it expired or was cancelled: epoch ms on the Redis clock. */
  readonly finishedAt: number;
}

/**
 * An until-start task that failed while a task of its identity already waited (put while it ran):
 * it was not retried, since that task does the same work.
 */
export interface MergedOutcome extends OutcomeBase {
  /** It finished merged into another task. */
  readonly state: 'merged';
  /** The hash of the waiting task it was merged into. */
  readonly into: string;
  /** When it was merged: epoch ms on the Redis clock. */
  readonly finishedAt: number;
}

/** What {@link Scheduler.result} reports of a task, by `state`: live, or finished with its kept outcome. */
export type TaskOutcome<R = Json> = LiveOutcome | DoneOutcome<R> | DeadOutcome | EndedOutcome | MergedOutcome;
