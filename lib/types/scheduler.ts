/**
 * The Scheduler as its callers see it: what createScheduler() resolves to. Its methods, with their
 * overloads and documentation, are declared by concept beside their option types (put.ts,
 * task-calls.ts, claim.ts, work.ts, queues.ts, history.ts, schedules.ts, limits.ts, events.ts);
 * this interface joins them and adds the calls on the whole scheduler. The object that fulfils it
 * is lib/surfaces/facade/.
 */
import type { SchedulerClaims } from './claim';
import type { SchedulerEvents } from './events';
import type { Queue, QueueName, Sharded } from './handles';
import type { SchedulerHistory } from './history';
import type { Json } from './json';
import type { SchedulerLimits } from './limits';
import type { MetricsOptions, MetricsRegistry } from './metrics';
import type { SchedulerPuts } from './put';
import type { SchedulerQueues } from './queues';
import type { SchedulerSchedules } from './schedules';
import type { SchedulerTaskCalls } from './task-calls';
import type { SchedulerWorkers } from './work';

/** A scheduler: what {@link createScheduler} resolves to. Every method rejects with a {@link ClosedError} after close(), and validates its arguments before any I/O (a {@link ValidationError} naming the field, nothing written). */
export interface Scheduler
  extends SchedulerPuts, SchedulerTaskCalls, SchedulerClaims, SchedulerWorkers, SchedulerQueues, SchedulerHistory, SchedulerSchedules, SchedulerLimits, SchedulerEvents {
  /**
   * A handle on queue `name` whose payloads are of type `T`: its put, putMany, work, get, result
   * and events take no queue and agree on `T`, an interface included; its handlers return an `R`,
   * which its result() reads back. A `T` or `R` that is not JSON (JsonCompatible) fails to compile
   * here; a queue given again in the handle's options must be `name` (else a ValidationError naming it). Synchronous: throws a ValidationError for a bad
   * name and a ClosedError after close().
   */
  queue<T = Json, R = Json>(name: QueueName<T, R>): Queue<T, R>;
  /**
   * Adds docket's gauges (tasks per queue and state, paused, oldest due task's age) and counters
   * (put, added, deduplicated, completed, failed, dead, expired, lease lost), read from Redis at each
   * scrape so they are queue-wide, and histograms of this scheduler's queue lag and handler run
   * times, to a prom-client registry. Needs the prom-client package; a MetricsRegisteredError when
   * the registry has docket's metric names already.
   */
  registerMetrics(registry: MetricsRegistry, options?: MetricsOptions): void;
  /**
   * A hot queue split into `count` shard queues (`name:0` ... `name:<count-1>`), which spread over
   * a Redis Cluster: puts go to the shard the task's identity hashes to, workers work every shard.
   */
  sharded(name: string, count: number): Sharded;
  /** Stops the schedule loops this process runs, closes every worker of work() (each within its `shutdownTimeout`), waits for the calls under way, and closes the connection docket opened (a `client` passed in stays open). Settles within the workers' bound plus one `commandTimeout`; calling it again does nothing. */
  close(): Promise<void>;
}
