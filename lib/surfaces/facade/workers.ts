/**
 * The scheduler's calls that start workers in this process, and what it keeps of them for
 * close(): the workers, work()'s and workBatch()'s alike (running.ts, with the schedules every()
 * declared), each keeping its queue's stored schedules going.
 */
import type { BatchHandler, BatchOptions, BatchWorker, Handler, Handlers, SchedulerWorkers, Worker, WorkOptions } from '../../types/work';
import type { Json } from '../../types/json';
import { WithEvents } from './events';
import { Running } from './running';

export abstract class WithWorkers extends WithEvents implements SchedulerWorkers {
  /** The workers and schedules this process keeps going until close(). */
  protected readonly running = new Running(this.ctx);
  work<T = Json>(handler: Handler<T> | Handlers<T> | string | URL, options?: WorkOptions): Worker {
    this.live();
    return this.running.work(handler, options);
  }

  workBatch<T = Json, R = Json>(handler: BatchHandler<T, R>, options?: BatchOptions): BatchWorker {
    this.live();
    return this.running.workBatch(handler as BatchHandler<unknown, unknown>, options);
  }

  /** Stops the schedule loops this process runs and closes every worker, each as its own close() does. */
  protected stopWorkers(): Promise<unknown> {
    return this.running.stop();
  }
}
