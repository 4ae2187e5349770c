/**
 * Recurring schedules as every() and schedule() take them: the schedule itself (cron, cron in a
 * time zone, or an interval) and the template of the tasks its occurrences become. An occurrence
 * is a task, so the template's options are put's, with put's bounds, plus what only a schedule has
 * (missed runs; for a stored schedule, its start, end and number of occurrences).
 */
import { z } from 'zod';
import { DEFAULT_MAX_ATTEMPTS, type Agreed } from '../domain';
import type { DocketError } from '../../types/errors';
import type { TaskTemplate as PublicTaskTemplate } from '../../types/schedules';
import { taskKeep } from './keep';
import { groupName, queueName, taskName } from './names';
import { count, fn, instant, keepResult, positiveSpan, priority, runTimeout, span } from './values';

/** Occurrences closer than this are refused: each occurrence is a task, with its round trips. */
export const MIN_INTERVAL_MS = 100;
/** The most occurrences a stored schedule's `limit` may count. */
export const MAX_OCCURRENCES = 100_000;

const cronText = z.string({ error: 'expected a string' }).min(1).max(256);
const tzText = z.string({ error: 'expected a string' }).min(1).max(64);
const interval = span.refine((ms) => ms >= MIN_INTERVAL_MS, { error: `an interval must be at least ${MIN_INTERVAL_MS} ms` });
/**
 * A schedule: a cron expression (5 fields, or 6 with seconds first), the same with a time zone
 * (`{ cron, tz }`, an IANA name; default UTC), or an interval in ms or as a Duration.
 */
export const scheduleArg = z.union(
  [cronText.transform((cron) => ({ cron, tz: 'UTC' })), z.strictObject({ cron: cronText, tz: tzText.default('UTC') }), interval.transform((every) => ({ every }))],
  { error: 'expected a cron expression, { cron, tz }, or an interval in ms or as a Duration' },
);

/** What each occurrence's task gets: put's options that make sense for every occurrence alike. */
const template = {
  queue: queueName.optional(),
  /** The task's name, which work({ name: handler }) routes by. */
  taskName: taskName.optional(),
  group: groupName.optional(),
  priority: priority.default(0),
  timeout: runTimeout.optional(),
  expire: positiveSpan.optional(),
  maxAttempts: count(1000).default(DEFAULT_MAX_ATTEMPTS),
  /** Keep each occurrence's outcome this long once it finishes (see put's keepResult). */
  keepResult: keepResult.optional(),
  /** What the queue keeps once an occurrence is done (see put's keep). */
  keep: taskKeep.optional(),
  unique: z.enum(['until-done', 'until-start'], { error: "expected 'until-done' or 'until-start'" }).default('until-done'),
  /** Occurrences missed while nothing put them: none, the latest, or the latest `catchUpLimit`. */
  missed: z.enum(['skip', 'once', 'catch-up'], { error: "expected 'skip', 'once' or 'catch-up'" }).default('skip'),
  catchUpLimit: count(100).default(10),
};

export const everyOptions = z.strictObject({
  ...template,
  /** Called with the errors of the background loop that puts occurrences; it retries on its own. */
  onError: fn<(err: DocketError) => void>().optional(),
});

export const scheduleOptions = z
  .strictObject({
    ...template,
    /** No occurrence before this instant. */
    startAt: instant.optional(),
    /** No occurrence after this instant. */
    endAt: instant.optional(),
    /** The most occurrences, counted from the first at or after startAt (or the schedule() call). */
    limit: count(MAX_OCCURRENCES).optional(),
  })
  .refine((o) => o.startAt === undefined || o.endAt === undefined || o.startAt <= o.endAt, { error: 'must not be before startAt', path: ['endAt'] });

/** The stored template: no queue (a definition lives in its queue) and no missed-run policy (stored beside it). */
const { queue: _queue, missed, catchUpLimit, ...taskTemplate } = template;

/**
 * A definition as the schedules hash keeps it (features/schedules-record.ts), checked when it is
 * read back with the checks it was written with: a record no every() or schedule() writes (data
 * that is not text, a catch-up limit of 1e8) is refused rather than acted on. Not strict: a field
 * a later version adds is no reason to stop.
 */
export const storedDefinition = z
  .object({
    cron: cronText.optional(),
    tz: tzText.optional(),
    every: interval.optional(),
    /** The canonical JSON of each occurrence's data, sealed or not. */
    data: z.string({ error: 'expected a string' }),
    stored: z.literal(true).optional(),
    paused: z.literal(true).optional(),
    template: z.object(taskTemplate).optional(),
    missed,
    catchUpLimit,
    startAt: instant.optional(),
    endAt: instant.optional(),
    limit: count(MAX_OCCURRENCES).optional(),
    last: instant.optional(),
  })
  .refine((d) => (d.cron === undefined) !== (d.every === undefined), { error: 'expected a cron expression or an interval', path: ['cron'] });

/**
 * The task template of a schedule, as stored with its definition: the public TaskTemplate
 * (lib/types/schedules.ts, which ScheduleInfo shows), checked at compile time against what this
 * schema makes of every()'s options.
 */
export type TaskTemplate = Agreed<
  Pick<z.output<typeof everyOptions>, 'taskName' | 'group' | 'priority' | 'timeout' | 'expire' | 'maxAttempts' | 'keepResult' | 'keep' | 'unique'>,
  PublicTaskTemplate
>;
export type ParsedSchedule = z.output<typeof scheduleArg>;
export type ParsedEveryOptions = z.output<typeof everyOptions>;
export type ParsedScheduleOptions = z.output<typeof scheduleOptions>;
