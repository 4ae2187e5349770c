import { milliseconds } from 'date-fns/milliseconds';
import type { Duration } from 'date-fns';

export type { Duration };

/**
 * A span of time as callers may give it: milliseconds, or a date-fns Duration ({ minutes: 5 }).
 * Spans are relative; docket turns them into absolute times on the Redis server's clock, never on
 * this process's clock, so a client whose clock is off cannot make a task run early.
 */
export type Span = number | Duration;

/** Milliseconds in a span, rounded to a whole millisecond. Months and years use date-fns' averages. */
export function spanToMs(span: Span): number {
  return Math.round(typeof span === 'number' ? span : milliseconds(span));
}

/** Epoch milliseconds of an absolute time given as a Date or a number. */
export function instantToMs(at: Date | number): number {
  return Math.round(typeof at === 'number' ? at : at.getTime());
}
