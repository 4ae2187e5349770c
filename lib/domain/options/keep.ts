/**
 * keep(options): how many finished tasks a queue keeps, and how long, separately for done tasks
 * (its history) and dead ones. A queue's own setting, stored in Redis, so every worker applies it.
 */
import { z } from 'zod';
import { queueName } from './names';
import { positiveSpan } from './values';

/** The most finished tasks of one kind a queue keeps: enough for any history, bounded all the same. */
export const MAX_KEPT = 10_000_000;

const keptCount = z
  .number({ error: 'expected a number' })
  .int({ error: 'expected a whole number' })
  .min(0, { error: `must be from 0 to ${MAX_KEPT}` })
  .max(MAX_KEPT, { error: `must be from 0 to ${MAX_KEPT}` });

/** One kind's caps; a cap left out stays as it was (the default until set). */
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
