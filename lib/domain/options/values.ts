/**
 * The kinds of value options take: spans, instants, counts, priorities, functions and signals.
 * Each kind has one check, one error wording and one bound, so every option of a kind accepts the
 * same values: a span is a span whether it is a lease, a delay or a keepResult. The bounds are why
 * the kinds exist at all: they keep every time printable, countable by one timer, and exact after
 * a round trip through Lua (see MAX_INSTANT_MS).
 */
import { z } from 'zod';
import { spanToMs, instantToMs } from '../../types/time';

const unit = z.number().finite({ error: 'must be a finite number >= 0' }).nonnegative({ error: 'must be a finite number >= 0' }).optional();
/** A Duration (types/time.ts, the shape of date-fns' own), with every unit it knows. */
const durationObject = z.strictObject({
  years: unit,
  months: unit,
  weeks: unit,
  days: unit,
  hours: unit,
  minutes: unit,
  seconds: unit,
});
const SPAN_HINT = 'expected milliseconds (a finite number >= 0) or a Duration such as { minutes: 5 }';

/**
 * The latest instant docket accepts (the end of year 4999, UTC), and the longest span (100 years).
 * A run-at beyond what a Date can show (1e300 was accepted once) broke every view that printed it.
 * And Redis's Lua writes a number with 14 significant digits (cjson.encode, tostring, `..`), so a
 * time of 1e14 ms (16 November 5138) or later came back changed from a task's record: the end of
 * the year 9999 came back 1 ms later. The latest run-at plus the longest span (an expire counts
 * from the run-at) stays under 1e14.
 */
export const MAX_INSTANT_MS = Date.UTC(4999, 11, 31, 23, 59, 59, 999);
export const MAX_SPAN_MS = 100 * 365.25 * 24 * 3600 * 1000;

/** A relative span: ms or a Duration, turned into whole milliseconds. */
export const span = z
  .union([z.number().finite({ error: SPAN_HINT }).nonnegative({ error: SPAN_HINT }), durationObject], { error: SPAN_HINT })
  .transform((value) => spanToMs(value))
  .refine((ms) => ms <= MAX_SPAN_MS, { error: `must be at most 100 years (${MAX_SPAN_MS} ms)` });

export const positiveSpan = span.refine((ms) => ms > 0, { error: 'must be longer than 0 ms' });

/** The longest a finished task's outcome is kept (keepResult): 30 days. */
export const MAX_KEEP_RESULT_MS = 30 * 24 * 3600 * 1000;
/** The longest run timeout: what one timer can count (setTimeout fires at once beyond it), about 24 days. */
export const MAX_RUN_TIMEOUT_MS = 2 ** 31 - 1;
/**
 * The longest span this process counts with a timer (Node's setTimeout and setInterval fire after
 * 1 ms beyond it): commandTimeout, work()'s lease (renewed every third of it), shutdownTimeout.
 * A commandTimeout of a year timed every call out at once before this bound.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;
export const timerSpan = <S extends z.ZodType<number>>(base: S) => base.refine((ms) => ms <= MAX_TIMER_MS, { error: `must be at most 24 days (${MAX_TIMER_MS} ms): a timer counts it` });
export const runTimeout = positiveSpan.refine((ms) => ms <= MAX_RUN_TIMEOUT_MS, { error: `must be at most 24 days (${MAX_RUN_TIMEOUT_MS} ms)` });

/** The longest de-dup window: 30 days. */
export const MAX_DEDUP_WINDOW_MS = 30 * 24 * 3600 * 1000;
export const keepResult = positiveSpan.refine((ms) => ms <= MAX_KEEP_RESULT_MS, { error: `must be at most 30 days (${MAX_KEEP_RESULT_MS} ms)` });

const INSTANT_HINT = 'expected a valid Date or epoch milliseconds >= 0';
export const instant = z
  .union([z.number().finite({ error: INSTANT_HINT }).nonnegative({ error: INSTANT_HINT }), z.date().refine((d) => !Number.isNaN(d.getTime()), { error: INSTANT_HINT })], {
    error: INSTANT_HINT,
  })
  .transform((value) => instantToMs(value))
  .refine((ms) => ms <= MAX_INSTANT_MS, { error: `must be no later than the end of the year 4999 (${MAX_INSTANT_MS} ms)` });

/** A whole number from 1 to `max`. */
export const count = (max: number) =>
  z
    .number({ error: 'expected a number' })
    .int({ error: 'expected a whole number' })
    .min(1, { error: `must be from 1 to ${max}` })
    .max(max, { error: `must be from 1 to ${max}` });

/** A function option: checked to be one, and passed through as it is. */
export const fn = <F>() => z.custom<F>((v) => typeof v === 'function', { error: 'expected a function' });

export const abortSignal = z.custom<AbortSignal>((v) => v instanceof AbortSignal, { error: 'expected an AbortSignal' });

/** Highest priority level; `priority: true` means this one. */
export const MAX_LEVEL = 9;
/** A priority: false (0, normal), true (the highest level), or a level 0-9; parsed to the level. */
export const priority = z
  .union([z.boolean(), z.number().int().min(0).max(MAX_LEVEL)], { error: `expected a boolean or a whole number from 0 to ${MAX_LEVEL}` })
  .transform((p) => (p === true ? MAX_LEVEL : p === false ? 0 : p));

export const instantArg = instant;
/** A priority given on its own (changePriority), checked as put's option: parsed to the level 0-9. */
export const priorityArg = priority;
export const spanArg = positiveSpan;
export const countArg = count(1000);
