/**
 * The Scheduler as its callers see it: every method, its overloads and its documentation, and the
 * option types several methods share. This is the API reference in code (docs/api.md follows it,
 * and docs-examples.test.ts checks the docs' signatures against it), kept apart from the object
 * that fulfils it (scheduler.ts) so that it reads as a contract, not as the wiring behind it.
 * One concept over 300 lines: the Scheduler's contract, every method with its overloads and its
 * documentation, and the option types that several of them share.
 */
import type { ListOptions, PreviewListOptions, PreviewPage, QueueStats, TaskPage } from '../features/admin';
import type { CleanOptions, ObliterateOptions } from '../features/clean';
import type { Dependency } from '../features/deps';
import type { EventsOptions, QueueEvent, Throughput, ThroughputOptions } from '../features/events';
import type { ConcurrencyLimit, GroupLimitOptions, GroupLimits, OrderGroupsOptions } from '../features/groups';
import type { MetricsOptions, MetricsRegistry } from '../features/metrics';
import type { RateLimitInput, RateLimitOptions, RateLimits } from '../features/rates';
import type { EveryOptions, Schedule, ScheduleInfo } from '../features/recurring';
import type { ScheduleOptions } from '../features/schedules';
import type { Sharded } from '../features/shards';
import type { DeadTask, ListDeadOptions } from '../life/dead';
import type { KeepOptions } from '../life/history';
import type { ClaimOptions, FailOptions } from '../life/lease';
import type { LogLine } from '../life/logs';
import type { ResultOptions, TaskOutcome } from '../life/outcome';
import type { PutOptions } from '../life/put';
import type { Handler, Handlers } from '../life/route';
import type { Worker, WorkOptions } from '../life/worker';
import type { BatchHandler, BatchOptions, BatchWorker } from '../life/worker';
import type { Json, JsonCompatible } from '../domain/payload';
import type { PutResult, Task, TaskInfo, TaskState } from '../domain/task';
import type { Span } from '../domain/time';
import type { RedriveRefusal } from '../ops/redrive';
import type { Change } from '../redis/reply';
import type { Queue, QueueName } from './queue';

/** The `queue` option most methods take. */
export interface QueueOption {
  /** The queue to act on. Default: the scheduler's `queue` option (`'default'` unless set). */
  queue?: string;
}

/** Options of reschedule, changePriority, cancel and redrive. */
export interface ChangeOptions extends QueueOption {
  /**
   * true: resolve to a {@link Change}, `{ done: true }` or `{ done: false, reason, worker? }`,
   * instead of a boolean. Default false.
   */
  explain?: boolean;
}

/** ChangeOptions asking why: the call resolves to a {@link Change}. */
export interface Explained extends ChangeOptions {
  explain: true;
}

/** Options of cancel(): a change's, and `running` to cancel an active task too. */
export interface CancelOptions extends ChangeOptions {
  /**
   * true: an active task is cancelled too. Its holder's lease token goes at once (its late ack or
   * fail is refused), its handler's signal aborts with a CancelledError at the holder's next
   * heartbeat, wherever it runs, and the task ends `cancelled` then (or when its lease lapses, if
   * the holder died). Default false: an active task is refused.
   */
  running?: boolean;
}

/**
 * cancel()'s answer with `explain: true`: a {@link Change}; for an active task cancelled with
 * `running`, also `worker`, the holder that stops it at its next heartbeat ('' if not recorded).
 */
export type Cancellation =
  | Change
  | {
      /** The active task is cancelled: its holder stops it at its next heartbeat. */
      done: true;
      /** The lease holder that stops it (host:pid:random), or '' if not recorded. */
      worker: string;
    };

/** Options of pause() and resume(): a queue, and `group` to pause or resume only that group's tasks. */
export interface PauseOptions extends QueueOption {
  /** The one fair group whose tasks stay put (pause) or run again (resume); the others go on. */
  group?: string;
}

