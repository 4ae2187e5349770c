/**
 * A queue's limits as the dashboard shows them, and the two it can change: the concurrency limit
 * and the rate limit (group limits, group rates and backoffQueue holds are shown only: they are
 * set from the API, and all but group rates from the CLI). Reads are the scheduler's own:
 * concurrencyLimit(), rateLimits(), groupLimits().
 */
import type { RateLimit } from '../../types/limits';
import type { Scheduler } from '../../types/scheduler';

/** The JSON of `selected.limits` in `GET <base>/api/overview`. */
export interface LimitsView {
  /** The concurrency limit, or null for none. */
  concurrency: number | null;
  /** Tasks leased now (a lapsed lease counts until a claim re-queues it). */
  active: number;
  /** The rate limit, `per` in ms, or null for none. */
  rate: RateLimit | null;
  /** When a backoffQueue() hold ends (epoch ms, Redis clock), or null when none holds claims. */
  heldUntil: number | null;
  /** The limit of every group without its own, or null. */
  groupDefault: number | null;
  /** How many groups have a limit of their own. */
  ownGroupLimits: number;
  /** The rate limit of every group without its own (`per` in ms), or null. */
  groupRate: RateLimit | null;
  /** How many groups have a rate limit of their own. */
  ownGroupRates: number;
  /** The first MAX_GROUP_RATES of those groups by name, with their rates (`per` in ms). */
  groupRates: Record<string, RateLimit>;
}

/** Groups with a rate of their own listed, as `docket limits` lists groups; rateLimits() gives every one. */
export const MAX_GROUP_RATES = 50;

export async function readLimits(scheduler: Scheduler, queue: string): Promise<LimitsView> {
  const [concurrency, rates, groups] = await Promise.all([scheduler.concurrencyLimit({ queue }), scheduler.rateLimits({ queue }), scheduler.groupLimits({ queue })]);
  return {
    concurrency: concurrency.limit,
    active: concurrency.active,
    rate: rates.queue,
    heldUntil: rates.heldUntil,
    groupDefault: groups.default,
    ownGroupLimits: Object.keys(groups.groups).length,
    groupRate: rates.eachGroup,
    ownGroupRates: Object.keys(rates.groups).length,
    groupRates: Object.fromEntries(
      Object.keys(rates.groups)
        .sort()
        .slice(0, MAX_GROUP_RATES)
        .map((g) => [g, rates.groups[g]]),
    ),
  };
}

/** Sets or removes the concurrency limit of a registered queue. */
export async function setConcurrency(scheduler: Scheduler, queue: string, limit: number | null): Promise<{ limit: number | null }> {
  await scheduler.limitConcurrency(limit, { queue });
  return { limit };
}

/** Sets (max and per) or removes (max null) the rate limit of a registered queue. */
export async function setRate(scheduler: Scheduler, queue: string, max: number | null, per: number | undefined): Promise<{ rate: RateLimit | null }> {
  if (max === null || per === undefined) {
    await scheduler.limitRate(null, { queue });
    return { rate: null };
  }
  await scheduler.limitRate({ max, per, queue });
  return { rate: { max, per } };
}
