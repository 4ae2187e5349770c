/**
 * A recurring schedule as every() takes it: the schedule itself (cron, cron in a time zone, or an
 * interval) and the options of the tasks its occurrences become. An occurrence is a task, so the
 * task options here are put's, with put's bounds, plus what only a schedule has (missed runs).
 */
import { z } from 'zod';
import { DEFAULT_MAX_ATTEMPTS } from '../domain';
import type { DocketError } from '../errors';
import { queueName } from './names';
import { count, fn, keepResult, positiveSpan, priority, span } from './values';

/** Occurrences closer than this are refused: each occurrence is a task, with its round trips. */
export const MIN_INTERVAL_MS = 100;

const cronText = z.string({ error: 'expected a string' }).min(1).max(256);
/**
 * A schedule: a cron expression (5 fields, or 6 with seconds first), the same with a time zone
 * (`{ cron, tz }`, an IANA name; default UTC), or an interval in ms or as a Duration.
 */
export const scheduleArg = z.union(
  [
    cronText.transform((cron) => ({ cron, tz: 'UTC' })),
    z.strictObject({ cron: cronText, tz: z.string({ error: 'expected a string' }).min(1).max(64).default('UTC') }),
    span.refine((ms) => ms >= MIN_INTERVAL_MS, { error: `an interval must be at least ${MIN_INTERVAL_MS} ms` }).transform((every) => ({ every })),
  ],
  { error: 'expected a cron expression, { cron, tz }, or an interval in ms or as a Duration' },
);

export const everyOptions = z.strictObject({
  queue: queueName.optional(),
  priority: priority.default(0),
  expire: positiveSpan.optional(),
  maxAttempts: count(1000).default(DEFAULT_MAX_ATTEMPTS),
  /** Occurrences missed while no process declared the schedule: none, the latest, or the latest `catchUpLimit`. */
  missed: z.enum(['skip', 'once', 'catch-up'], { error: "expected 'skip', 'once' or 'catch-up'" }).default('skip'),
  catchUpLimit: count(100).default(10),
  /** Keep each occurrence's outcome this long once it finishes (see put's keepResult). */
  keepResult: keepResult.optional(),
  /** Called with the errors of the background loop that puts occurrences; it retries on its own. */
  onError: fn<(err: DocketError) => void>().optional(),
});

export type ParsedSchedule = z.output<typeof scheduleArg>;
export type ParsedEveryOptions = z.output<typeof everyOptions>;
