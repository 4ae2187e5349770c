/**
 * Recurring tasks as callers see them: a schedule (cron or interval), the task template each
 * occurrence gets, every()'s and schedule()'s options, what listSchedules() reports, and the
 * Scheduler's calls on schedules. The loops that put occurrences: lib/features/recurring.ts,
 * schedules.ts.
 */
import type { DocketError } from './errors';
import type { Json, JsonCompatible } from './json';
import type { PutResult } from './put';
import type { QueueOption } from './queue';
import type { TaskKeep } from './task';
import type { Duration, Span } from './time';

/** A cron expression, the same with a time zone, or an interval (ms or Duration). */
export type Schedule =
  | string
  | {
      /** A cron expression (five fields, or six with seconds first). */
      cron: string;
      /** The IANA time zone it is read in (`'Europe/Paris'`). Default: UTC. */
      tz?: string;
    }
  | number
  | Duration;

/** What each occurrence's task gets, for every() and schedule() alike: put's options, as put takes them. */
export interface TaskTemplateOptions {
  /** The queue each occurrence goes to (a schedule's name is per queue). Default: the scheduler's `queue`. */
  queue?: string;
  /** The task's name, which `work({ [name]: handler })` routes by. Default none (the '*' handler). */
  taskName?: string;
  /** The fair-scheduling group of each occurrence (see put's group). Default none. */
  group?: string;
  /** Occurrences' priority, as put's: a level 0-9, or true for 9. Default normal. */
  priority?: boolean | number;
  /** How long one attempt of an occurrence may run (see put's timeout). Default: none. */
  timeout?: Span;
  /** An occurrence not claimed within this span after its time is dropped. Default: none. */
  expire?: Span;
  /** Deliveries of one occurrence before it goes dead. Default 5. */
  maxAttempts?: number;
  /**
   * Keep each occurrence's outcome this long once it finishes, for result() (see put's keepResult;
   * at most 30 days). The de-dup modes do not apply: each occurrence is an identity of its own, put
   * once. Default: none.
   */
  keepResult?: Span;
  /**
   * What the queue keeps once an occurrence is done, instead of its caps (see put's keep):
   * `{ done: false }` keeps occurrences out of the history. Default: the queue's caps.
   */
  keep?: TaskKeep;
  /** Until when an occurrence's identity is held: `'until-done'` (default) or `'until-start'` (see put's unique). */
  unique?: 'until-done' | 'until-start';
  /**
   * Occurrences that fell due while nothing put them (every(): no process declared the schedule;
   * schedule(): no worker of the queue looked), or while the loop was more than one occurrence
   * late: `'skip'` them (default), put the latest `'once'`, or `'catch-up'` on the latest
   * `catchUpLimit` of them. Those put run at once.
   */
  missed?: 'skip' | 'once' | 'catch-up';
  /** Most missed occurrences that `'catch-up'` puts, 1 to 100. Default 10. */
  catchUpLimit?: number;
}

/** Options of {@link Scheduler.every}: the task template, and where the loop's errors go. */
export interface EveryOptions extends TaskTemplateOptions {
  /**
   * Errors of the loop that puts occurrences (a Redis outage, say); it retries every second on its
   * own. every() only: schedule()'s looks log theirs through the scheduler's logger. Default: none
   * reported.
   */
  onError?: (err: DocketError) => void;
}

/** A schedule as listSchedules() reports it. */
export interface ScheduleInfo<T = Json> {
  /** The schedule's name, unique in its queue. */
  name: string;
  /** The queue its occurrences go to. */
  queue: string;
  /** The cron expression, or null for an interval. */
  cron: string | null;
  /** The cron expression's time zone, or null for an interval. */
  tz: string | null;
  /** The interval in ms, or null for a cron expression. */
  every: number | null;
  /**
   * The data each occurrence carries, typed as listSchedules<T>() asks; null when it is encrypted
   * with a key this scheduler does not have ({@link SchedulerOptions.encryption}), with `encrypted`
   * then true: never a throw.
   */
  data: T | null;
  /** Present (true) only when `data` is encrypted with a key this scheduler does not have: it reads as null. */
  encrypted?: true;
  /**
   * The latest occurrence put (epoch ms, Redis clock), or null before the first: the pending one
   * while the schedule runs (for a stored schedule, up to 3 s ahead).
   */
  latest: number | null;
  /** Stored with schedule() (every work() loop of the queue keeps it going), or declared with every(). */
  stored: boolean;
  /** Paused with pauseSchedule(): none of its occurrences is put until resumeSchedule(). */
  paused: boolean;
  /**
   * The next occurrence to run (epoch ms, Redis clock): the earliest one put and still waiting for
   * its run-at (as reschedule() left it), or else the next not put yet; one run early or cancelled
   * is not next. Null while paused, or past `endAt` or `limit`.
   */
  next: number | null;
  /**
   * The task template: what each occurrence's task gets (taskName, group, priority, timeout, expire,
   * maxAttempts, keepResult, keep, unique), as given or defaulted, spans in ms and priority as its
   * level. Empty for a schedule written before 0.9.
   */
  template: Partial<TaskTemplate>;
  /**
   * schedule()'s bounds: no occurrence before `startAt`, after `endAt`, or past `limit` of them;
   * each null when not given, and for every().
   */
  startAt: number | null;
  /** No occurrence after this instant (epoch ms), or null: see `startAt`. */
  endAt: number | null;
  /** The most occurrences, or null for no limit: see `startAt`. */
  limit: number | null;
}

