/**
 * The scheduler: the one object callers hold. It puts tasks, moves and inspects them, leases them
 * to workers, starts worker loops, and hands out typed handles on one queue (queue.ts). Each
 * method checks its arguments fully before any I/O.
 *
 * One concept over 300 lines: the Scheduler object, its documented interface (most of the file) and
 * the factory that binds each method to the module that does the work.
 */
import { checkAccess } from '../redis/access';
import * as admin from '../features/admin';
import type { ListOptions, PreviewListOptions, PreviewPage, QueueStats, TaskPage } from '../features/admin';
import { checkServer } from '../redis/checks';
import { clean, obliterate, type CleanOptions, type ObliterateOptions } from '../features/clean';
import { connect, type ClientOptions, type RedisLike } from '../redis/connection';
import { bindContext, Context, newWorkerId } from '../redis/context';
import * as dead from '../life/dead';
import type { DeadTask, ListDeadOptions } from '../life/dead';
import { ClosedError, ValidationError } from '../domain/errors';
import { concurrencyLimit, groupLimits, limitConcurrency, limitGroups, type ConcurrencyLimit, type GroupLimitOptions, type GroupLimits } from '../features/groups';
import { events, throughput, type EventsOptions, type QueueEvent, type Throughput, type ThroughputOptions } from '../features/events';
import { createHash128, type HashFunction } from '../domain/hashing';
import * as lease from '../life/lease';
import type { ClaimOptions, FailOptions } from '../life/lease';
import { carry, dependencies, type Dependency } from '../features/deps';
import { checkLogger, errorFields, type Logger } from '../domain/log';
import { backoffQueue, limitRate, rateLimits, type RateLimitInput, type RateLimitOptions, type RateLimits } from '../features/rates';
import { observeClaims, registerMetrics, type MetricsOptions, type MetricsRegistry } from '../features/metrics';
import { changeOptions, dependenciesOptions, instantArg, parse, priorityArg, resultOptions, schedulerOptions, taskHash } from '../domain/options';
import { cancel, type Cancelled } from '../ops/cancel';
import { get } from '../ops/get';
import { priority as priorityOp, type PriorityChange } from '../ops/priority';
import type { RedriveRefusal } from '../ops/redrive';
import { reschedule } from '../ops/reschedule';
import type { Change } from '../redis/reply';
import { result, type ResultOptions, type TaskOutcome } from '../life/outcome';
import { progressOf } from '../life/progress';
import { migrateLayout } from '../redis/layout';
import { flushLogs, logsOf, readLogs, type LogLine } from '../life/logs';
import type { Json, JsonCompatible } from '../domain/payload';
import { flushPuts, putMany, putOne, type PutOptions } from '../life/put';
import { typedQueue, type Queue, type QueueName } from './queue';
import { listSchedules, Recurring, unschedule, type EveryOptions, type Schedule, type ScheduleInfo } from '../features/recurring';
import { urlProblem } from '../domain/redis-url';
import { Scripts } from '../redis/scripts';
import { sharded, type Sharded } from '../features/shards';
import { toTaskInfo, type PutResult, type Task, type TaskInfo, type TaskState } from '../domain/task';
import type { Span } from '../domain/time';
import { Worker, type WorkOptions } from '../life/worker';
import { handlerOf, type Handler, type Handlers } from '../life/route';
import { sandboxOf } from '../features/sandbox';

