/**
 * The scheduler's calls that start workers in this process, and what it keeps of them for
 * close(): the work() loops (running.ts, with the schedules every() declared) and the batch
 * workers, each batch worker keeping its queue's stored schedules going as every work() loop does.
 */
import { BatchWorker } from '../../life/batch';
import { Runners } from '../../features/schedules';
import type { BatchHandler, BatchOptions, Handler, Handlers, SchedulerWorkers, Worker, WorkOptions } from '../../types/work';
import type { Json } from '../../types/json';
import { WithEvents } from './events';
import { Running } from './running';

export abstract class WithWorkers extends WithEvents implements SchedulerWorkers {
  /** The workers and schedules this process keeps going until close(). */
  protected readonly running = new Running(this.ctx);
  /** The batch workers (workBatch()) this process keeps going until close(). */
  private readonly batches = new Set<BatchWorker>();
  /** Stored schedules kept going by batch workers, as every work() loop keeps its queue's. */
  private readonly batchSchedules = new Runners(this.ctx);

  work<T = Json>(handler: Handler<T> | Handlers<T> | string | URL, options?: WorkOptions): Worker {
    this.live();
    return this.running.work(handler, options);
  }

  workBatch<T = Json, R = Json>(handler: BatchHandler<T, R>, options?: BatchOptions): BatchWorker {
    this.live();
    const worker = new BatchWorker(this.ctx, handler as BatchHandler<unknown, unknown>, options);
    this.batches.add(worker);
    const release = this.batchSchedules.acquire(worker.queue);
    void worker.closed.then(() => {
      this.batches.delete(worker);
      release();
    });
    return worker;
  }

  /** Stops the schedule loops this process runs and closes every worker, each as its own close() does. */
  protected stopWorkers(): Promise<unknown> {
    return Promise.all([this.running.stop(), ...[...this.batches].map((w) => w.close())]);
  }
}
