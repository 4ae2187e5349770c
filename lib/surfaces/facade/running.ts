/**
 * What a scheduler keeps going in this process: its worker loops (work()) and the recurring
 * schedules it declared (every()). Both outlive the call that started them, so the scheduler keeps
 * them here, and its close() ends them all before the connection they use goes.
 */
import type { Context } from '../../redis/context';
import type { Json } from '../../types/json';
import { sandboxOf } from '../../features/sandbox';
import { Recurring, unschedule } from '../../features/recurring';
import type { EveryOptions, Schedule } from '../../types/schedules';
import { Runners } from '../../features/schedules';
import { handlerOf } from '../../life/route';
import type { BatchHandler, BatchOptions, Handler, Handlers, WorkOptions } from '../../types/work';
import { work, workBatch, type Worker, type WorkerHooks } from '../../life/worker';
import type { QueueOption } from '../../types/queue';

export class Running {
  private readonly workers = new Set<Worker>();
  /** Schedules this process keeps going, by queue and name. */
  private readonly recurring = new Map<string, Recurring>();
  private readonly runners: Runners;

  constructor(private readonly ctx: Context) {
    this.runners = new Runners(ctx);
  }

  work<T>(handler: Handler<T> | Handlers<T> | string | URL, options: WorkOptions | undefined): Worker {
    const sandbox = sandboxOf(handler, options, this.ctx.options.maxResultBytes);
    const run = sandbox?.handler ?? (handlerOf(handler as Handler<T> | Handlers<T>) as Handler<unknown>);
    return this.keep((hooks) => work(this.ctx, run, options, sandbox ?? undefined, hooks));
  }

  workBatch(handler: BatchHandler<unknown, unknown>, options: BatchOptions | undefined): Worker {
    return this.keep((hooks) => workBatch(this.ctx, handler, options, hooks));
  }

  /**
   * Keeps the worker `start` makes until it closes. Every worker keeps its queue's stored schedules
   * going (features/schedules.ts); its claims and beats say when the queue has some: the runner
   * then looks.
   */
  private keep(start: (hooks: WorkerHooks) => Worker): Worker {
    let poke = () => {};
    const worker = start({ schedules: () => poke() });
    this.workers.add(worker);
    const runner = this.runners.acquire(worker.queue);
    poke = runner.poke;
    void worker.closed.then(() => {
      this.workers.delete(worker);
      runner.release();
    });
    return worker;
  }

  /** Declares a schedule, `data` checked as JSON at run time, as put's payload is. */
  async every(name: string, schedule: Schedule, data: Json, options: EveryOptions | undefined): Promise<void> {
    const recurring = Recurring.prepare(this.ctx, name, schedule, data, options);
    const id = `${recurring.queue}\u0000${recurring.name}`;
    // Declared again in this process: the new declaration replaces the old one's loop.
    this.recurring.get(id)?.stop();
    this.recurring.set(id, recurring);
    await recurring.start();
  }

  async unschedule(name: string, options: QueueOption | undefined): Promise<boolean> {
    const queue = this.ctx.queueOf(options);
    const existed = await unschedule(this.ctx, queue, name);
    const id = `${queue}\u0000${name}`;
    this.recurring.get(id)?.stop();
    this.recurring.delete(id);
    return existed;
  }

  /** Stops every schedule's loop and closes every worker (each as its own close() does). */
  async stop(): Promise<void> {
    for (const recurring of this.recurring.values()) recurring.stop();
    await Promise.all([...this.workers].map((w) => w.close()));
  }
}
