/**
 * Schedules that live in Redis. `schedule(name, spec, data, options)` stores a definition (the
 * schedule, its data, the task template, its bounds) in the queue's `schedules` hash, and every
 * work() loop of the queue, in any process, keeps its occurrences put AHEAD_MS ahead (the
 * ScheduleRunner below, one per queue per scheduler). put.lua records the latest occurrence put
 * per schedule and skips any at or before it, so each occurrence is put exactly once however many
 * workers look; and since the next ones are put ahead as delayed tasks, none is lost while at
 * least one worker looks. every() keeps its own process-local loop (recurring.ts); both share the
 * hash, the `occurred` record, pause and resume, run-now and unschedule.
 */
import { hget } from '../ops/commands/hashes';
import { routed } from '../ops/commands/via';
import { serverTime, type Context } from '../redis/context';
import { errorFields } from '../domain/log';
import { parse, scheduleName, scheduleOptions } from '../domain/options';
import { canonicalJson } from '../domain/payload';
import type { Json } from '../types/json';
import type { PutResult } from '../types/put';
import { putOccurrences, putOne } from '../life/put';
import { hold } from '../ops/hold';
import { templateOf } from './recurring';
import { cancelPending, define } from './schedules-define';
import { dataOf, latestOf, occurrenceKey, occurrencesOf, parseDefinition, plan, readSchedules, storedData, taskOptions, type Definition } from './schedules-record';
import { Occurrences } from './schedules-times';

/**
 * How often each work() loop looks at its queue's stored schedules while the queue has some (a
 * look is three commands). A queue with none (most queues) costs nothing: the runner sleeps until
 * its workers' claims or beats say the queue has schedules (poke()). schedule() puts its first
 * occurrences itself, ahead of any look, and the earliest of them wakes an idle worker, whose claim
 * says so: a new schedule is looked at within a claim.
 */
const LOOK_MS = 1000;

/**
 * Stores (or replaces) schedule `name`, then puts its first occurrences, so that they are put even
 * before a worker looks. Replacing keeps its record of occurrences put, so none is put twice.
 */
export async function storeSchedule(ctx: Context, name: unknown, spec: unknown, data: unknown, options: unknown): Promise<void> {
  const checked = parse(scheduleName, name, 'name');
  const occurrences = Occurrences.of(spec);
  const canonical = canonicalJson(data as Json, 'data', { bytes: ctx.options.maxPayloadBytes });
  const opts = parse(scheduleOptions, options ?? {}, 'options');
  const queue = opts.queue ?? ctx.options.queue;
  const keys = ctx.keys(queue);
  const { missed, catchUpLimit, startAt, endAt, limit } = opts;
  const definition: Definition = { ...occurrences.definition, data: storedData(ctx, canonical), stored: true, template: templateOf(opts), missed, catchUpLimit, startAt, endAt, limit };
  if (limit !== undefined) {
    // The limit as a time: its last occurrence, so that no look needs to count what was put.
    const from = startAt === undefined ? await serverTime(ctx, keys.schedules, 'schedule') : startAt - 1;
    definition.last = occurrences.nth(from, limit);
  }
  await define(ctx, queue, checked, definition, canonical, 'schedule');
  await new ScheduleRunner(ctx, queue).look(checked);
}

/**
 * Pauses (or resumes) schedule `name` for every process; false when it was so already, or there is
 * no such schedule. Pausing cancels the occurrences put ahead; resuming skips those that fell due
 * while paused.
 */
export async function holdSchedule(ctx: Context, queue: string, name: unknown, paused: boolean): Promise<boolean> {
  const checked = parse(scheduleName, name, 'name');
  const keys = ctx.keys(queue);
  const held = await ctx.scripts.run(hold, keys, { name: checked, paused });
  if (paused && held.changed) {
    const json = await hget(routed(ctx.conn, keys.schedules, { ms: ctx.options.commandTimeout, what: 'pauseSchedule' }), keys.schedules, checked);
    await cancelPending(ctx, queue, checked, json, held.latest);
  }
  return held.changed;
}

