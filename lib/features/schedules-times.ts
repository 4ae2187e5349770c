/**
 * When a schedule fires: the occurrences of a cron expression in its time zone, or of an interval,
 * on a clock given in epoch ms (the Redis server's, wherever docket computes them). Shared by
 * every() and stored schedules, the CLI and the dashboard.
 */
import { ValidationError } from '../domain/errors';
import { parse, scheduleArg, type ParsedSchedule } from '../domain/options';

/** The times a schedule fires, on a clock given in epoch ms. */
export class Occurrences {
  private constructor(private readonly schedule: ParsedSchedule) {}

  /** Checks `schedule` fully (a cron expression and its time zone included). */
  static of(schedule: unknown): Occurrences {
    const parsed = parse(scheduleArg, schedule, 'schedule');
    if ('cron' in parsed) {
      try {
        cronParser()
          .parse(parsed.cron, { currentDate: new Date(0), tz: parsed.tz, strict: false })
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
    return this.cron(t).next().getTime();
  }

  /** The `n`th occurrence after `t` (the first is after(t)): where a schedule of `n` occurrences ends. */
  nth(t: number, n: number): number {
    if ('every' in this.schedule) return this.after(t) + (n - 1) * this.schedule.every;
    const cron = this.cron(t);
    let at = t;
    for (let i = 0; i < n; i++) at = cron.next().getTime();
    return at;
  }

  /** Up to `limit` occurrences in (from, to], latest last. */
  between(from: number, to: number, limit: number): number[] {
    const found: number[] = [];
    if ('every' in this.schedule) {
      const step = this.schedule.every;
      for (let at = Math.floor(to / step) * step; at > from && found.length < limit; at -= step) found.unshift(at);
      return found;
    }
    const cron = this.cron(to + 1);
    while (found.length < limit) {
      const at = cron.prev().getTime();
      if (at <= from) break;
      found.unshift(at);
    }
    return found;
  }

  private cron(t: number) {
    const { cron, tz } = this.schedule as { cron: string; tz: string };
    return cronParser().parse(cron, { currentDate: new Date(t), tz });
  }
}

/** cron-parser (and luxon under it), loaded with the first cron schedule: an interval needs neither. */
function cronParser(): (typeof import('cron-parser'))['CronExpressionParser'] {
  return (require('cron-parser') as typeof import('cron-parser')).CronExpressionParser;
}
