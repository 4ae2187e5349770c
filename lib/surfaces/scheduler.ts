/**
 * The scheduler: the one object callers hold. It puts tasks, moves and inspects them, leases them
 * to workers, starts worker loops, and hands out typed handles on one queue (queue.ts). Each
 * method checks its arguments fully before any I/O.
 *
 * This module binds each method of the Scheduler (its contract and docs: scheduler-api.ts) to the
 * module that does the work, one call each, behind one check that the scheduler is open. What a
 * method needs beyond that call lives with its kind: starting (start.ts), the calls on one task
 * by its hash (task-calls.ts), a caller's own claims (claims.ts), what the scheduler keeps going
 * (running.ts), the call forms of before 0.2 (deprecated.ts).
 *
 * One concept over 300 lines: the binding of the whole public API, three lines a method; splitting
 * it by kind of method would scatter the one table a reader looks a method up in.
 */
import * as admin from '../features/admin';
import type { ListOptions, PreviewListOptions, PreviewPage, QueueStats, TaskPage } from '../features/admin';
import { clean, obliterate, type CleanOptions, type ObliterateOptions } from '../features/clean';
import { bindContext, type Context, newWorkerId } from '../redis/context';
import * as dead from '../life/dead';
import type { DeadTask, ListDeadOptions } from '../life/dead';
import * as history from '../life/history';
import { ClosedError } from '../domain/errors';
import {
  concurrencyLimit,
  groupLimits,
  limitConcurrency,
  limitGroups,
  orderGroups,
  pauseGroup,
  type ConcurrencyLimit,
  type GroupLimitOptions,
  type GroupLimits,
  type OrderGroupsOptions,
} from '../features/groups';
import { events, throughput, type EventsOptions, type QueueEvent, type Throughput, type ThroughputOptions } from '../features/events';
import { extend, snooze, type ClaimOptions, type FailOptions } from '../life/lease';
import type { Dependency } from '../features/deps';
import { backoffQueue, limitRate, rateLimits, type RateLimitInput, type RateLimitOptions, type RateLimits } from '../features/rates';
import { registerMetrics, type MetricsOptions, type MetricsRegistry } from '../features/metrics';
import type { RedriveRefusal } from '../ops/redrive';
import type { Change } from '../redis/reply';
import type { ResultOptions, TaskOutcome } from '../life/outcome';
import type { LogLine } from '../life/logs';
import type { Json, JsonCompatible } from '../domain/payload';
import { flushPuts, putMany, putOne, type PutOptions } from '../life/put';
import { typedQueue, type Queue, type QueueName } from './queue';
import { listSchedules, type EveryOptions, type Schedule, type ScheduleInfo } from '../features/recurring';
import * as schedules from '../features/schedules';
import { Runners, type ScheduleOptions } from '../features/schedules';
import { sharded, type Sharded } from '../features/shards';
import type { PutResult, Task, TaskInfo, TaskState } from '../domain/task';
import type { Span } from '../domain/time';
import type { Worker, WorkOptions } from '../life/worker';
import { workBatch, type BatchWorker, type BatchHandler, type BatchOptions } from '../life/worker';
import type { Handler, Handlers } from '../life/route';
import * as claims from './claims';
import { Deprecated } from './deprecated';
import { Running } from './running';
import type { CancelOptions, Cancellation, ChangeOptions, DependenciesOptions, Explained, PauseOptions, QueueOption, Scheduler } from './scheduler-api';
import { start, type SchedulerOptions } from './start';
import * as tasks from './task-calls';

export type { CancelOptions, Cancellation, Change, ChangeOptions, DependenciesOptions, Explained, PauseOptions, QueueOption, RedriveRefusal, Refusal, Scheduler } from './scheduler-api';
export type { SchedulerOptions } from './start';

/** Connects to Redis and readies the hash function; both start asynchronously. */
export async function createScheduler(options: SchedulerOptions = {}): Promise<Scheduler> {
  return start(options, (ctx, warn) => new DocketScheduler(ctx, warn));
}

