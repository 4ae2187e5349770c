/**
 * When a schedule fires: the occurrences of a cron expression in its time zone, or of an interval,
 * on a clock given in epoch ms (the Redis server's, wherever docket computes them). Shared by
 * every() and stored schedules, the CLI and the dashboard.
 */
import { ValidationError } from '../types/errors';
import { parse, scheduleArg, type ParsedSchedule } from '../domain/options';
import { instantsOf, isWildcard, MAX_SHIFT_MS, offsetAt, wallOf } from './schedules-zone';

/** The times a schedule fires, on a clock given in epoch ms. */
export class Occurrences {
  private constructor(private readonly schedule: ParsedSchedule) {}

  /** Checks `schedule` fully (a cron expression and its time zone included). */
  static of(schedule: unknown): Occurrences {
    const parsed = parse(scheduleArg, schedule, 'schedule');
    if ('cron' in parsed) {
      try {
        offsetAt(parsed.tz, 0);
        cronParser()
          .parse(parsed.cron, { currentDate: new Date(0), tz: 'UTC', strict: false })
          .next();
      } catch (err) {
        throw new ValidationError('schedule', `is not a valid cron expression with time zone ${parsed.tz}: ${(err as Error).message}`);
      }
    }
    return new Occurrences(parsed);
  }

  get definition(): { cron: string; tz: string } | { every: number } {
    return 'cron' in this.schedule ? { cron: this.schedule.cron, tz: this.schedule.tz } : { every: this.schedule.every };
  }

  /** The first occurrence after `t`. Intervals fire at whole multiples of themselves since the epoch. */
  after(t: number): number {
    if ('every' in this.schedule) return (Math.floor(t / this.schedule.every) + 1) * this.schedule.every;
    return this.nth(t, 1);
  }

  /** The `n`th occurrence after `t` (the first is after(t)): where a schedule of `n` occurrences ends. */
  nth(t: number, n: number): number {
    if ('every' in this.schedule) return this.after(t) + (n - 1) * this.schedule.every;
    let left = n;
    for (const at of this.walk(t, 1)) if (at > t && --left === 0) return at;
    throw new Error('unreachable: a cron expression has no end');
  }

  /** Up to `limit` occurrences in (from, to], latest last. */
  between(from: number, to: number, limit: number): number[] {
    const found: number[] = [];
    if ('every' in this.schedule) {
      const step = this.schedule.every;
      for (let at = Math.floor(to / step) * step; at > from && found.length < limit; at -= step) found.unshift(at);
      return found;
    }
    for (const at of this.walk(to, -1)) {
      if (at <= from || found.length >= limit) break;
      if (at <= to) found.unshift(at);
    }
    return found;
  }

  /**
   * The occurrences of a cron expression from about `t` on (`direction` 1) or back (-1), each once,
   * in order: its wall-clock times, read in UTC (where cron-parser never meets a daylight-saving
   * change, so never its loop limit), each made the instants it names in the time zone
   * (instantsOf). Starts a fall-back's shift before (or after) `t` when one is that near, so that
   * a repeated wall time's second instant is not passed over; the caller skips what is beyond `t`. A repeated
   * hour's instants interleave: while walking its wall times, the second instants (forward; the
   * first, back) wait until the walk leaves the hour.
   */
  private *walk(t: number, direction: 1 | -1): Generator<number> {
    const { cron, tz } = this.schedule as { cron: string; tz: string };
    const wildcard = isWildcard(cron);
    // A wall time behind wall(t) names an instant past `t` only when a fall-back of `diff` comes
    // within `diff` after `t` (its repeated times' second instants); back, the same before `t`.
    const offset = offsetAt(tz, t);
    const diff = direction === 1 ? offset - offsetAt(tz, t + MAX_SHIFT_MS) : offsetAt(tz, t - MAX_SHIFT_MS) - offset;
    const shift = diff > 0 && offsetAt(tz, t + direction * diff) !== offset ? diff : 0;
    const times = cronParser().parse(cron, { currentDate: new Date(wallOf(tz, t) - direction * shift + (direction === 1 ? 0 : 1000)), tz: 'UTC' });
    const waiting: number[] = [];
    let last = direction === 1 ? -Infinity : Infinity;
    for (;;) {
      const wall = (direction === 1 ? times.next() : times.prev()).getTime();
      const at = instantsOf(tz, wall, wildcard);
      if (direction === -1) at.reverse();
      const now = at.length === 2 ? [at[0]] : [...waiting.splice(0), ...at];
      if (at.length === 2) waiting.push(at[1]);
      for (const i of now) {
        if ((i - last) * direction <= 0) continue;
        last = i;
        yield i;
      }
    }
  }
}

/** cron-parser (and luxon under it), loaded with the first cron schedule: an interval needs neither. */
function cronParser(): (typeof import('cron-parser'))['CronExpressionParser'] {
  return (require('cron-parser') as typeof import('cron-parser')).CronExpressionParser;
}
