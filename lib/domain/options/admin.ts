/**
 * The options of looking at and clearing a queue as a whole: list() and listDead() pages, clean()
 * and obliterate(). The CLI and the dashboard page and clean with the same calls, so they share
 * these states and bounds rather than keep their own.
 */
import { z } from 'zod';
import { LISTED_STATES } from '../domain';
import { queueName } from './names';
import { span } from './values';

/** The states clean() deletes from: pending tasks (ready, delayed) and dead ones. */
export const CLEAN_STATES = ['ready', 'delayed', 'dead'] as const;

/** clean(options): which tasks of a queue to delete, in batches. */
export const cleanOptions = z.strictObject({
  queue: queueName.optional(),
  state: z.enum(CLEAN_STATES, { error: "expected 'ready', 'delayed' or 'dead'" }),
  /** Only tasks put (dead ones: died) at least this long ago, on the Redis clock. */
  olderThan: span.optional(),
  /** Most tasks to delete in all. Default: every one that matches. */
  limit: z.int({ error: 'expected a whole number' }).min(1, { error: 'must be at least 1' }).max(Number.MAX_SAFE_INTEGER, { error: 'must be a safe integer' }).optional(),
});

/** obliterate(options): `force` deletes the queue even while tasks of it are leased. */
export const obliterateOptions = z.strictObject({
  queue: queueName.optional(),
  force: z.boolean({ error: 'expected a boolean' }).default(false),
});

/** Every state a task can be listed in (list()), in the order the views show them. */
export const STATES = LISTED_STATES;
/** The states stats() counts: all but `done`, whose history is a record of the past, not work. */
export const COUNTED_STATES = STATES.filter((s): s is Exclude<(typeof STATES)[number], 'done'> => s !== 'done');
export const stateArg = z.enum(STATES, { error: `expected one of ${STATES.join(', ')}` });
/** Past this, a preview is no preview: a whole payload is what list() without it returns. */
export const MAX_PREVIEW_BYTES = 65_536;
const PREVIEW_HINT = `must be a whole number of bytes from 1 to ${MAX_PREVIEW_BYTES}`;

/** list(state, options) and listDead(options): a page of tasks, with or without previews. */
export const listOptions = z.strictObject({
  queue: queueName.optional(),
  limit: z.number().int().min(1, { error: 'must be from 1 to 1000' }).max(1000, { error: 'must be from 1 to 1000' }).default(100),
  offset: z.number().int().min(0, { error: 'must be 0 or more' }).default(0),
  preview: z.number({ error: PREVIEW_HINT }).int({ error: PREVIEW_HINT }).min(1, { error: PREVIEW_HINT }).max(MAX_PREVIEW_BYTES, { error: PREVIEW_HINT }).optional(),
});

/** listDead(options): list()'s options less `preview` (a DeadTask has its whole data). */
export const listDeadOptions = listOptions.omit({ preview: true });

export type CleanOptionsInput = z.input<typeof cleanOptions>;
export type ObliterateOptionsInput = z.input<typeof obliterateOptions>;