class DocketScheduler implements Scheduler {
  private closed = false;
  /** The workers and schedules this process keeps going until close(). */
  private readonly running: Running;
  /** The batch workers (workBatch()) this process keeps going until close(). */
  private readonly batches = new Set<BatchWorker>();
  /** Stored schedules kept going by batch workers, as every work() loop keeps its queue's. */
  private readonly batchSchedules: Runners;
  /** Names this process as a lease holder for direct claim() calls. */
  private readonly workerId = newWorkerId();
  /** Aborted by close(): ends every events() iterator. */
  private readonly closing = new AbortController();
  private readonly deprecated: Deprecated;

  constructor(
    private readonly ctx: Context,
    warn: (message: string) => void,
  ) {
    bindContext(this, ctx);
    this.running = new Running(ctx);
    this.batchSchedules = new Runners(ctx);
    this.deprecated = new Deprecated(ctx, warn);
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
    return this.open(() => tasks.reschedule(this.ctx, hash, at, options));
  }

  changePriority(hash: string, priority: boolean | number, options: Explained): Promise<Change>;
  changePriority(hash: string, priority: boolean | number, options?: ChangeOptions): Promise<boolean>;
  changePriority(hash: string, priority: boolean | number, options?: ChangeOptions): Promise<boolean | Change> {
    return this.open(() => tasks.changePriority(this.ctx, hash, priority, options));
  }

  cancel(hash: string, options: CancelOptions & Explained): Promise<Cancellation>;
  cancel(hash: string, options?: CancelOptions): Promise<boolean>;
  cancel(hash: string, options?: CancelOptions): Promise<boolean | Cancellation> {
    return this.open(() => tasks.cancel(this.ctx, hash, options));
  }

  get<T = Json>(hash: string, options?: QueueOption): Promise<TaskInfo<T> | null> {
    return this.open(() => tasks.get<T>(this.ctx, hash, options));
  }

  async claim<T = Json>(options?: ClaimOptions): Promise<Task<T> | null> {
    const [task] = await this.claimMany<T>(1, options);
    return task ?? null;
  }

  claimMany<T = Json>(count: number, options?: ClaimOptions): Promise<Task<T>[]> {
    return this.open(() => claims.claimMany<T>(this.ctx, this.workerId, count, options));
  }

  ack(task: Task<unknown>, result?: Json): Promise<boolean> {
    return this.open(() => claims.ack(this.ctx, task, result));
  }

  progress(task: Task<unknown>, value: Json): Promise<boolean> {
    return this.open(() => claims.progress(this.ctx, task, value));
  }

  log(task: Task<unknown>, line: string): Promise<boolean> {
    return this.open(() => claims.log(this.ctx, task, line));
  }

  logs(hash: string, options?: QueueOption): Promise<LogLine[]> {
    return this.open(() => tasks.logs(this.ctx, hash, options));
  }

  dependencies(hash: string, options?: DependenciesOptions): Promise<Dependency[]> {
    return this.open(() => tasks.dependencies(this.ctx, hash, options));
  }

  result<R = Json>(hash: string, options?: ResultOptions): Promise<TaskOutcome<R> | null> {
    return this.open(() => tasks.result<R>(this.ctx, hash, options, this.closing.signal));
  }

  fail(task: Task<unknown>, options?: FailOptions): Promise<'retry' | 'dead' | 'merged' | 'lost'> {
    return this.open(() => claims.fail(this.ctx, task, options));
  }

  extend(task: Task<unknown>, by: Span): Promise<boolean> {
    return this.open(() => extend(this.ctx, task, by));
  }

  snooze(task: Task<unknown>, span: Span): Promise<boolean> {
    return this.open(() => snooze(this.ctx, task, span));
  }

  work<T = Json>(handler: Handler<T> | Handlers<T> | string | URL, options?: WorkOptions): Worker {
    if (this.closed) throw new ClosedError('scheduler');
    return this.running.work(handler, options);
  }

  workBatch<T = Json, R = Json>(handler: BatchHandler<T, R>, options?: BatchOptions): BatchWorker {
    if (this.closed) throw new ClosedError('scheduler');
    let poke = () => {};
    const worker = workBatch(this.ctx, handler as BatchHandler<unknown, unknown>, options, { schedules: () => poke() });
    this.batches.add(worker);
    const runner = this.batchSchedules.acquire(worker.queue);
    const release = runner.release;
    poke = runner.poke;
    void worker.closed.then(() => {
      this.batches.delete(worker);
      release();
    });
    return worker;
  }

