/**
 * A typed queue: `scheduler.queue<Mail>('email')` binds one queue's name and one payload type, so
 * that its put, putMany, work, get, result and events agree on both, as BullMQ's `Queue<Data>`
 * does; `queue<Mail, Sent>` binds the handlers' result type too, as BullMQ's
 * `Worker<Data, Result>`. Its calls are the scheduler's own with the queue filled in. A queue
 * given again in their options must be the same one; any other is a ValidationError naming the
 * field, since a handle that put into another queue would hand that queue tasks of a type its own
 * workers do not expect.
 */
import { unreadable, ValidationError } from '../types/errors';
import { boundOptions, parse } from '../domain/options';
import type { EventsOptions, QueueEvent } from '../types/events';
import type { ResultOptions, TaskOutcome } from '../types/outcome';
import type { Json } from '../types/json';
import type { PutOptions, PutResult } from '../types/put';
import type { BatchHandler, BatchOptions, BatchWorker, Handler, Handlers, Worker, WorkOptions } from '../types/work';
import type { TaskInfo } from '../types/task';
import type { OrderGroupsOptions } from '../types/limits';
import type { Queue } from '../types/handles';

/**
 * The scheduler's calls a Queue makes: the Scheduler itself, named by what is used of it so that
 * this module does not import the facade (lib/surfaces/facade/), which imports it.
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
