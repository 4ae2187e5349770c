/**
 * A typed queue: `scheduler.queue<Mail>('email')` binds one queue's name and one payload type, so
 * that its put, putMany, work, get, result and events agree on both, as BullMQ's `Queue<Data>`
 * does; `queue<Mail, Sent>` binds the handlers' result type too, as BullMQ's
 * `Worker<Data, Result>`. Its calls are the scheduler's own with the queue filled in. A queue
 * given again in their options must be the same one; any other is a ValidationError naming the
 * field, since a handle that put into another queue would hand that queue tasks of a type its own
 * workers do not expect.
 */
import { unreadable, ValidationError } from '../domain/errors';
import { boundOptions, parse } from '../domain/options';
import type { EventsOptions, QueueEvent } from '../features/events';
import type { ResultOptions, TaskOutcome } from '../life/outcome';
import type { Json, JsonCompatible } from '../domain/payload';
import type { PutOptions } from '../life/put';
import type { Handler, Handlers } from '../life/route';
import type { PutResult, TaskInfo } from '../domain/task';
import type { Worker, WorkOptions } from '../life/worker';
import type { BatchHandler, BatchOptions, BatchWorker } from '../life/worker';
import type { OrderGroupsOptions } from '../features/groups';

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

/**
 * The scheduler's calls a Queue makes: the Scheduler itself, named by what is used of it so that
 * this module does not import scheduler.ts, which imports it.
 */
export interface QueueTarget {
  put(data: Json, options: PutOptions): Promise<PutResult>;
  putMany(items: Array<{ data: Json; options?: PutOptions }>): Promise<PutResult[]>;
  work(handler: Handler, options: WorkOptions): Worker;
  workBatch(handler: BatchHandler, options: BatchOptions): BatchWorker;
  get<T>(hash: string, options: { queue: string }): Promise<TaskInfo<T> | null>;
  result<R>(hash: string, options: ResultOptions): Promise<TaskOutcome<R> | null>;
  events(options: EventsOptions & { queue: string }): AsyncIterableIterator<QueueEvent>;
  orderGroups(on: boolean, options: OrderGroupsOptions & { queue: string }): Promise<void>;
}

/** The handle on queue `name` (already checked) of `scheduler`. */
export function typedQueue<T, R>(scheduler: QueueTarget, name: string): Queue<T, R> {
  return new TypedQueue<T, R>(scheduler, name);
}

class TypedQueue<T, R> implements Queue<T, R> {
  /** The check of every options object given to this handle (domain/options/, boundOptions). */
  private readonly optionsSchema: ReturnType<typeof boundOptions>;

  constructor(
    private readonly scheduler: QueueTarget,
    readonly name: string,
  ) {
    this.optionsSchema = boundOptions(name);
  }

  // The casts below leave T and R for Json: queue<T, R>() took only JSON types, and put checks the value.
  async put(data: T, options?: PutOptions): Promise<PutResult> {
    return this.scheduler.put(data as Json, this.bound(options, 'options'));
  }

  async putMany(items: Array<{ data: T; options?: PutOptions }>): Promise<PutResult[]> {
    // What is not an array, or an item that is not an object, goes as it is: putMany says why.
    if (!Array.isArray(items)) return this.scheduler.putMany(items);
    const withQueue = items.map((item: unknown, i) => {
      if (typeof item !== 'object' || item === null) return item;
      const field = `items[${i}]`;
      return read(field, () => ({ ...item, options: this.bound((item as { options?: PutOptions }).options, `${field}.options`) }));
    });
    return this.scheduler.putMany(withQueue as Array<{ data: Json; options?: PutOptions }>);
  }

  work(module: string | URL, options: WorkOptions & { sandbox: true }): Worker;
  work(handlers: Handlers<T, R>, options?: WorkOptions): Worker;
  work(handler: Handler<T, R>, options?: WorkOptions): Worker;
  work(handler: Handler<T, R> | Handlers<T, R> | string | URL, options?: WorkOptions): Worker {
    // The scheduler tells a module (sandbox) from a handler or a map of them by looking.
    return this.scheduler.work(handler as unknown as Handler, this.bound(options, 'options'));
  }

  workBatch(handler: BatchHandler<T, R>, options?: BatchOptions): BatchWorker {
    return this.scheduler.workBatch(handler as unknown as BatchHandler, this.bound(options, 'options'));
  }

  async get(hash: string, options?: { queue?: string }): Promise<TaskInfo<T> | null> {
    return this.scheduler.get<T>(hash, this.bound(options, 'options'));
  }

  async result<Result = R>(hash: string, options?: ResultOptions): Promise<TaskOutcome<Result> | null> {
    return this.scheduler.result<Result>(hash, this.bound(options, 'options'));
  }

  events(options?: EventsOptions & { queue?: string }): AsyncIterableIterator<QueueEvent> {
    return this.scheduler.events(this.bound(options, 'options'));
  }

  async orderGroups(on: boolean, options?: OrderGroupsOptions): Promise<void> {
    return this.scheduler.orderGroups(on, this.bound(options, 'options'));
  }

  /**
   * `options` with this queue in them. A queue given there must be this one: else the call is
   * refused before any I/O, with a ValidationError naming `<field>.queue`. The rest of the
   * options is left for the scheduler's own check.
   */
  private bound<O extends object>(options: O | null | undefined, field: string): O & { queue: string } {
    if (options === undefined || options === null) return { queue: this.name } as O & { queue: string };
    parse(this.optionsSchema, options, field);
    return read(field, () => ({ ...options, queue: this.name }));
  }
}

/** `fn`'s value; a getter or proxy trap that throws while it reads is refused as `field`, as docket's own checks refuse it. */
function read<R>(field: string, fn: () => R): R {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    throw unreadable(field, err);
  }
}
