/**
 * keep(options): how many finished tasks a queue keeps, and how long, separately for done tasks
 * (its history) and dead ones. A queue's own setting, stored in Redis, so every worker applies it.
 */
import { z } from 'zod';
import { queueName } from './names';
import { positiveSpan } from './values';

/** The most finished tasks of one kind a queue keeps: enough for any history, bounded all the same. */
export const MAX_KEPT = 10_000_000;

// Whole by a refinement, not .int(): zod reports .int() as a wrong type, which a union (put's
// `keep: { done: false | caps }`) would answer for the union as a whole, not for `count`.
const keptCount = z
  .number({ error: 'expected a number' })
  .refine(Number.isInteger, { error: 'expected a whole number' })
  .refine((n) => n >= 0 && n <= MAX_KEPT, { error: `must be from 0 to ${MAX_KEPT}` });

/**
 * One kind's caps. A cap left out is, for keep(), the default for done and as it was for dead
 * (life/history.ts); for put's `keep`, the queue's.
 */
const caps = z.strictObject({
  /** How many are kept: the oldest beyond it go. 0 keeps none (for done: history off). */
  count: keptCount.optional(),
  /** How long each is kept (ms or a Duration). */
  age: positiveSpan.optional(),
});

export const keepOptions = z.strictObject({
  queue: queueName.optional(),
  done: caps.optional(),
  dead: caps.optional(),
});

export type KeepOptionsInput = z.input<typeof keepOptions>;

/** One kind's caps for one task (put's `keep`): false keeps it not at all, else its own caps. */
const taskCaps = z.union([z.literal(false), caps], { error: 'expected false or { count?, age? }' });

/**
 * put's `keep`: the caps the trim of THIS task's finish uses instead of the queue's (BullMQ's
 * removeOnComplete and removeOnFail), per kind; a cap left out is the queue's. `false`: the task is
 * not kept when it finishes that way.
 */
export const taskKeep = z.strictObject({
  done: taskCaps.optional(),
  dead: taskCaps.optional(),
});

export type TaskKeepInput = z.input<typeof taskKeep>;