export type { Change, Refusal } from '../redis/reply';
export type { RedriveRefusal } from '../ops/redrive';

/** Options of {@link Scheduler.dependencies}. */
export interface DependenciesOptions {
  /** The queue of the task. Default: the scheduler's `queue` option. */
  queue?: string;
  /** Read only the first this many (in put order), each one more outcome read. Default: all. */
  limit?: number;
}

/** A scheduler: what {@link createScheduler} resolves to. Every method rejects with a {@link ClosedError} after close(), and validates its arguments before any I/O (a {@link ValidationError} naming the field, nothing written). */
export interface Scheduler {
  /** Puts a task: `data` (any JSON, at most `maxPayloadBytes`) with its {@link PutOptions}. Resolves to a {@link PutResult} whose `added` is false when a live task of the same identity exists (a duplicate is a result, not an error). */
  put(data: Json, options?: PutOptions): Promise<PutResult>;
  /**
   * Puts data of any type that is JSON as far as TypeScript can tell (JsonCompatible), an
   * `interface` included, which `Json` refuses for want of an index signature. The first form
   * stays for code generic over `Json`, which the check cannot see into.
   */
  put<T>(data: T & JsonCompatible<T>, options?: PutOptions): Promise<PutResult>;
  /** Puts many tasks in few calls (chunks of 250), each item as put() would; one {@link PutResult} per item, in order. The whole batch is validated before anything is written. */
  putMany(items: Array<{ data: Json; options?: PutOptions }>): Promise<PutResult[]>;
  /**
   * As put's second form. TypeScript infers one `T` for all items, and cannot from items of
   * several types: the first form takes those that are Json (`{ data: 1 }, { data: 'x' }`); when
   * they mix an interface with other types, give `T` (`putMany<Mail | Sms>(items)`).
   */
  putMany<T>(items: Array<{ data: T & JsonCompatible<T>; options?: PutOptions }>): Promise<PutResult[]>;
  /**
   * A handle on queue `name` whose payloads are of type `T`: its put, putMany, work, get, result
   * and events take no queue and agree on `T`, an interface included; its handlers return an `R`,
   * which its result() reads back. A `T` or `R` that is not JSON (JsonCompatible) fails to compile
   * here; a queue given again in the handle's options must be `name` (else a ValidationError naming it). Synchronous: throws a ValidationError for a bad
   * name and a ClosedError after close().
   */
  queue<T = Json, R = Json>(name: QueueName<T, R>): Queue<T, R>;
  /**
   * Moves a pending (delayed, ready or waiting) task's run-at. True when moved; false for an
   * active, dead or unknown task. With `explain: true`, resolves to a {@link Change} instead, which
   * says why a refused change was refused (from the script's own answer, in the same step).
   */
  reschedule(hash: string, at: Date | number, options: Explained): Promise<Change>;
  /** As above, resolving to true when moved, false when refused. */
  reschedule(hash: string, at: Date | number, options?: ChangeOptions): Promise<boolean>;
  /**
   * Moves a pending task to another priority level, given as put's `priority` (1-9, true = 9,
   * false or 0 = normal). A ready task goes to the tail of the new level (FIFO within it); a
   * delayed or waiting one takes the level when it becomes ready; a task of a fair group changes
   * lane in its group only when the level crosses 0. True when changed or already at that level;
   * false for an active, dead or unknown task. With `explain: true`, resolves to a {@link Change}.
   */
  changePriority(hash: string, priority: boolean | number, options: Explained): Promise<Change>;
  /** As above, resolving to true when changed (or already at that level), false when refused. */
  changePriority(hash: string, priority: boolean | number, options?: ChangeOptions): Promise<boolean>;
  /**
   * Deletes a delayed, ready, waiting or dead task. True when deleted; false for an active or
   * unknown task. With `running: true`, an active task is cancelled too (see CancelOptions): true
   * once its holder is told. With `explain: true`, resolves to a {@link Cancellation}.
   */
  cancel(hash: string, options: CancelOptions & Explained): Promise<Cancellation>;
  /** As above, resolving to true when deleted (or, with `running`, once its holder is told), false when refused. */
  cancel(hash: string, options?: CancelOptions): Promise<boolean>;
  /** Reads one task and its state in one consistent view; null when the queue has no task of that hash (never put, or finished and not kept, purged, or deleted by the dead-task limits). */
  get<T = Json>(hash: string, options?: QueueOption): Promise<TaskInfo<T> | null>;
  /** Leases the next ready task for {@link ClaimOptions.lease} (default 30 s), or resolves to null when none is ready. A task claimed directly has no heartbeat: if this process dies, it comes back only when its lease runs out. Pass it to ack(), fail() or extend(). */
  claim<T = Json>(options?: ClaimOptions): Promise<Task<T> | null>;
  /** Leases up to `count` ready tasks (a whole number, 1-1000) in one script call, as claim() does; it may return fewer, or none. */
  claimMany<T = Json>(count: number, options?: ClaimOptions): Promise<Task<T>[]>;
  /**
   * Acks a claimed task: done. `result` (any JSON) is kept as its outcome when the task keeps one
   * (keepResult); a result that is not JSON or is over maxResultBytes is a typed error.
   */
  ack(task: Task<unknown>, result?: Json): Promise<boolean>;
  /**
   * Stores a claimed task's latest progress, fenced like ack (false once the lease is lost);
   * throttled to one write per task per 100 ms, the last value always written.
   */
  progress(task: Task<unknown>, value: Json): Promise<boolean>;
  /**
   * Appends a line to a claimed task's log, as `task.log(line)` does: fenced like ack (false once
   * the lease is lost), lines of one turn in one call. ack() and fail() wait for it.
   */
  log(task: Task<unknown>, line: string): Promise<boolean>;
  /**
   * The log of task `hash`, oldest line first, each with when it was written (epoch ms on the
   * Redis clock): [] for a task that logged nothing, or one that is gone (logs go with the task).
   */
  logs(hash: string, options?: QueueOption): Promise<LogLine[]>;
  /**
   * What docket knows of a task: `pending` or `active` while it lives; once finished, its kept
   * outcome (`done` with the result, `dead` with the last error, `expired`, `cancelled`) for the
   * task's keepResult span; null when docket knows nothing of it. With `wait`, resolves as soon as
   * the task finishes, or with its live state when `wait` runs out.
   */
  result<R = Json>(hash: string, options?: ResultOptions): Promise<TaskOutcome<R> | null>;
  /**
   * The tasks task `hash` was put after, in put order, each with its outcome as result() reads
   * it (a finished one's result only when it kept its outcome). Empty for a task put without
   * `after`, or once it is gone. A handler has the same as `task.dependencies()`.
   */
  dependencies(hash: string, options?: DependenciesOptions): Promise<Dependency[]>;
  /** Records a failed attempt of a claimed task. `'retry'`: delivered again after `retryIn` (default {@link defaultBackoff}); `'dead'`: its attempts are used up (or the error is an {@link UnrecoverableError}), so it is kept as dead; `'merged'`: an `until-start` task deleted because a task of its identity waits already; `'lost'`: the lease was lost, nothing changed. Safe to repeat. */
  fail(task: Task<unknown>, options?: FailOptions): Promise<'retry' | 'dead' | 'merged' | 'lost'>;
  /** Sets a claimed task's lease deadline to the server's now + `by` (a {@link Span} over 0 ms) and updates `task.leaseUntil`: it sets, it does not add. False, changing nothing, once the lease is lost. */
  extend(task: Task<unknown>, by: Span): Promise<boolean>;
  /**
   * Ends a claimed task's attempt without counting it, as `task.snooze(span)` does: the task waits
   * `span` and its lease is released; false once the lease is lost (fenced like ack).
   */
  snooze(task: Task<unknown>, span: Span): Promise<boolean>;
  /**
   * Runs a handler module (a path, relative to the working directory, or a file URL; its default
   * export or module.exports: a handler, or handlers by name) in worker threads; see sandbox.ts.
   */
  work(module: string | URL, options: WorkOptions & { sandbox: true }): Worker;
  /** Runs each task by the handler of its name (`'*'` for any other); see Handlers. */
  work<T = Json>(handlers: Handlers<T>, options?: WorkOptions): Worker;
  /** Starts a {@link Worker} that claims the queue's tasks and runs `handler` on each, up to `concurrency` at once, with heartbeats: it acks when the handler resolves and fails the attempt when it throws. Throws a ClosedError after close(). */
  work<T = Json>(handler: Handler<T>, options?: WorkOptions): Worker;
  /**
   * Runs the tasks of a queue in batches: `handler` gets up to `size` tasks at once (waiting at
   * most `wait` for a batch to fill once it has one), all leased, their leases kept alive together,
   * up to `concurrency` batches at once. It resolves to `undefined` or to one result per task (in
   * order) to ack them all, throws to fail them all, or fails single tasks with `task.fail(error)`.
   * Each task keeps the rules of a single one: fencing, run timeouts (the batch's is its tasks'
   * shortest), keepResult, endings, snooze, cancel, and the queue's limits counted per task. It
   * takes tasks of any name. Returns a worker to close(), as work() does.
   */
  workBatch<T = Json, R = Json>(handler: BatchHandler<T, R>, options?: BatchOptions): BatchWorker;
  /** Counts a queue's tasks by state, whether it is paused, and its lifetime totals, in one consistent view (the totals count the work of every process). */
  stats(options?: QueueOption): Promise<QueueStats>;
  /**
   * Stops claims on a queue for every worker (puts are still accepted); false if it was paused.
   * With `group`, only that group's tasks stay put (keeping their place), the others run.
   */
  pause(options?: PauseOptions): Promise<boolean>;
  /** @deprecated The queue as a string: pass `{ queue }`, as every other method takes it. */
  pause(queue: string): Promise<boolean>;
  /** Lets workers claim from a paused queue (or `group`) again; false if it was not paused. */
  resume(options?: PauseOptions): Promise<boolean>;
  /** @deprecated The queue as a string: pass `{ queue }`, as every other method takes it. */
  resume(queue: string): Promise<boolean>;
  /**
   * A page of a queue's tasks in one state, in the order they will leave it. With `preview`, each
   * task carries the first `preview` bytes of its payload and its size instead of its data.
   */
  list(state: TaskState, options: PreviewListOptions): Promise<PreviewPage>;
  /** As above, each task with its data. */
  list<T = Json>(state: TaskState, options?: ListOptions): Promise<TaskPage<T>>;
  /** The queues this prefix has seen a put on (a registry kept in Redis) that still have a key, by name. */
  queues(): Promise<string[]>;
  /** The Redis server's clock, epoch ms: the clock of every run-at, lease and event. */
  time(): Promise<number>;
  /**
   * The outcomes of a queue's tasks (completed, failed, dead, expired, deduplicated) as they
   * happen, from any process, read from the queue's capped events stream.
   */
  events(options?: EventsOptions & QueueOption): AsyncIterableIterator<QueueEvent>;
  /** @deprecated The queue as a string: pass `{ queue, ...options }`, as every other method takes it. */
  events(queue: string | undefined, options?: EventsOptions): AsyncIterableIterator<QueueEvent>;
  /**
   * A queue's outcomes per time bucket over a recent window (at most 24 hours): counted from its
   * capped events stream, or, for a window over 10 minutes in whole-minute buckets (or
   * `source: 'minutes'`), read from the per-minute counters the queue keeps for a day.
   */
  throughput(options?: ThroughputOptions & QueueOption): Promise<Throughput>;
  /** @deprecated The queue as a string: pass `{ queue, ...options }`, as every other method takes it. */
  throughput(queue: string | undefined, options?: ThroughputOptions): Promise<Throughput>;
  /**
   * Adds docket's gauges (tasks per queue and state, paused, oldest due task's age) and counters
   * (put, added, deduplicated, completed, failed, dead, expired, lease lost), read from Redis at each
   * scrape so they are queue-wide, and histograms of this scheduler's queue lag and handler run
   * times, to a prom-client registry. Needs the prom-client package; a MetricsRegisteredError when
   * the registry has docket's metric names already.
   */
  registerMetrics(registry: MetricsRegistry, options?: MetricsOptions): void;
  /** Dead tasks, most recent death first, with their last error and attempts. */
  listDead<T = Json>(options?: ListDeadOptions): Promise<DeadTask<T>[]>;
  /**
   * Sends a dead task back to ready with its attempts reset; false when it is not dead. With
   * `explain: true`, resolves to a {@link Change} whose refusal says why (`missing`, `active`, or
   * `pending`: it waits to run), from the script's own answer.
   */
  redrive(hash: string, options: Explained): Promise<Change<RedriveRefusal>>;
  /** As above, resolving to true when re-driven, false when refused. */
  redrive(hash: string, options?: ChangeOptions): Promise<boolean>;
  /** Sends every dead task of a queue back to ready; returns how many. */
  redriveAll(options?: QueueOption): Promise<number>;
  /** Deletes every dead task of a queue; returns how many. */
  purgeDead(options?: QueueOption): Promise<number>;
  /**
   * Sets how many finished tasks a queue keeps, and how long, separately for done tasks (its
   * history: `list('done')`, `get`, `result`) and dead ones; a kind left out stays as it was.
   * Stored in Redis: every worker applies it from its next claim. `done: { count: 0 }` turns the
   * history off. Defaults: done 1,000 for 24 h; dead the scheduler's deadMaxCount and deadMaxAge.
   */
  keep(options: KeepOptions): Promise<void>;
  /**
   * Puts a done task's data and options again as a new task (what the dashboard's Run again does):
   * put()'s de-dup rules apply, and the PutResult's status says what the put did (`duplicate` while
   * a run of it is live). null when the queue keeps no done task of that hash.
   */
  runAgain(hash: string, options?: QueueOption): Promise<PutResult | null>;
  /**
   * Deletes a queue's ready, delayed or dead tasks (those put, or for dead ones died, at least
   * `olderThan` ago; at most `limit`) in short batches, safe while workers run: a task claimed
   * meanwhile stays. Tasks waiting on a deleted one learn it was cancelled. Returns how many.
   */
  clean(options: CleanOptions): Promise<number>;
  /**
   * Deletes a queue and every key of it, and takes it out of queues(). Refused with a
   * QueueActiveError while tasks of it are leased, unless `force: true`.
   */
  obliterate(options?: ObliterateOptions): Promise<void>;
  /**
   * Declares a recurring schedule: each occurrence becomes a normal task (run-at = the occurrence),
   * put exactly once however many processes declare the same schedule. Resolves once the schedule
   * is recorded and its next occurrence put; this process then keeps it going until close().
   */
  every(name: string, schedule: Schedule, data: Json, options?: EveryOptions): Promise<void>;
  /** every() with data of any JSON type, an interface included, as put's second form. */
  every<T>(name: string, schedule: Schedule, data: T & JsonCompatible<T>, options?: EveryOptions): Promise<void>;
  /**
   * Stores (or replaces) a schedule in Redis: every work() loop of its queue, in any process, puts
   * its occurrences, each exactly once, with `options`' task template. Resolves once it is stored
   * and its first occurrences are put; no process needs to keep declaring it.
   */
  schedule(name: string, schedule: Schedule, data: Json, options?: ScheduleOptions): Promise<void>;
  /** schedule() with data of any JSON type, an interface included, as put's second form. */
  schedule<T>(name: string, schedule: Schedule, data: T & JsonCompatible<T>, options?: ScheduleOptions): Promise<void>;
  /** Deletes a schedule everywhere and cancels its pending occurrences; false when there was none. */
  unschedule(name: string, options?: QueueOption): Promise<boolean>;
  /** The schedules of a queue, by name, with their next run and paused state. */
  listSchedules<T = Json>(options?: QueueOption): Promise<ScheduleInfo<T>[]>;
  /** Stops a schedule's occurrences everywhere and cancels those put ahead; false when it was paused already, or there is none. */
  pauseSchedule(name: string, options?: QueueOption): Promise<boolean>;
  /** Restarts a paused schedule from its next time (those that fell due while paused are skipped); false when it was not paused, or there is none. */
  resumeSchedule(name: string, options?: QueueOption): Promise<boolean>;
  /** Puts one task of a schedule now, with its data and task template, paused or not; null when there is no such schedule. */
  runScheduleNow(name: string, options?: QueueOption): Promise<PutResult | null>;
  /**
   * At most `limit` tasks of each group of a queue (or of `options.group` only) active at once,
   * across every worker; null removes the limit. A group's own limit wins over the queue's.
   */
  limitGroups(limit: number | null, options?: GroupLimitOptions): Promise<void>;
  /** A queue's group limits, and each group's active tasks. */
  groupLimits(options?: QueueOption): Promise<GroupLimits>;
  /**
   * Makes a queue's fair groups ordered (`on` true) or not. In an ordered queue each group's tasks
   * run one at a time, in their order (run-at, then put order); a failed task keeps its group's
   * head while it waits for its retry (also snoozed, or back after its lease lapsed): nothing
   * behind it in its group runs. A dead task lets the group go on, or, with `holdOnDead`, holds it
   * until it is redriven, cancelled or purged. Other groups are never held up, and the fair turn
   * between groups holds. Stored in Redis, so every worker applies it; false releases every hold.
   */
  orderGroups(on: boolean, options?: OrderGroupsOptions): Promise<void>;
  /**
   * At most `limit` tasks of a queue leased at once across every worker and process (the
   * database-writers case); null removes the limit. Combines with group limits.
   */
  limitConcurrency(limit: number | null, options?: QueueOption): Promise<void>;
  /** A queue's concurrency limit (null for none), and its tasks leased now. */
  concurrencyLimit(options?: QueueOption): Promise<ConcurrencyLimit>;
  /**
   * At most `max` claims of a queue in any `per` (sliding, on the Redis clock) across every worker
   * and process; `limitRate(null, { queue })` removes it. A limited worker sleeps until the next
   * claim is allowed instead of polling.
   */
  limitRate(limit: RateLimitInput): Promise<void>;
  /** Removes the queue's rate limit. */
  limitRate(limit: null, options?: RateLimitOptions): Promise<void>;
  /** A queue's rate limit, and until when backoffQueue() holds its claims. */
  rateLimits(options?: QueueOption): Promise<RateLimits>;
  /**
   * No claim of `queue`, by any worker, for `span` from the Redis server's now (an API answered
   * 429: BullMQ's rateLimit). Resolves when claims may start again (epoch ms, Redis clock).
   */
  backoffQueue(queue: string, span: Span): Promise<number>;
  /**
   * A hot queue split into `count` shard queues (`name:0` ... `name:<count-1>`), which spread over
   * a Redis Cluster: puts go to the shard the task's identity hashes to, workers work every shard.
   */
  sharded(name: string, count: number): Sharded;
  /** Stops the schedule loops this process runs, closes every worker of work() (each within its `shutdownTimeout`), waits for the calls under way, and closes the connection docket opened (a `client` passed in stays open). Settles within the workers' bound plus one `commandTimeout`; calling it again does nothing. */
  close(): Promise<void>;
}
