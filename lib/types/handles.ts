/**
 * The handles a scheduler hands out: a typed handle on one queue (`scheduler.queue<T, R>(name)`,
 * made by lib/surfaces/queue.ts) and a hot queue split into shard queues (`scheduler.sharded()`,
 * made by lib/features/shards.ts).
 */
import type { EventsOptions, QueueEvent } from './events';
import type { Json, JsonCompatible } from './json';
import type { GroupLimitOptions, GroupLimits, OrderGroupsOptions } from './limits';
import type { ResultOptions, TaskOutcome } from './outcome';
import type { PutOptions, PutResult } from './put';
import type { QueueStats } from './queues';
import type { TaskInfo } from './task';
import type { Span } from './time';
import type { BatchHandler, BatchOptions, BatchWorker, Handler, Handlers, WorkOptions, Worker } from './work';
/**
 * The name argument of `queue<T, R>(name)`: a string when `T` and `R` are JSON (see
 * JsonCompatible), else a type no string fits, so that `queue<{ send(): void }>('email')` fails to
 * compile where the handle is made, not at its first put. (A constraint `T extends
 * JsonCompatible<T>` would be circular, which TypeScript refuses.)
 */
export type QueueName<T, R = Json> = [T] extends [JsonCompatible<T>]
  ? [R] extends [JsonCompatible<R>]
    ? string
    : {
        /** Not a real property: its name is the compile error a result type that is not JSON gets. */
        readonly 'docket: the result type is not JSON (see JsonCompatible)': R;
      }
  : {
      /** Not a real property: its name is the compile error a payload type that is not JSON gets. */
      readonly 'docket: the payload type is not JSON (see JsonCompatible)': T;
    };

/**
 * One queue of a scheduler, with the type `T` of its payloads and `R` of its handlers' results;
 * made by `scheduler.queue<T, R>(name)`.
 */
export interface Queue<T = Json, R = Json> {
  /** The queue's name, as given to `queue()`. */
  readonly name: string;
  /** Puts a task into this queue (see Scheduler.put); `options.queue`, when given, must be this queue. */
  put(data: T, options?: PutOptions): Promise<PutResult>;
  /** Puts many tasks into this queue (see Scheduler.putMany); results in the order of `items`. */
  putMany(items: Array<{ data: T; options?: PutOptions }>): Promise<PutResult[]>;
  /** Runs a handler module in worker threads on this queue (see Scheduler.work); its types are not checked. */
  work(module: string | URL, options: WorkOptions & { sandbox: true }): Worker;
  /** Runs each task of this queue by the handler of its name (`'*'` for any other). */
  work(handlers: Handlers<T, R>, options?: WorkOptions): Worker;
  /** Runs the tasks of this queue through `handler`, whose result is an `R` (see Scheduler.work). */
  work(handler: Handler<T, R>, options?: WorkOptions): Worker;
  /** Runs the tasks of this queue in batches through `handler`, whose results are `R`s (see Scheduler.workBatch). */
  workBatch(handler: BatchHandler<T, R>, options?: BatchOptions): BatchWorker;
  /** A task of this queue and its state, or null (see Scheduler.get). */
  get(hash: string, options?: { queue?: string }): Promise<TaskInfo<T> | null>;
  /** What docket knows of a task of this queue, or null (see Scheduler.result); a done task's result is an `R`. */
  result<Result = R>(hash: string, options?: ResultOptions): Promise<TaskOutcome<Result> | null>;
  /** The outcomes of this queue's tasks as they happen (see Scheduler.events). */
  events(options?: EventsOptions & { queue?: string }): AsyncIterableIterator<QueueEvent>;
  /** Makes this queue's fair groups run in order, one task at a time, or not (see Scheduler.orderGroups). */
  orderGroups(on: boolean, options?: OrderGroupsOptions): Promise<void>;
}

/** A hot queue split into shard queues, as {@link Scheduler.sharded} returns it: puts spread over the shards, workers work them all. */
export interface Sharded {
  /** The shard queues, `name:0` ... `name:<count-1>`. */
  readonly queues: readonly string[];
  /** Puts to the shard the task's identity (payload, or `key`) hashes to. */
  put(data: Json, options?: Omit<PutOptions, 'queue'>): Promise<PutResult>;
  /** The same, for data typed by an `interface` (as Scheduler.put takes it: lib/domain/payload.ts, JsonCompatible). */
  put<T>(data: T & JsonCompatible<T>, options?: Omit<PutOptions, 'queue'>): Promise<PutResult>;
  /** Puts many, one putMany per shard; results in the order of `items`. */
  putMany(items: Array<{ data: Json; options?: Omit<PutOptions, 'queue'> }>): Promise<PutResult[]>;
  /** The same, for data typed by an `interface`, as put's second form. */
  putMany<T>(items: Array<{ data: T & JsonCompatible<T>; options?: Omit<PutOptions, 'queue'> }>): Promise<PutResult[]>;
  /** The queue a task with this data (and key) goes to. */
  shardOf(data: Json, key?: string): string;
  /**
   * Starts one worker per shard, each with the options given (so `concurrency` is per shard); with
   * `sandbox: true`, `handler` is a module path or file URL and each worker has threads of its own.
   */
  work<T = Json>(handler: Handler<T> | Handlers<T> | string | URL, options?: Omit<WorkOptions, 'queue'>): ShardedWorker;
  /** A task's outcome (see Scheduler.result), read from the shard its hash names. */
  result<R = Json>(hash: string, options?: Omit<ResultOptions, 'queue'>): Promise<TaskOutcome<R> | null>;
  /** The shards' counts, added up. */
  stats(): Promise<QueueStats>;
  /**
   * Sets (or with null removes) a group limit on every shard, as Scheduler.limitGroups does on one
   * queue. Tasks go to shards by their identity, not their group, so a group's tasks spread over
   * the shards and the limit holds per shard: at most `limit` active tasks of a group in each,
   * `limit × count` in all. (Routing by group instead would split de-duplication by group.)
   */
  limitGroups(limit: number | null, options?: Omit<GroupLimitOptions, 'queue'>): Promise<void>;
  /** The shards' group limits (the same on each when set through limitGroups), with active tasks added up. */
  groupLimits(): Promise<GroupLimits>;
}

/** The workers of {@link Sharded.work}: one per shard, closed together. */
export interface ShardedWorker {
  /** One worker per shard, in shard order. */
  readonly workers: readonly Worker[];
  /** Closes every shard's worker (see Worker.close). */
  close(options?: { timeout?: Span }): Promise<void>;
}