/** Options of {@link Scheduler.schedule}: the task template, and the schedule's bounds. */
export interface ScheduleOptions extends TaskTemplateOptions {
  /** No occurrence before this instant. Default: from now. */
  startAt?: Date | number;
  /**
   * No occurrence after this instant. Not before `startAt`: a ValidationError naming `endAt`.
   * Default: none.
   */
  endAt?: Date | number;
  /**
   * The most occurrences, 1 to 100,000, counted from the first at or after `startAt` (or the
   * schedule() call): the schedule ends after the `limit`th. Occurrences skipped as missed count too.
   * Default: none.
   */
  limit?: number;
}

/** The calls on recurring schedules: declared by a process (every()) or stored in Redis (schedule()). Part of {@link Scheduler}. */
export interface SchedulerSchedules {
  /**
   * Declares a recurring schedule: each occurrence becomes a normal task (run-at = the occurrence),
   * put exactly once however many processes declare the same schedule. Resolves once the schedule
   * is recorded and its next occurrence put; this process then keeps it going until close().
   */
  every(name: string, schedule: Schedule, data: Json, options?: EveryOptions): Promise<void>;
  /** every() with data of any JSON type, an interface included, as put's second form. */
  every<T>(name: string, schedule: Schedule, data: T & JsonCompatible<T>, options?: EveryOptions): Promise<void>;
  /**
   * Stores (or replaces) a schedule in Redis: every work() loop of its queue, in any process, puts
   * its occurrences, each exactly once, with `options`' task template. Resolves once it is stored
   * and its first occurrences are put; no process needs to keep declaring it.
   */
  schedule(name: string, schedule: Schedule, data: Json, options?: ScheduleOptions): Promise<void>;
  /** schedule() with data of any JSON type, an interface included, as put's second form. */
  schedule<T>(name: string, schedule: Schedule, data: T & JsonCompatible<T>, options?: ScheduleOptions): Promise<void>;
  /** Deletes a schedule everywhere and cancels its pending occurrences; false when there was none. */
  unschedule(name: string, options?: QueueOption): Promise<boolean>;
  /** The schedules of a queue, by name, with their next run and paused state. */
  listSchedules<T = Json>(options?: QueueOption): Promise<ScheduleInfo<T>[]>;
  /** Stops a schedule's occurrences everywhere and cancels those put ahead; false when it was paused already, or there is none. */
  pauseSchedule(name: string, options?: QueueOption): Promise<boolean>;
  /** Restarts a paused schedule from its next time (those that fell due while paused are skipped); false when it was not paused, or there is none. */
  resumeSchedule(name: string, options?: QueueOption): Promise<boolean>;
  /** Puts one task of a schedule now, with its data and task template, paused or not; null when there is no such schedule. */
  runScheduleNow(name: string, options?: QueueOption): Promise<PutResult | null>;
}

/**
 * The task template of a schedule, as stored with its definition: every()'s and schedule()'s
 * template options as checked, spans in ms and priority as its level (domain/options/schedules.ts
 * checks at compile time that its schema's output is this).
 */
export interface TaskTemplate {
  taskName?: string;
  group?: string;
  priority: number;
  timeout?: number;
  expire?: number;
  maxAttempts: number;
  keepResult?: number;
  keep?: { done?: false | { count?: number; age?: number }; dead?: false | { count?: number; age?: number } };
  unique: 'until-done' | 'until-start';
}