export interface SchedulerOptions {
  /** Redis URL. Default `process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'`. */
  url?: string;
  /**
   * Your own client, already connected; close() leaves it open. A node-redis 4, 5 or 6 client, or
   * a node-redis 4 cluster (docs/api.md#redis-clients). Not together with url, clientOptions or cluster.
   */
  client?: RedisLike;
  /**
   * node-redis's own client options (`createClient(options)`: TLS, username, password, database,
   * socket timeouts), for the client docket opens; with `cluster`, the options of every node.
   * `url` may be given here or beside it, not both. docket keeps its own `socket.reconnectStrategy`.
   */
  clientOptions?: ClientOptions;
  /**
   * URLs of some nodes of a Redis Cluster (`['redis://10.0.0.1:7000', ...]`): docket opens a
   * node-redis cluster client from them, and close() closes it. Not together with url or client.
   */
  cluster?: string[];
  /** Key prefix. Default `'docket'`. */
  prefix?: string;
  /** Queue used when a call names none. Default `'default'`. */
  queue?: string;
  /** Largest canonical payload accepted, in bytes. Default 512 KiB. */
  maxPayloadBytes?: number;
  /** Largest result or progress value a handler may report, in bytes of JSON. Default 64 KiB. */
  maxResultBytes?: number;
  /** Most log lines kept per task (`task.log`); the oldest go first. Default 100. */
  logMaxLines?: number;
  /** Most bytes of log kept per task (each line's JSON plus 15 bytes); the oldest lines go first. Default 64 KiB. */
  logMaxBytes?: number;
  /** Dead tasks kept per queue; the oldest beyond this are purged. Default 10,000. */
  deadMaxCount?: number;
  /** How long a dead task is kept. Default 7 days. */
  deadMaxAge?: Span;
  /**
   * Deadline of every Redis call, in ms or a Duration. A write that misses it rejects with a
   * TimeoutError: its outcome is unknown, and retrying it is safe. Default 5 s.
   */
  commandTimeout?: Span;
  /**
   * Receives start-up warnings about Redis settings that weaken docket's guarantees
   * (maxmemory-policy other than noeviction, AOF off). Default: process.emitWarning.
   */
  onWarning?: (message: string) => void;
  /** Replaces the 128-bit identity hash. For tests (a weak hash forces collisions). */
  hash?: HashFunction;
  /** Entries kept in each queue's events stream (trimmed approximately); 0 for none. Default 10,000. */
  eventsMaxLength?: number;
  /** A logger with pino's call shape (`warn(obj, msg)`); pino itself fits. Default: log nothing. */
  logger?: Logger;
}

