/**
 * Recurring tasks. `every(name, schedule, data)` keeps the schedule's next occurrence put ahead of
 * time, as a normal delayed task whose run-at is the occurrence, so it runs on time by the same
 * path as any delayed task. Every process that declares a schedule does this; put.lua records the
 * latest occurrence put per schedule, and skips any occurrence at or before it, so many processes
 * produce each occurrence exactly once. Occurrences are computed from the Redis server's clock.
 */
import { hget, hgetall, hset } from '../ops/commands/hashes';
import { routed } from '../ops/commands/via';
import { serverTime, type Context } from '../redis/context';
import { fromRedisError, UnreadableRecordError, ValidationError, type DocketError } from '../domain/errors';
import { everyOptions, parse, scheduleArg, scheduleName, type ParsedEveryOptions, type ParsedSchedule } from '../domain/options';
import { canonicalJson, parseRecord, type Json } from '../domain/payload';
import { identityOf } from '../domain/hashing';
import { putOccurrences, type PutOptions } from '../life/put';
import type { Span } from '../domain/time';
import type { Duration } from '../domain/time';
import { cancel } from '../ops/cancel';
import { unschedule as unscheduleOp } from '../ops/unschedule';

/** A cron expression, the same with a time zone, or an interval (ms or Duration). */
export type Schedule = string | { cron: string; tz?: string } | number | Duration;

export interface EveryOptions {
  queue?: string;
  /** Occurrences' priority, as put's: a level 0-9, or true for 9. Default normal. */
  priority?: boolean | number;
  /** An occurrence not claimed within this span after its time is dropped. */
  expire?: Span;
  /** Deliveries of one occurrence before it goes dead. Default 5. */
  maxAttempts?: number;
  /**
   * Keep each occurrence's outcome this long once it finishes, for result() (see put's
   * keepResult). The de-dup modes do not apply: each occurrence is an identity of its own, put once.
   */
  keepResult?: Span;
  /**
   * Occurrences that fell due while no process declared the schedule (downtime): `'skip'` them
   * (default), run the latest `'once'`, or `'catch-up'` on the latest `catchUpLimit` of them.
   */
  missed?: 'skip' | 'once' | 'catch-up';
  /** Most missed occurrences that `'catch-up'` puts. Default 10, at most 100. */
  catchUpLimit?: number;
  /** Errors of the loop that puts occurrences (it retries on its own). Default: none reported. */
  onError?: (err: DocketError) => void;
}

/** A schedule as listSchedules() reports it. */
export interface ScheduleInfo<T = Json> {
  name: string;
  queue: string;
  /** The cron expression, or null for an interval. */
  cron: string | null;
  /** The cron expression's time zone, or null for an interval. */
  tz: string | null;
  /** The interval in ms, or null for a cron expression. */
  every: number | null;
  data: T;
  /** The latest occurrence put (epoch ms, Redis clock), or null before the first. */
  latest: number | null;
}

/** What the schedules hash keeps per name: enough to list it. */
interface Definition {
  cron?: string;
  tz?: string;
  every?: number;
  data: string;
}

