/**
 * Spans and instants as callers give them, turned into milliseconds. The Duration type and its
 * arithmetic are docket's own: they were date-fns' (`Duration`, `milliseconds()`), which put 28 MB
 * into every install for these few lines (docs/design.md#dependencies has the figures). The shape
 * and the arithmetic are the same, so a date-fns Duration is still a docket Duration.
 */

/** A length of time by units, as date-fns spells it: `{ minutes: 5 }`, `{ days: 1, hours: 2 }`. */
export interface Duration {
  /** Years of 365.2425 days (the mean Gregorian year). */
  years?: number;
  /** Months of a twelfth of a year (30.436875 days). */
  months?: number;
  /** Weeks of 7 days. */
  weeks?: number;
  /** Days of 24 hours. */
  days?: number;
  /** Hours. */
  hours?: number;
  /** Minutes. */
  minutes?: number;
  /** Seconds; fractions count, down to the millisecond. */
  seconds?: number;
}

/**
 * A span of time as callers may give it: milliseconds, or a Duration ({ minutes: 5 }).
 * Spans are relative; docket turns them into absolute times on the Redis server's clock, never on
 * this process's clock, so a client whose clock is off cannot make a task run early.
 */
export type Span = number | Duration;

/** The mean Gregorian year, in days (365 + 1/4 - 1/100 + 1/400): date-fns' `daysInYear`. */
const DAYS_IN_YEAR = 365.2425;

/**
 * Milliseconds in a span. A number is rounded to a whole millisecond; a Duration is summed as
 * date-fns' `milliseconds()` sums it: a year is 365.2425 days, a month a twelfth of that
 * (30.436875 days), and the total is cut (not rounded) to a whole millisecond.
 */
export function spanToMs(span: Span): number {
  if (typeof span === 'number') return Math.round(span);
  const { years = 0, months = 0, weeks = 0, days = 0, hours = 0, minutes = 0, seconds = 0 } = span;
  const totalDays = years * DAYS_IN_YEAR + months * (DAYS_IN_YEAR / 12) + weeks * 7 + days;
  return Math.trunc((totalDays * 24 * 3600 + hours * 3600 + minutes * 60 + seconds) * 1000);
}

/** Epoch milliseconds of an absolute time given as a Date or a number. */
export function instantToMs(at: Date | number): number {
  return Math.round(typeof at === 'number' ? at : at.getTime());
}