export interface QueueOption {
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

export type { Change, Refusal } from '../redis/reply';
export type { RedriveRefusal } from '../ops/redrive';

/** A change as its caller asked for it: a Change with `explain`, else whether it was done. */
function answer(change: Change | PriorityChange | Cancelled, explain: boolean): boolean | Change {
  if (!explain) return change.done;
  if (!change.done) return change.worker === undefined ? { done: false, reason: change.reason } : { done: false, reason: change.reason, worker: change.worker };
  return { done: true };
}

export interface DependenciesOptions {
  queue?: string;
  /** Read only the first this many (in put order), each one more outcome read. Default: all. */
  limit?: number;
}

export interface Scheduler {
  put(data: Json, options?: PutOptions): Promise<PutResult>;
  /**
   * Puts data of any type that is JSON as far as TypeScript can tell (JsonCompatible), an
   * `interface` included, which `Json` refuses for want of an index signature. The first form
   * stays for code generic over `Json`, which the check cannot see into.
   */
  put<T>(data: T & JsonCompatible<T>, options?: PutOptions): Promise<PutResult>;
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
  reschedule(hash: string, at: Date | number, options?: ChangeOptions): Promise<boolean>;
  /**
   * Moves a pending task to another priority level, given as put's `priority` (1-9, true = 9,
   * false or 0 = normal). A ready task goes to the tail of the new level (FIFO within it); a
   * delayed or waiting one takes the level when it becomes ready; a task of a fair group changes
   * lane in its group only when the level crosses 0. True when changed or already at that level;
   * false for an active, dead or unknown task. With `explain: true`, resolves to a {@link Change}.
   */
  changePriority(hash: string, priority: boolean | number, options: Explained): Promise<Change>;
  changePriority(hash: string, priority: boolean | number, options?: ChangeOptions): Promise<boolean>;
  /**
   * Deletes a delayed, ready, waiting or dead task. True when deleted; false for an active or
   * unknown task. With `explain: true`, resolves to a {@link Change}.
   */
  cancel(hash: string, options: Explained): Promise<Change>;
  cancel(hash: string, options?: ChangeOptions): Promise<boolean>;
  get<T = Json>(hash: string, options?: QueueOption): Promise<TaskInfo<T> | null>;
  claim<T = Json>(options?: ClaimOptions): Promise<Task<T> | null>;
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
  fail(task: Task<unknown>, options?: FailOptions): Promise<'retry' | 'dead' | 'merged' | 'lost'>;
  extend(task: Task<unknown>, by: Span): Promise<boolean>;
  /**
   * Runs a handler module (a path, relative to the working directory, or a file URL; its default
   * export or module.exports: a handler, or handlers by name) in worker threads; see sandbox.ts.
   */
  work(module: string | URL, options: WorkOptions & { sandbox: true }): Worker;
  /** Runs each task by the handler of its name (`'*'` for any other); see Handlers. */
  work<T = Json>(handlers: Handlers<T>, options?: WorkOptions): Worker;
  work<T = Json>(handler: Handler<T>, options?: WorkOptions): Worker;
  stats(options?: QueueOption): Promise<QueueStats>;
  /** Stops claims on a queue for every worker (puts are still accepted); false if it was paused. */
  pause(options?: QueueOption): Promise<boolean>;
  /** @deprecated The queue as a string: pass `{ queue }`, as every other method takes it. */
  pause(queue: string): Promise<boolean>;
  /** Lets workers claim from a paused queue again; false if it was not paused. */
  resume(options?: QueueOption): Promise<boolean>;
  /** @deprecated The queue as a string: pass `{ queue }`, as every other method takes it. */
  resume(queue: string): Promise<boolean>;
  /**
   * A page of a queue's tasks in one state, in the order they will leave it. With `preview`, each
   * task carries the first `preview` bytes of its payload and its size instead of its data.
   */
  list(state: TaskState, options: PreviewListOptions): Promise<PreviewPage>;
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
  /** A queue's outcomes per time bucket over a recent window, counted from its events stream. */
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
  redrive(hash: string, options?: ChangeOptions): Promise<boolean>;
  /** Sends every dead task of a queue back to ready; returns how many. */
  redriveAll(options?: QueueOption): Promise<number>;
  /** Deletes every dead task of a queue; returns how many. */
  purgeDead(options?: QueueOption): Promise<number>;
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
  /** Deletes a schedule everywhere and cancels its pending occurrence; false when there was none. */
  unschedule(name: string, options?: QueueOption): Promise<boolean>;
  /** The schedules of a queue, by name. */
  listSchedules<T = Json>(options?: QueueOption): Promise<ScheduleInfo<T>[]>;
  /**
   * At most `limit` tasks of each group of a queue (or of `options.group` only) active at once,
   * across every worker; null removes the limit. A group's own limit wins over the queue's.
   */
  limitGroups(limit: number | null, options?: GroupLimitOptions): Promise<void>;
  /** A queue's group limits, and each group's active tasks. */
  groupLimits(options?: QueueOption): Promise<GroupLimits>;
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
  close(): Promise<void>;
}

/** Connects to Redis and readies the hash function; both start asynchronously. */
export async function createScheduler(options: SchedulerOptions = {}): Promise<Scheduler> {
  const { logger, ...rest } = options;
  const log = checkLogger(logger, 'options.logger');
  const { hash, onWarning, ...parsed } = parse(schedulerOptions, rest, 'options');
  const { client, clientOptions, cluster } = parsed;
  const url = parsed.url ?? (clientOptions?.url === undefined ? envUrl() : undefined) ?? 'redis://127.0.0.1:6379';
  const conn = await connect({ url, cluster, client, clientOptions });
  const warn = onWarning ?? ((message: string) => process.emitWarning(message, 'DocketWarning'));
  try {
    await checkServer(conn, `${parsed.prefix}:{${parsed.queue}}`, warn, parsed.commandTimeout);
    const ctx = new Context(conn, new Scripts(conn, parsed.commandTimeout), parsed, hash ?? (await createHash128()), log);
    ctx.unblock = (await checkAccess(ctx, warn)).unblock;
    await migrateLayout(ctx);
    return new DocketScheduler(ctx, warn);
  } catch (err) {
    // A scheduler that cannot start leaves no connection behind.
    await conn.close();
    throw err;
  }
}

/** REDIS_URL, checked as options.url is. */
function envUrl(): string | undefined {
  const url = process.env.REDIS_URL;
  if (url === undefined || url === '') return undefined;
  const problem = urlProblem(url);
  if (problem) throw new ValidationError('REDIS_URL', problem);
  return url;
}

class DocketScheduler implements Scheduler {
  private closed = false;
  private readonly workers = new Set<Worker>();
  /** Schedules this process keeps going, by queue and name. */
  private readonly recurring = new Map<string, Recurring>();
  /** Names this process as a lease holder for direct claim() calls. */
  private readonly workerId = newWorkerId();
  /** Aborted by close(): ends every events() iterator. */
  private readonly closing = new AbortController();