/** Longest sleep between two looks at a schedule, so a far occurrence is not missed by a long timer. */
const MAX_SLEEP_MS = 60_000;
/** Pause after a failed look before the next. */
const RETRY_MS = 1000;

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

  get definition(): Omit<Definition, 'data'> {
    return 'cron' in this.schedule ? { cron: this.schedule.cron, tz: this.schedule.tz } : { every: this.schedule.every };
  }

  /** The first occurrence after `t`. Intervals fire at whole multiples of themselves since the epoch. */
  after(t: number): number {
    if ('every' in this.schedule) return (Math.floor(t / this.schedule.every) + 1) * this.schedule.every;
    return this.cron(t).next().getTime();
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

/** A schedule declared by this process: its loop, which keeps the next occurrence put. */
export class Recurring {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  readonly queue: string;

  constructor(
    private readonly ctx: Context,
    readonly name: string,
    private readonly occurrences: Occurrences,
    private readonly data: Json,
    /** `data` as canonical JSON, for the schedule's definition. */
    private readonly canonical: string,
    private readonly opts: ParsedEveryOptions,
  ) {
    this.queue = opts.queue ?? ctx.options.queue;
  }

  /** Checks every argument, before anything is written. */
  static prepare(ctx: Context, name: unknown, schedule: unknown, data: unknown, options: unknown): Recurring {
    const checkedName = parse(scheduleName, name, 'name');
    const occurrences = Occurrences.of(schedule);
    const canonical = canonicalJson(data as Json, 'data', { bytes: ctx.options.maxPayloadBytes });
    const opts = parse(everyOptions, options ?? {}, 'options');
    return new Recurring(ctx, checkedName, occurrences, data as Json, canonical, opts);
  }

  get keys() {
    return this.ctx.keys(this.queue);
  }

  /** Records the schedule and puts its first occurrences; then the loop keeps it going. */
  async start(): Promise<void> {
    const definition: Definition = { ...this.occurrences.definition, data: this.canonical };
    await hset(routed(this.ctx.conn, this.keys.schedules, { ms: this.ctx.options.commandTimeout, what: 'every' }), this.keys.schedules, this.name, JSON.stringify(definition));
    await this.look();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /**
   * One look: on the Redis clock, puts the next occurrence (and the missed ones the policy asks
   * for), then sleeps until that occurrence is due. put.lua skips what another process put already.
   */
  private async look(): Promise<void> {
    const [now, latestReply] = await Promise.all([
      serverTime(this.ctx, this.keys.occurred, 'every'),
      hget(routed(this.ctx.conn, this.keys.occurred, { ms: this.ctx.options.commandTimeout, what: 'every' }), this.keys.occurred, this.name),
    ]);
    const latest = latestReply === null ? null : Number(latestReply);
    const due: number[] = [];
    // Occurrences that passed without being put: after downtime, or a look that came late.
    if (latest !== null && latest < now && this.opts.missed !== 'skip') {
      const limit = this.opts.missed === 'once' ? 1 : this.opts.catchUpLimit;
      due.push(...this.occurrences.between(latest, now, limit));
    }
    const next = this.occurrences.after(now);
    due.push(next);
    const { gone } = await putOccurrences(
      this.ctx,
      this.queue,
      this.name,
      due.map((at) => ({ data: this.data, options: this.taskOptions(at) })),
    );
    if (gone) return this.stop();
    this.sleep(next - now);
  }

  private taskOptions(at: number): PutOptions {
    const { priority, expire, maxAttempts, keepResult } = this.opts;
    return {
      queue: this.queue,
      at,
      key: occurrenceKey(this.name, at),
      priority,
      maxAttempts,
      ...(expire === undefined ? {} : { expire }),
      ...(keepResult === undefined ? {} : { keepResult }),
    };
  }

  private sleep(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.look().catch((err) => {
          this.report(err);
          this.sleep(RETRY_MS);
        });
      },
      Math.max(1, Math.min(ms, MAX_SLEEP_MS)),
    );
  }

  private report(err: unknown): void {
    try {
      this.opts.onError?.(fromRedisError(err));
    } catch {
      // A throwing onError must not stop the schedule.
    }
  }
}

/** The schedules of a queue, with the latest occurrence each has put. */
export async function listSchedules<T = Json>(ctx: Context, queue: string): Promise<ScheduleInfo<T>[]> {
  const keys = ctx.keys(queue);
  const deadline = { ms: ctx.options.commandTimeout, what: 'listSchedules' };
  const [defs, lasts] = await Promise.all([hgetall(routed(ctx.conn, keys.schedules, deadline), keys.schedules), hgetall(routed(ctx.conn, keys.occurred, deadline), keys.occurred)]);
  return [...defs.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, json]) => {
      const d = parseRecord<Definition | null>(json, `schedule ${name}`);
      // Valid JSON of another shape (null, a number) is as unreadable as text that is not JSON.
      if (d === null || typeof d !== 'object' || Array.isArray(d)) throw new UnreadableRecordError(`schedule ${name}`, new TypeError('not a JSON object'));
      const at = lasts.get(name);
      return {
        name,
        queue,
        cron: d.cron ?? null,
        tz: d.tz ?? null,
        every: d.every ?? null,
        data: parseRecord<T>(d.data, `the data of schedule ${name}`),
        latest: at === undefined ? null : Number(at),
      };
    });
}

/**
 * Deletes a schedule: no process puts its occurrences any more, and its pending occurrence (the
 * latest put, if not yet run) is cancelled. Answers false when there was no such schedule.
 */
export async function unschedule(ctx: Context, queue: string, name: unknown): Promise<boolean> {
  const checked = parse(scheduleName, name, 'name');
  const keys = ctx.keys(queue);
  const { existed, latest } = await ctx.scripts.run(unscheduleOp, keys, { name: checked });
  if (latest !== null) {
    // The latest occurrence is an ordinary task, identified by its key: cancel it unless it has
    // run or is running (cancel leaves an active task to its worker).
    await ctx.scripts.run(cancel, keys, { id: ctx.hash(identityOf('', occurrenceKey(checked, latest))), events: ctx.options.eventsMaxLength });
  }
  return existed;
}

/** The de-dup key of one occurrence: the schedule's name and the occurrence's time. */
function occurrenceKey(name: string, at: number): string {
  return `every:${name}:${at}`;
}
