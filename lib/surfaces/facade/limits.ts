/** The scheduler's calls on a queue's limits: per fair group, ordered groups, concurrency, rate. */
import { concurrencyLimit, groupLimits, limitConcurrency, limitGroups, orderGroups } from '../../features/groups';
import { backoffQueue, limitRate, rateLimits } from '../../features/rates';
import type { ConcurrencyLimit, GroupLimitOptions, GroupLimits, OrderGroupsOptions, RateLimitInput, RateLimitOptions, RateLimits, SchedulerLimits } from '../../types/limits';
import type { QueueOption } from '../../types/queue';
import type { Span } from '../../types/time';
import { WithHistory } from './history';

export abstract class WithLimits extends WithHistory implements SchedulerLimits {
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
}
