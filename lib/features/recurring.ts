/**
 * Recurring tasks. `every(name, schedule, data)` keeps the schedule's next occurrence put ahead of
 * time, as a normal delayed task whose run-at is the occurrence, so it runs on time by the same
 * path as any delayed task. Every process that declares a schedule does this; put.lua records the
 * latest occurrence put per schedule, and skips any occurrence at or before it, so many processes
 * produce each occurrence exactly once. Occurrences are computed from the Redis server's clock.
 */
import { hget } from '../ops/commands/hashes';
import { routed } from '../ops/commands/via';
import { serverTime, type Context } from '../redis/context';
import { isSealed } from '../domain/crypto';
import { fromRedisError, UnreadableRecordError } from '../types/errors';
import { everyOptions, parse, scheduleName, type ParsedEveryOptions, type TaskTemplate } from '../domain/options';
import { canonicalJson } from '../domain/payload';
import type { Json } from '../types/json';
import { putOccurrences } from '../life/put';
import { unschedule as unscheduleOp } from '../ops/unschedule';
import { get, type TaskRecord } from '../ops/get';
import { parseMeta } from '../domain/meta';
import { errorFields } from '../domain/log';
import { dataOf, latestOf, nextRun, occurrenceHash, occurrenceKey, occurrencesOf, parseDefinition, readSchedules, storedData, taskOptions, type Definition } from './schedules-record';
import { Occurrences } from './schedules-times';
import { cancelPending, define, mayBePending } from './schedules-define';
import type { ScheduleInfo } from '../types/schedules';

export { Occurrences } from './schedules-times';

/** Longest sleep between two looks at a schedule, so a far occurrence is not missed by a long timer. */
const MAX_SLEEP_MS = 60_000;
/** Pause after a failed look before the next. */
const RETRY_MS = 1000;

/** The template part of checked every() or schedule() options, as a definition stores it. */
export function templateOf(opts: TaskTemplate): TaskTemplate {
  const { taskName, group, priority, timeout, expire, maxAttempts, keepResult, keep, unique } = opts;
  return { taskName, group, priority, timeout, expire, maxAttempts, keepResult, keep, unique };
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
    const { missed, catchUpLimit } = this.opts;
    const definition: Definition = { ...this.occurrences.definition, data: storedData(this.ctx, this.canonical), template: templateOf(this.opts), missed, catchUpLimit };
    await define(this.ctx, this.queue, this.name, definition, this.canonical, 'every');
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
    const latest = latestOf(this.name, latestReply);
    const due: number[] = [];
    // Occurrences that passed without being put: after downtime, or a look that came late.
    if (latest !== null && latest < now && this.opts.missed !== 'skip') {
      const limit = this.opts.missed === 'once' ? 1 : this.opts.catchUpLimit;
      due.push(...this.occurrences.between(latest, now, limit));
    }
    const next = this.occurrences.after(now);
    due.push(next);
    const template = templateOf(this.opts);
    const { gone } = await putOccurrences(
      this.ctx,
      this.queue,
      this.name,
      due.map((at) => ({ data: this.data, options: taskOptions(this.queue, template, occurrenceKey(this.name, at), at) })),
    );
    // Gone, or paused (pauseSchedule): a paused schedule is looked at again at its next time.
    if (gone && !(await this.paused())) return this.stop();
    this.sleep(next - now);
  }

  private async paused(): Promise<boolean> {
    const json = await hget(routed(this.ctx.conn, this.keys.schedules, { ms: this.ctx.options.commandTimeout, what: 'every' }), this.keys.schedules, this.name);
    return json !== null && parseDefinition(this.name, json).paused === true;
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

/**
 * The schedules of a queue, with the latest occurrence each has put and its next run. A definition
 * no schedule() or every() would write is reported (the scheduler's logger, an
 * UnreadableRecordError naming it) and left out, so one bad record does not hide the others.
 */
export async function listSchedules<T = Json>(ctx: Context, queue: string): Promise<ScheduleInfo<T>[]> {
  const keys = ctx.keys(queue);
  const [{ defs, latest: lasts }, now] = await Promise.all([readSchedules(ctx, queue, 'listSchedules'), serverTime(ctx, keys.schedules, 'listSchedules')]);
  const names = [...defs.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const infos = await Promise.all(names.map((name) => infoOf<T>(ctx, queue, name, defs.get(name) as string, lasts.get(name), now)));
  return infos.filter((info): info is ScheduleInfo<T> => info !== null);
}

/** What listSchedules() reports of one schedule; null (and a warning) when its definition is unreadable. */
async function infoOf<T>(ctx: Context, queue: string, name: string, json: string, at: string | undefined, now: number): Promise<ScheduleInfo<T> | null> {
  let d: Definition;
  let data: T | null;
  let latest: number | null;
  let pending: number[];
  try {
    d = parseDefinition(name, json);
    data = dataOf<T>(ctx, name, d, true);
    latest = latestOf(name, at);
    pending = await pendingRuns(ctx, queue, name, d, latest, now);
  } catch (err) {
    // A failed read (Redis down) is not the record's fault: it fails the call, as any read does.
    if (!(err instanceof UnreadableRecordError)) throw err;
    ctx.log.warn({ queue, schedule: name, ...errorFields(err) }, 'docket: a schedule record is unreadable; it is left out');
    return null;
  }
  return {
    name,
    queue,
    cron: d.cron ?? null,
    tz: d.tz ?? null,
    every: d.every ?? null,
    data,
    ...(data === null && isSealed(d.data) ? { encrypted: true as const } : {}),
    latest,
    stored: d.stored === true,
    paused: d.paused === true,
    next: nextRun(d, occurrencesOf(d), latest, now, pending),
    template: d.template ?? {},
    startAt: d.startAt ?? null,
    endAt: d.endAt ?? null,
    limit: d.limit ?? null,
  };
}

/**
 * The run-at of each pending occurrence of schedule `name` that waits for a time after `now`
 * (delayed, or waiting on others): a run-at moved by reschedule() included, and none of those run
 * or cancelled.
 */
async function pendingRuns(ctx: Context, queue: string, name: string, d: Definition, latest: number | null, now: number): Promise<number[]> {
  if (latest === null || d.paused) return [];
  const keys = ctx.keys(queue);
  const taskName = d.template?.taskName;
  const records = await Promise.all(mayBePending(d, latest).map((at) => ctx.scripts.run(get, keys, { id: occurrenceHash(ctx, queue, name, at, taskName) })));
  const runs = records.filter((r) => r !== null && (r.state === 'delayed' || r.state === 'waiting')).map((r) => parseMeta((r as TaskRecord).meta, `a task of schedule ${name}`).r);
  // One due already runs as soon as a worker is free: the next run is still ahead.
  return runs.filter((at) => at > now);
}

/**
 * Deletes a schedule: no process puts its occurrences any more, and its pending occurrences (put
 * ahead, not yet run) are cancelled. Answers false when there was no such schedule.
 */
export async function unschedule(ctx: Context, queue: string, name: unknown): Promise<boolean> {
  const checked = parse(scheduleName, name, 'name');
  const keys = ctx.keys(queue);
  // Read before the delete, for the pending occurrences' times and task name.
  const json = await hget(routed(ctx.conn, keys.schedules, { ms: ctx.options.commandTimeout, what: 'unschedule' }), keys.schedules, checked);
  const { existed, latest } = await ctx.scripts.run(unscheduleOp, keys, { name: checked });
  // The occurrences are ordinary tasks, identified by their keys: cancel them unless they have run
  // or are running (cancel leaves an active task to its worker).
  await cancelPending(ctx, queue, checked, json, latest);
  return existed;
}