  constructor(
    private readonly ctx: Context,
    private readonly warn: (message: string) => void,
  ) {
    bindContext(this, ctx);
  }

  // The payload is checked as JSON at run time (canonicalJson), whatever its type says.
  put(data: Json, options?: PutOptions): Promise<PutResult>;
  put<T>(data: T & JsonCompatible<T>, options?: PutOptions): Promise<PutResult>;
  put(data: unknown, options?: PutOptions): Promise<PutResult> {
    return this.open(async () => putOne(this.ctx, data as Json, options));
  }

  putMany(items: Array<{ data: Json; options?: PutOptions }>): Promise<PutResult[]>;
  putMany<T>(items: Array<{ data: T & JsonCompatible<T>; options?: PutOptions }>): Promise<PutResult[]>;
  putMany(items: Array<{ data: unknown; options?: PutOptions }>): Promise<PutResult[]> {
    return this.open(() => putMany(this.ctx, items as Array<{ data: Json; options?: PutOptions }>));
  }

  queue<T = Json, R = Json>(name: QueueName<T, R>): Queue<T, R> {
    if (this.closed) throw new ClosedError('scheduler');
    return typedQueue<T, R>(this, this.ctx.checkQueue(name, 'name'));
  }

  reschedule(hash: string, at: Date | number, options: Explained): Promise<Change>;
  reschedule(hash: string, at: Date | number, options?: ChangeOptions): Promise<boolean>;
  reschedule(hash: string, at: Date | number, options?: ChangeOptions): Promise<boolean | Change> {
    return this.open(async () => {
      const { queue, id, explain } = this.change(hash, options);
      const ms = parse(instantArg, at, 'at');
      return answer(await this.ctx.scripts.run(reschedule, this.ctx.keys(queue), { id, at: ms }), explain);
    });
  }

  changePriority(hash: string, priority: boolean | number, options: Explained): Promise<Change>;
  changePriority(hash: string, priority: boolean | number, options?: ChangeOptions): Promise<boolean>;
  changePriority(hash: string, priority: boolean | number, options?: ChangeOptions): Promise<boolean | Change> {
    return this.open(async () => {
      const { queue, id, explain } = this.change(hash, options);
      const level = parse(priorityArg, priority, 'priority');
      // Done: moved, kept (only its record changed) or the same level already.
      return answer(await this.ctx.scripts.run(priorityOp, this.ctx.keys(queue), { id, level }), explain);
    });
  }

  cancel(hash: string, options: Explained): Promise<Change>;
  cancel(hash: string, options?: ChangeOptions): Promise<boolean>;
  cancel(hash: string, options?: ChangeOptions): Promise<boolean | Change> {
    return this.open(async () => {
      const { queue, id, explain } = this.change(hash, options);
      const change = await this.ctx.scripts.run(cancel, this.ctx.keys(queue), { id, events: this.ctx.options.eventsMaxLength });
      // Tasks of other queues wait on it, or it waited on some: they learn now (else at a claim).
      if (change.done && change.outboxed)
        await carry(this.ctx, queue).catch((err: unknown) => this.ctx.log.warn({ queue, ...errorFields(err) }, 'docket: could not carry dependency steps yet'));
      return answer(change, explain);
    });
  }

