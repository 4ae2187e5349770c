/**
 * What a task looks like to callers: its states, a leased Task as a handler gets it, TaskInfo as
 * get() reads it with the caps it keeps (`keep`), a done run, a line of its log. How a stored record
 * becomes these: domain/task.ts.
 */
import type { Json } from './json';
import type { Dependency, Ending } from './outcome';
import type { Span } from './time';

/** Where a task is: 'waiting' on the tasks it was put after, then delayed or ready, active, dead. */
export type TaskState = 'waiting' | 'delayed' | 'ready' | 'active' | 'dead' | 'done';

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
  /**
   * Aborted when work() stops this attempt: its run timeout (RunTimeoutError), a lost lease
   * (LeaseLostError), a cancel while it runs (CancelledError), or close() handing it back
   * (ClosedError), with that error as its `reason`. The same signal as the handler's second
   * parameter. Made the first time it is read (a handler that never reads it makes none), already
   * aborted if the attempt was stopped before. A task you claimed yourself has one docket never
   * aborts.
   */
  readonly signal: AbortSignal;
}

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

/** One stored log line: when it was written (epoch ms on the Redis clock) and its text. */
export interface LogLine {
  /** When it was written, epoch ms on the Redis clock. */
  at: number;
  /** The line; 'encrypted' when it is encrypted with a key this scheduler does not have. */
  line: string;
  /** Present (true) when the line is encrypted with a key this scheduler does not have. */
  encrypted?: true;
}

/** One kind's caps for one task (put's `keep`): how many of that kind are kept, and how long. */
export interface TaskCaps {
  /** How many finished tasks of the kind the queue keeps after this one's finish (0 to 10,000,000). */
  count?: number;
  /** How long (ms or a Duration) they are kept. */
  age?: Span;
}

/**
 * What the queue keeps once THIS task finishes (BullMQ's removeOnComplete and removeOnFail), per
 * kind: `false`, this task is not kept; caps, used instead of the queue's (keep()) for the trim of
 * this finish, a cap left out being the queue's.
 */
export interface TaskKeep {
  /** Once done: the done history (lua/include/history.lua). */
  done?: false | TaskCaps;
  /** Once dead (out of attempts, or an unrecoverable error): the dead set (lua/include/deadcaps.lua). */
  dead?: false | TaskCaps;
}
