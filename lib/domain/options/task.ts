/**
 * A task's options: put's (its run-at, priority, identity, retries, what it waits on) and those of
 * the calls that name one task afterwards by its hash (reschedule, changePriority, cancel,
 * redrive, result, dependencies). They are one concept because the later calls move or read what
 * put set, within the same bounds.
 */
import { z } from 'zod';
import { DEFAULT_MAX_ATTEMPTS } from '../domain';
import { taskKeep } from './keep';
import { groupName, isWellFormed, queueName, taskHash, taskName, wellFormed } from './names';
import { count, instant, keepResult, MAX_DEDUP_WINDOW_MS, positiveSpan, priority, runTimeout, span } from './values';

/** The most tasks one put may wait on (`after`). */
export const MAX_AFTER = 10_000;
/** A hash a put waits on: hashes hold no '|' (dependency indexes split at it). */
const dependencyHash = taskHash.regex(/^[^|]*$/, { error: "must have no '|'" });
/** A task a put waits on: a hash of the same queue, or { queue, hash } of any queue. */
const dependencyRef = z.union([dependencyHash, z.strictObject({ queue: queueName, hash: dependencyHash })], {
  error: 'expected a hash string or { queue, hash }',
});

export const putOptions = z
  .strictObject({
    queue: queueName.optional(),
    priority: priority.default(0),
    group: groupName.optional(),
    delay: span.optional(),
    at: instant.optional(),
    expire: positiveSpan.optional(),
    key: z.string({ error: 'expected a string' }).min(1).max(1024).refine(isWellFormed, wellFormed).optional(),
    name: taskName.optional(),
    maxAttempts: count(1000).default(DEFAULT_MAX_ATTEMPTS),
    keepResult: keepResult.optional(),
    keep: taskKeep.optional(),
    unique: z.enum(['until-done', 'until-start'], { error: "expected 'until-done' or 'until-start'" }).default('until-done'),
    dedupWindow: positiveSpan.refine((ms) => ms <= MAX_DEDUP_WINDOW_MS, { error: `must be at most 30 days (${MAX_DEDUP_WINDOW_MS} ms)` }).optional(),
    onDuplicate: z.enum(['keep', 'replace', 'debounce'], { error: "expected 'keep', 'replace' or 'debounce'" }).default('keep'),
    timeout: runTimeout.optional(),
    after: z
      .array(dependencyRef, { error: 'expected an array of hashes or { queue, hash }' })
      .max(MAX_AFTER, { error: `must name at most ${MAX_AFTER} tasks` })
      .optional(),
    onDependencyFailure: z.enum(['dead', 'run', 'cancel'], { error: "expected 'dead', 'run' or 'cancel'" }).default('dead'),
  })
  .refine((o) => o.delay === undefined || o.at === undefined, {
    error: 'give either delay or at, not both',
    path: ['at'],
  });

/** The options of a call that takes only the queue its task or tasks are in (get, logs, stats...). */
export const queueOptions = z.strictObject({ queue: queueName.optional() });

/** reschedule, changePriority and cancel: `explain` answers why a refused change was refused. */
export const changeOptions = z.strictObject({ queue: queueName.optional(), explain: z.boolean().optional() });
/** cancel()'s: a change's, and `running` to cancel an active task too (its holder stops it). */
export const cancelOptions = changeOptions.extend({ running: z.boolean().optional() });

/** The longest result() waits: what one timer can count (setTimeout fires at once beyond it). */
export const MAX_WAIT_MS = 2 ** 31 - 1;

export const resultOptions = z.strictObject({
  queue: queueName.optional(),
  /** How long to wait for the task to finish; 0 (default) answers at once. */
  wait: span.refine((ms) => ms <= MAX_WAIT_MS, { error: `must be at most 24 days (${MAX_WAIT_MS} ms)` }).default(0),
});

/** dependencies(hash, options): `limit` reads the outcomes of the first so many only. */
export const dependenciesOptions = z.strictObject({
  queue: queueName.optional(),
  limit: z.int({ error: 'expected a whole number' }).min(1, { error: 'must be at least 1' }).optional(),
});