  get<T = Json>(hash: string, options?: QueueOption): Promise<TaskInfo<T> | null> {
    return this.open(async () => {
      const { queue, id } = this.target(hash, options);
      const record = await this.ctx.scripts.run(get, this.ctx.keys(queue), { id });
      // A missing payload (a damaged record) reads as null, as it always has.
      return record ? toTaskInfo<T>(queue, id, record) : null;
    });
  }

  async claim<T = Json>(options?: ClaimOptions): Promise<Task<T> | null> {
    const [task] = await this.claimMany<T>(1, options);
    return task ?? null;
  }

  claimMany<T = Json>(count: number, options?: ClaimOptions): Promise<Task<T>[]> {
    return this.open(async () => {
      const { queue, lease: ms } = lease.parseClaim(this.ctx, options, count);
      const batch = await lease.claimBatch<T>(this.ctx, queue, count, ms, this.workerId);
      observeClaims(this.ctx, queue, batch.now, batch.tasks);
      return batch.tasks;
    });
  }

  ack(task: Task<unknown>, result?: Json): Promise<boolean> {
    return this.open(async () => {
      // Lines it logged go first: after the ack they would be refused as stale.
      await flushLogs(task);
      return lease.ack(this.ctx, task, result);
    });
  }

  progress(task: Task<unknown>, value: Json): Promise<boolean> {
    return this.open(() => {
      lease.checkTask(this.ctx, task);
      return progressOf(this.ctx, task).report(value);
    });
  }

  log(task: Task<unknown>, line: string): Promise<boolean> {
    return this.open(() => {
      lease.checkTask(this.ctx, task);
      return logsOf(this.ctx, task).write(line);
    });
  }

  logs(hash: string, options?: QueueOption): Promise<LogLine[]> {
    return this.open(async () => {
      const { queue, id } = this.target(hash, options);
      return readLogs(this.ctx, queue, id);
    });
  }

  dependencies(hash: string, options?: DependenciesOptions): Promise<Dependency[]> {
    return this.open(async () => {
      const { limit, ...rest } = parse(dependenciesOptions, options ?? {}, 'options');
      const { queue, id } = this.target(hash, rest);
      return dependencies(this.ctx, queue, id, limit);
    });
  }

  result<R = Json>(hash: string, options?: ResultOptions): Promise<TaskOutcome<R> | null> {
    return this.open(async () => {
      const { id } = this.target(hash, undefined);
      const o = parse(resultOptions, options ?? {}, 'options');
      const queue = o.queue ?? this.ctx.options.queue;
      return (await result(this.ctx, queue, id, o.wait, this.closing.signal)) as TaskOutcome<R> | null;
    });
  }

  fail(task: Task<unknown>, options?: FailOptions): Promise<'retry' | 'dead' | 'merged' | 'lost'> {
    return this.open(async () => {
      await flushLogs(task);
      return lease.fail(this.ctx, task, options);
    });
  }

  extend(task: Task<unknown>, by: Span): Promise<boolean> {
    return this.open(() => lease.extend(this.ctx, task, by));
  }

  work<T = Json>(handler: Handler<T> | Handlers<T> | string | URL, options?: WorkOptions): Worker {
    if (this.closed) throw new ClosedError('scheduler');
    const sandbox = sandboxOf(handler, options, this.ctx.options.maxResultBytes);
    const run = sandbox?.handler ?? (handlerOf(handler as Handler<T> | Handlers<T>) as Handler<unknown>);
    const worker = new Worker(this.ctx, run, options, sandbox ?? undefined);
    this.workers.add(worker);
    worker.closed.then(() => this.workers.delete(worker));
    return worker;
  }

  stats(options?: QueueOption): Promise<QueueStats> {
    return this.open(() => admin.stats(this.ctx, this.ctx.queueOf(options)));
  }

  pause(options?: QueueOption | string): Promise<boolean> {
    return this.open(() => admin.setPaused(this.ctx, this.queueIn('pause', options), true));
  }

