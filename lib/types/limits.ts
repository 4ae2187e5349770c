/**
 * A queue's limits as callers set and read them: per fair group, ordered groups, concurrency
 * across workers, rate, and the Scheduler's calls on them (lib/features/groups.ts, rates.ts keep them).
 */
import type { QueueOption } from './queue';
import type { Span } from './time';

/** Options of {@link Scheduler.limitGroups}. */
export interface GroupLimitOptions {
  /** The queue whose groups are limited. Default: the scheduler's `queue` option. */
  queue?: string;
  /** The group this limit is for; default every group of the queue that has no limit of its own. */
  group?: string;
}

/** A queue's group limits, how many tasks each group has active now, and the paused groups. */
export interface GroupLimits {
  /** The limit of every group without its own, or null for none. */
  default: number | null;
  /** Groups with a limit of their own: group → limit. */
  groups: Record<string, number>;
  /** Active tasks per group, for the groups that have any: group → count. */
  active: Record<string, number>;
  /**
   * The groups paused, by name: `pause({ queue, group })`,
   * docs/api.md#pausing-one-group-pause-queue-group-.
   */
  paused: string[];
}

/** Options of {@link Scheduler.orderGroups}. */
export interface OrderGroupsOptions {
  /** The queue whose groups are ordered. Default: the scheduler's `queue` option. */
  queue?: string;
  /** A task that died holds its group too, until it is redriven, cancelled or purged (default false). */
  holdOnDead?: boolean;
}

/** The most tasks of a queue leased at once, across every worker, and how many are leased now. */
export interface ConcurrencyLimit {
  /** The limit, or null for none. */
  limit: number | null;
  /** Tasks leased now (a lapsed lease counts until a claim re-queues it). */
  active: number;
}

/** A rate limit as {@link Scheduler.rateLimits} reads it back. */
export interface RateLimit {
  /** Most claims in any window of `per` ms. */
  max: number;
  /** The window, in ms. */
  per: number;
}

/** limitRate's argument: the limit, and what it is for (default: the scheduler's queue as a whole). */
export interface RateLimitInput {
  /** Most claims in any window of `per`: a whole number, 1 to 1,000,000. */
  max: number;
  /** ms or a Duration, at most 30 days. */
  per: Span;
  /** The queue limited. Default: the scheduler's `queue` option. */
  queue?: string;
  /** A limit for this one group of the queue (its own, over eachGroup's). */
  group?: string;
  /** A limit for each group of the queue that has none of its own. */
  eachGroup?: boolean;
}

/** Options of `limitRate(null, options)`: which limit to remove. */
export interface RateLimitOptions {
  /** The queue whose limit goes. Default: the scheduler's `queue` option. */
  queue?: string;
  /** limitRate(null): remove this group's own limit. */
  group?: string;
  /** limitRate(null): remove the limit of every group. */
  eachGroup?: boolean;
}

/** What rateLimits() reports of a queue. */
export interface RateLimits {
  /** The queue's rate limit, or null for none. */
  queue: RateLimit | null;
  /** The limit of each group without its own, or null. */
  eachGroup: RateLimit | null;
  /** Groups with a limit of their own. */
  groups: Record<string, RateLimit>;
  /** When backoffQueue() lets claims start again (epoch ms, Redis clock), or null when it does not hold them. */
  heldUntil: number | null;
}

/** The calls that set and read a queue's limits: per fair group, concurrency across workers, rate, and a backoff. Part of {@link Scheduler}. */
export interface SchedulerLimits {
  /**
   * At most `limit` tasks of each group of a queue (or of `options.group` only) active at once,
   * across every worker; null removes the limit. A group's own limit wins over the queue's.
   */
  limitGroups(limit: number | null, options?: GroupLimitOptions): Promise<void>;
  /** A queue's group limits, and each group's active tasks. */
  groupLimits(options?: QueueOption): Promise<GroupLimits>;
  /**
   * Makes a queue's fair groups ordered (`on` true) or not. In an ordered queue each group's tasks
   * run one at a time, in their order (run-at, then put order); a failed task keeps its group's
   * head while it waits for its retry (also snoozed, or back after its lease lapsed): nothing
   * behind it in its group runs. A dead task lets the group go on, or, with `holdOnDead`, holds it
   * until it is redriven, cancelled or purged. Other groups are never held up, and the fair turn
   * between groups holds. Stored in Redis, so every worker applies it; false releases every hold.
   */
  orderGroups(on: boolean, options?: OrderGroupsOptions): Promise<void>;
  /**
   * At most `limit` tasks of a queue leased at once across every worker and process (the
   * database-writers case); null removes the limit. Combines with group limits.
   */
  limitConcurrency(limit: number | null, options?: QueueOption): Promise<void>;
  /** A queue's concurrency limit (null for none), and its tasks leased now. */
  concurrencyLimit(options?: QueueOption): Promise<ConcurrencyLimit>;
  /**
   * At most `max` claims of a queue in any `per` (sliding, on the Redis clock) across every worker
   * and process; `limitRate(null, { queue })` removes it. A limited worker sleeps until the next
   * claim is allowed instead of polling.
   */
  limitRate(limit: RateLimitInput): Promise<void>;
  /** Removes the queue's rate limit. */
  limitRate(limit: null, options?: RateLimitOptions): Promise<void>;
  /** A queue's rate limit, and until when backoffQueue() holds its claims. */
  rateLimits(options?: QueueOption): Promise<RateLimits>;
  /**
   * No claim of `queue`, by any worker, for `span` from the Redis server's now (an API answered
   * 429: BullMQ's rateLimit). Resolves when claims may start again (epoch ms, Redis clock).
   */
  backoffQueue(queue: string, span: Span): Promise<number>;
}
