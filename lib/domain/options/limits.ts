/**
 * The limits a queue's claims obey across every worker: per-group and queue-wide concurrency, and
 * rates. The API (limitGroups, limitConcurrency, limitRate), the CLI's flags and the dashboard
 * check a limit with these same schemas, so all three accept the same values.
 */
import { z } from 'zod';
import { groupName, queueName } from './names';
import { count, MAX_DEDUP_WINDOW_MS, positiveSpan } from './values';

/** Most active tasks at once per group. */
export const MAX_GROUP_LIMIT = 100_000;
/** A per-group limit: a whole number of active tasks, or null for none. */
export const groupLimitArg = z.union([z.null(), count(MAX_GROUP_LIMIT)], {
  error: `expected null or a whole number from 1 to ${MAX_GROUP_LIMIT}`,
});
/** A rate limit: at most `max` claims per `per` (a span longer than 0, at most 30 days), on one queue. */
export const rateArg = z
  .strictObject(
    {
      max: count(1_000_000),
      per: positiveSpan.refine((ms) => ms <= MAX_DEDUP_WINDOW_MS, { error: `must be at most 30 days (${MAX_DEDUP_WINDOW_MS} ms)` }),
      queue: queueName.optional(),
      group: groupName.optional(),
      eachGroup: z.boolean({ error: 'expected a boolean' }).optional(),
    },
    { error: 'expected null or { max, per, queue?, group?, eachGroup? }' },
  )
  .refine((o) => !(o.group !== undefined && o.eachGroup), { error: 'give group or eachGroup, not both', path: ['eachGroup'] });

/** Which rate limit limitRate(null, ...) removes: the queue's, one group's, or every group's. */
export const rateScope = z
  .strictObject({ queue: queueName.optional(), group: groupName.optional(), eachGroup: z.boolean({ error: 'expected a boolean' }).optional() })
  .refine((o) => !(o.group !== undefined && o.eachGroup), { error: 'give group or eachGroup, not both', path: ['eachGroup'] });

/** A queue's concurrency limit: a whole number of leased tasks, or null for none. */
export const concurrencyArg = z.union([z.null(), count(MAX_GROUP_LIMIT)], {
  error: `expected null or a whole number from 1 to ${MAX_GROUP_LIMIT}`,
});
export const groupLimitOptions = z.strictObject({ queue: queueName.optional(), group: groupName.optional() });
/** orderGroups(on, options): whether a queue's groups run in order, one task at a time. */
export const orderGroupsArg = z.boolean({ error: 'expected true or false' });
/** orderGroups' options: `holdOnDead` holds a group behind its dead head until redriven, cancelled or purged. */
export const orderGroupsOptions = z.strictObject({ queue: queueName.optional(), holdOnDead: z.boolean().optional() });
/** pause() and resume() of one group: its name is required. */
export const groupPauseOptions = z.strictObject({ queue: queueName.optional(), group: groupName });

/** limitRate(limit) takes no second argument: the queue and group go inside the limit. */
export const limitRateTail = z.undefined({ error: 'give the queue and group inside the limit: limitRate({ max, per, queue, group })' });
