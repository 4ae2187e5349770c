/** The scheduler's calls that watch a queue's outcomes: as they happen, and counted per time bucket. */
import { events, throughput } from '../../features/events';
import type { EventsOptions, QueueEvent, SchedulerEvents, Throughput, ThroughputOptions } from '../../types/events';
import type { QueueOption } from '../../types/queue';
import { WithLimits } from './limits';

export abstract class WithEvents extends WithLimits implements SchedulerEvents {
  events(first?: (EventsOptions & QueueOption) | string, second?: EventsOptions): AsyncIterableIterator<QueueEvent> {
    this.live();
    const [queue, options] = this.deprecated.queueAnd('events', first, second);
    return events(this.ctx, queue, options, this.closing.signal);
  }

  throughput(first?: (ThroughputOptions & QueueOption) | string, second?: ThroughputOptions): Promise<Throughput> {
    return this.open(async () => {
      const [queue, options] = this.deprecated.queueAnd('throughput', first, second);
      return throughput(this.ctx, queue, options);
    });
  }
}
