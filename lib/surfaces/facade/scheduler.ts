/**
 * The scheduler: the one object callers hold (its contract and docs: lib/types/scheduler.ts). It
 * puts tasks, moves and inspects them, leases them to workers, starts worker loops, and hands out
 * typed handles on one queue (queue.ts) and on a sharded one. Each method checks its arguments
 * fully before any I/O.
 *
 * Its methods are written by concept, each concept a class extending the one before (core.ts
 * says why and in what order); this last one adds the calls on the whole scheduler: the handles,
 * metrics, and close(). Its start is start.ts.
 */
import { registerMetrics } from '../../features/metrics';
import { sharded } from '../../features/shards';
import { flushPuts } from '../../life/put';
import type { Json } from '../../types/json';
import type { MetricsOptions, MetricsRegistry } from '../../types/metrics';
import type { Queue, QueueName, Sharded } from '../../types/handles';
import type { Scheduler } from '../../types/scheduler';
import type { SchedulerOptions } from '../../types/scheduler-options';
import { typedQueue } from '../queue';
import { WithSchedules } from './schedules';
import { start } from './start';

/** Connects to Redis and readies the hash function; both start asynchronously. */
export async function createScheduler(options: SchedulerOptions = {}): Promise<Scheduler> {
  return start(options, (ctx, warn) => new DocketScheduler(ctx, warn));
}

class DocketScheduler extends WithSchedules implements Scheduler {
  queue<T = Json, R = Json>(name: QueueName<T, R>): Queue<T, R> {
    this.live();
    return typedQueue<T, R>(this, this.ctx.checkQueue(name, 'name'));
  }

  sharded(name: string, count: number): Sharded {
    this.live();
    return sharded(this.ctx, this, name, count);
  }

  registerMetrics(registry: MetricsRegistry, options?: MetricsOptions): void {
    registerMetrics(this, registry, options, this.ctx);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.closing.abort();
    await this.stopWorkers();
    await flushPuts(this.ctx);
    await this.ctx.conn.close();
  }
}