  stats(options?: QueueOption): Promise<QueueStats> {
    return this.open(() => admin.stats(this.ctx, this.ctx.queueOf(options)));
  }

  pause(options?: PauseOptions | string): Promise<boolean> {
    return this.open(() => this.setPaused('pause', options, true));
  }

  resume(options?: PauseOptions | string): Promise<boolean> {
    return this.open(() => this.setPaused('resume', options, false));
  }

  /** A group's pause (`group` given), else the queue's; `group: undefined` means the queue. */
  private setPaused(method: string, options: PauseOptions | string | undefined, paused: boolean): Promise<boolean> {
    if (typeof options !== 'object' || options === null || !('group' in options)) return admin.setPaused(this.ctx, this.deprecated.queueIn(method, options), paused);
    const { group, ...rest } = options;
    return group === undefined ? admin.setPaused(this.ctx, this.ctx.queueOf(rest), paused) : pauseGroup(this.ctx, options, paused);
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
    const [queue, options] = this.deprecated.queueAnd('events', first, second);
    return events(this.ctx, queue, options, this.closing.signal);
  }

  throughput(first?: (ThroughputOptions & QueueOption) | string, second?: ThroughputOptions): Promise<Throughput> {
    return this.open(async () => {
      const [queue, options] = this.deprecated.queueAnd('throughput', first, second);
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
    return this.open(() => tasks.redrive(this.ctx, hash, options));
  }

  redriveAll(options?: QueueOption): Promise<number> {
    return this.open(() => dead.redrive(this.ctx, this.ctx.queueOf(options)));
  }

  purgeDead(options?: QueueOption): Promise<number> {
    return this.open(() => dead.purgeDead(this.ctx, this.ctx.queueOf(options)));
  }

  keep(options: history.KeepOptions): Promise<void> {
    return this.open(() => history.keep(this.ctx, options));
  }

  runAgain(hash: string, options?: QueueOption): Promise<PutResult | null> {
    return this.open(() => history.runAgain(this.ctx, hash, options));
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
    return this.open(() => this.running.every(name, schedule, data as Json, options));
  }

  schedule(name: string, schedule: Schedule, data: Json, options?: ScheduleOptions): Promise<void>;
  schedule<T>(name: string, schedule: Schedule, data: T & JsonCompatible<T>, options?: ScheduleOptions): Promise<void>;
  schedule(name: string, schedule: Schedule, data: unknown, options?: ScheduleOptions): Promise<void> {
    return this.open(() => schedules.storeSchedule(this.ctx, name, schedule, data, options));
  }

  unschedule(name: string, options?: QueueOption): Promise<boolean> {
    return this.open(() => this.running.unschedule(name, options));
  }

  pauseSchedule(name: string, options?: QueueOption): Promise<boolean> {
    return this.open(() => schedules.holdSchedule(this.ctx, this.ctx.queueOf(options), name, true));
  }

  resumeSchedule(name: string, options?: QueueOption): Promise<boolean> {
    return this.open(() => schedules.holdSchedule(this.ctx, this.ctx.queueOf(options), name, false));
  }

  runScheduleNow(name: string, options?: QueueOption): Promise<PutResult | null> {
    return this.open(() => schedules.runNow(this.ctx, this.ctx.queueOf(options), name));
  }

  limitGroups(limit: number | null, options?: GroupLimitOptions): Promise<void> {
    return this.open(() => limitGroups(this.ctx, limit, options));
  }

  groupLimits(options?: QueueOption): Promise<GroupLimits> {
    return this.open(() => groupLimits(this.ctx, options));
  }

  orderGroups(on: boolean, options?: OrderGroupsOptions): Promise<void> {
    return this.open(() => orderGroups(this.ctx, on, options));
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
    await Promise.all([this.running.stop(), ...[...this.batches].map((w) => w.close())]);
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
}