  resume(options?: QueueOption | string): Promise<boolean> {
    return this.open(() => admin.setPaused(this.ctx, this.queueIn('resume', options), false));
  }

  list(state: TaskState, options: PreviewListOptions): Promise<PreviewPage>;
  list<T = Json>(state: TaskState, options?: ListOptions): Promise<TaskPage<T>>;
  list<T = Json>(state: TaskState, options?: ListOptions | PreviewListOptions): Promise<TaskPage<T> | PreviewPage> {
    return this.open(() => admin.list<T>(this.ctx, state, options));
  }

  queues(): Promise<string[]> {
    return this.open(() => admin.queues(this.ctx));
  }

  time(): Promise<number> {
    return this.open(() => admin.serverTime(this.ctx));
  }

  events(first?: (EventsOptions & QueueOption) | string, second?: EventsOptions): AsyncIterableIterator<QueueEvent> {
    if (this.closed) throw new ClosedError('scheduler');
    const [queue, options] = this.queueAnd('events', first, second);
    return events(this.ctx, queue, options, this.closing.signal);
  }

  throughput(first?: (ThroughputOptions & QueueOption) | string, second?: ThroughputOptions): Promise<Throughput> {
    return this.open(async () => {
      const [queue, options] = this.queueAnd('throughput', first, second);
      return throughput(this.ctx, queue, options);
    });
  }

  registerMetrics(registry: MetricsRegistry, options?: MetricsOptions): void {
    registerMetrics(this, registry, options, this.ctx);
  }

  listDead<T = Json>(options?: ListDeadOptions): Promise<DeadTask<T>[]> {
    return this.open(() => dead.listDead<T>(this.ctx, options));
  }

  redrive(hash: string, options: Explained): Promise<Change<RedriveRefusal>>;
  redrive(hash: string, options?: ChangeOptions): Promise<boolean>;
  redrive(hash: string, options?: ChangeOptions): Promise<boolean | Change<RedriveRefusal>> {
    return this.open(async () => {
      const { queue, id, explain } = this.change(hash, options);
      const change = await dead.redriveOne(this.ctx, queue, id);
      return explain ? change : change.done;
    });
  }

  redriveAll(options?: QueueOption): Promise<number> {
    return this.open(() => dead.redrive(this.ctx, this.ctx.queueOf(options)));
  }

  purgeDead(options?: QueueOption): Promise<number> {
    return this.open(() => dead.purgeDead(this.ctx, this.ctx.queueOf(options)));
  }

  clean(options: CleanOptions): Promise<number> {
    return this.open(() => clean(this.ctx, options));
  }

  obliterate(options?: ObliterateOptions): Promise<void> {
    return this.open(() => obliterate(this.ctx, options));
  }

  every(name: string, schedule: Schedule, data: Json, options?: EveryOptions): Promise<void>;
  every<T>(name: string, schedule: Schedule, data: T & JsonCompatible<T>, options?: EveryOptions): Promise<void>;
  every(name: string, schedule: Schedule, data: unknown, options?: EveryOptions): Promise<void> {
    return this.open(async () => {
      // Checked as JSON at run time, as put's payload is.
      const recurring = Recurring.prepare(this.ctx, name, schedule, data as Json, options);
      const id = `${recurring.queue}\u0000${recurring.name}`;
      // Declared again in this process: the new declaration replaces the old one's loop.
      this.recurring.get(id)?.stop();
      this.recurring.set(id, recurring);
      await recurring.start();
    });
  }

  unschedule(name: string, options?: QueueOption): Promise<boolean> {
    return this.open(async () => {
      const queue = this.ctx.queueOf(options);
      const existed = await unschedule(this.ctx, queue, name);
      const id = `${queue}\u0000${name}`;
      this.recurring.get(id)?.stop();
      this.recurring.delete(id);
      return existed;
    });
  }

  limitGroups(limit: number | null, options?: GroupLimitOptions): Promise<void> {
    return this.open(() => limitGroups(this.ctx, limit, options));
  }

  groupLimits(options?: QueueOption): Promise<GroupLimits> {
    return this.open(() => groupLimits(this.ctx, options));
  }