/** Puts one task of schedule `name` now, with its data and template, outside its occurrences (paused or not); null when there is no such schedule. */
export async function runNow(ctx: Context, queue: string, name: unknown): Promise<PutResult | null> {
  const checked = parse(scheduleName, name, 'name');
  const keys = ctx.keys(queue);
  const deadline = { ms: ctx.options.commandTimeout, what: 'runNow' };
  const [json, now] = await Promise.all([hget(routed(ctx.conn, keys.schedules, deadline), keys.schedules, checked), serverTime(ctx, keys.schedules, 'runNow')]);
  if (json === null) return null;
  const d = parseDefinition(checked, json);
  const data = dataOf(ctx, checked, d, false) as Json;
  // A key of its own, so that it is not a duplicate of an occurrence or of a task with the same data.
  return putOne(ctx, data, taskOptions(queue, d.template, `${occurrenceKey(checked, now)}:now`), checked);
}

/**
 * What keeps a queue's stored schedules going: one per queue per scheduler that works the queue,
 * started by its first work() and stopped with its last. Each look reads the definitions and the
 * latest occurrence of each, and puts what plan() says is due; put.lua skips what another
 * process's look put already.
 */
export class ScheduleRunner {
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** Set while the queue has no schedules: no look until poke(). */
  private dormant = false;
  /** When start() ran (performance.now), until the first look: what fell due since then is late, not missed. */
  private startedAt: number | null = null;

  constructor(
    private readonly ctx: Context,
    private readonly queue: string,
  ) {}

  start(): void {
    this.stopped = false;
    this.startedAt = performance.now();
    this.next(0);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  /** The queue has stored schedules (a claim or beat said so): a dormant runner looks at once. */
  poke(): void {
    if (!this.dormant || this.stopped) return;
    this.dormant = false;
    this.next(0);
  }

  /** One look at every stored schedule of the queue, or at `only` that one. */
  async look(only?: string): Promise<void> {
    const keys = this.ctx.keys(this.queue);
    const [{ defs, latest }, now] = await Promise.all([readSchedules(this.ctx, this.queue, 'schedules'), serverTime(this.ctx, keys.schedules, 'schedules')]);
    // None: the runner sleeps until a claim or beat says there are some (poke()).
    if (only === undefined) this.dormant = defs.size === 0;
    // The worker was up from start(), before this first look: on the Redis clock, now less the
    // time since (read after the reply, so it errs early, towards putting).
    const upSince = only === undefined && this.startedAt !== null ? now - Math.ceil(performance.now() - this.startedAt) : undefined;
    if (only === undefined) this.startedAt = null;
    const puts = [...defs]
      .filter(([name]) => only === undefined || name === only)
      .map(([name, json]) => {
        const last = latest.get(name);
        return this.put(name, json, last, now, upSince);
      });
    // One schedule's failure (an unreadable definition) does not hold up the others'.
    const failed = (await Promise.allSettled(puts)).find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** Puts what is due of the schedule stored as `json`, unless it is every()'s or paused. */
  private async put(name: string, json: string, last: string | undefined, now: number, upSince: number | undefined): Promise<void> {
    const d = parseDefinition(name, json);
    const latest = latestOf(name, last);
    const occurrences = d.stored && !d.paused ? occurrencesOf(d) : null;
    if (occurrences === null) return;
    const due = plan(d, occurrences, latest, now, upSince);
    if (due.length === 0) return;
    const data = dataOf(this.ctx, name, d, false) as Json;
    const items = due.map((at) => ({ data, options: taskOptions(this.queue, d.template, occurrenceKey(name, at), at) }));
    await putOccurrences(this.ctx, this.queue, name, items);
  }

  private next(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.look()
        .catch((err: unknown) => this.ctx.log.warn({ queue: this.queue, ...errorFields(err) }, 'docket: a look at the stored schedules failed; the next look retries'))
        .finally(() => this.dormant || this.next(LOOK_MS));
    }, ms);
  }
}

/** The runners of a scheduler, one per queue it works, each started by the queue's first work() and stopped with its last. */
export class Runners {
  private readonly byQueue = new Map<string, { runner: ScheduleRunner; loops: number }>();

  constructor(private readonly ctx: Context) {}

  /** Counts one more loop on `queue`; `release` counts it off, `poke` says the queue has schedules. */
  acquire(queue: string): { release: () => void; poke: () => void } {
    let held = this.byQueue.get(queue);
    if (!held) {
      held = { runner: new ScheduleRunner(this.ctx, queue), loops: 0 };
      this.byQueue.set(queue, held);
      held.runner.start();
    }
    held.loops++;
    const entry = held;
    const release = () => {
      if (--entry.loops > 0) return;
      entry.runner.stop();
      if (this.byQueue.get(queue) === entry) this.byQueue.delete(queue);
    };
    return { release, poke: () => entry.runner.poke() };
  }
}