  limitConcurrency(limit: number | null, options?: QueueOption): Promise<void> {
    return this.open(() => limitConcurrency(this.ctx, limit, options));
  }

  concurrencyLimit(options?: QueueOption): Promise<ConcurrencyLimit> {
    return this.open(() => concurrencyLimit(this.ctx, options));
  }

  limitRate(limit: RateLimitInput): Promise<void>;
  limitRate(limit: null, options?: RateLimitOptions): Promise<void>;
  limitRate(limit: RateLimitInput | null, options?: RateLimitOptions): Promise<void> {
    return this.open(() => limitRate(this.ctx, limit, options));
  }

  rateLimits(options?: QueueOption): Promise<RateLimits> {
    return this.open(() => rateLimits(this.ctx, options));
  }

  backoffQueue(queue: string, span: Span): Promise<number> {
    return this.open(() => backoffQueue(this.ctx, queue, span));
  }

  sharded(name: string, count: number): Sharded {
    if (this.closed) throw new ClosedError('scheduler');
    return sharded(this.ctx, this, name, count);
  }

  listSchedules<T = Json>(options?: QueueOption): Promise<ScheduleInfo<T>[]> {
    return this.open(() => listSchedules<T>(this.ctx, this.ctx.queueOf(options)));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    for (const recurring of this.recurring.values()) recurring.stop();
    await Promise.all([...this.workers].map((w) => w.close()));
    await flushPuts(this.ctx);
    await this.ctx.conn.close();
  }

  /**
   * Runs `fn` unless the scheduler is closed. Every rejection is a DocketError: Redis errors are
   * mapped (fromRedisError), a caller's hash function that throws is a HashFunctionError
   * (hashing.ts), and a record in Redis that is not JSON an UnreadableRecordError (parseRecord).
   */
  private async open<R>(fn: () => Promise<R>): Promise<R> {
    if (this.closed) throw new ClosedError('scheduler');
    return fn();
  }

  /**
   * The queue of a method that took it as a string before 0.2 and takes `{ queue }` now: a string
   * still works, with a deprecation warning once per method.
   */
  private queueIn(method: string, options: unknown): string {
    if (typeof options !== 'string') return this.ctx.queueOf(options);
    this.deprecated(method);
    return this.ctx.checkQueue(options, 'queue');
  }

  /**
   * events() and throughput(): `({ queue, ...options })`, or the old `(queue, options)`. The
   * queue is split off here; the rest is checked by the method's own schema as before.
   */
  private queueAnd<O extends object>(method: string, first: unknown, second: O | undefined): [string, O | undefined] {
    if (typeof first === 'string' || (first === undefined && second !== undefined)) {
      this.deprecated(method);
      return [first === undefined ? this.ctx.options.queue : this.ctx.checkQueue(first, 'queue'), second];
    }
    if (second !== undefined) throw new ValidationError('options', `${method}() takes one options object ({ queue, ... }); got a second argument`);
    if (first === null || typeof first !== 'object' || Array.isArray(first)) {
      if (first === undefined) return [this.ctx.options.queue, undefined];
      throw new ValidationError('options', 'expected an object');
    }
    const { queue, ...rest } = first as { queue?: unknown };
    return [this.ctx.queueOf({ queue }), rest as O];
  }

  private readonly warned = new Set<string>();
  private deprecated(method: string): void {
    if (this.warned.has(method)) return;
    this.warned.add(method);
    this.warn(`docket: ${method}('queue') is deprecated and will go in 1.0: pass { queue: 'queue' }, as every other method takes it`);
  }

  /** The task a change names, and whether its caller asked for the reason of a refusal. */
  private change(hash: unknown, options: unknown): { queue: string; id: string; explain: boolean } {
    const { explain, ...rest } = parse(changeOptions, options ?? {}, 'options');
    return { ...this.target(hash, rest), explain: explain === true };
  }

  private target(hash: unknown, options: unknown): { queue: string; id: string } {
    return { queue: this.ctx.queueOf(options), id: parse(taskHash, hash, 'hash') };
  }
}
