/**
 * The options of leasing and of a worker loop: claim, fail, work() and a worker's close(), with
 * the heartbeat's bounds. A worker's options are read by the loop and by every stage of its
 * pipeline, so they are parsed once, here, into ParsedWorkOptions.
 */
import { z } from 'zod';
import type { DocketError } from '../../types/errors';
import { queueName } from './names';
import { abortSignal, count, fn, keepResult, positiveSpan, runTimeout, span, timerSpan } from './values';

export const claimOptions = z.strictObject({
  queue: queueName.optional(),
  lease: positiveSpan.default(30_000),
});

export const failOptions = z.strictObject({
  error: z.unknown().optional(),
  retryIn: span.optional(),
  /** Overrides the task's own maxAttempts for this decision (used by work()). */
  maxAttempts: count(1000).optional(),
});

/** Heartbeats (heartbeat.ts): the defaults recover a crashed worker's tasks in 2–2.5 s. */
export const HEARTBEAT_INTERVAL_MS = 500;
export const HEARTBEAT_DEADLINE_MS = 2000;
export const MIN_HEARTBEAT_INTERVAL_MS = 100;
export const MAX_HEARTBEAT_INTERVAL_MS = 60_000;
/** A longer deadline would keep a crashed worker's tasks waiting longer than a lease: the lease recovers them then. */
export const MAX_HEARTBEAT_DEADLINE_MS = 10 * 60_000;

export const workOptions = z
  .strictObject({
    queue: queueName.optional(),
    concurrency: count(1000).default(1),
    lease: timerSpan(positiveSpan).default(30_000),
    maxAttempts: count(1000).optional(),
    backoff: fn<(attempt: number, error: unknown) => number>().optional(),
    signal: abortSignal.optional(),
    /** Called with errors the worker recovered from (Redis errors, lost leases). docket logs nothing itself. */
    onError: fn<(err: DocketError) => void>().optional(),
    shutdownTimeout: timerSpan(span).default(30_000),
    handleSignals: z.boolean({ error: 'expected a boolean' }).default(false),
    /** How long a task's outcome is kept once it finishes, for tasks whose put gave none. */
    keepResult: keepResult.optional(),
    /** How long one attempt may run, for tasks whose put gave none. */
    timeout: runTimeout.optional(),
    /** Run the handler module (a path or file URL) in worker threads (sandbox.ts). */
    sandbox: z.boolean({ error: 'expected a boolean' }).default(false),
    /** How often the worker's heartbeat is sent (heartbeat.ts). */
    heartbeatInterval: positiveSpan
      .refine((ms) => ms >= MIN_HEARTBEAT_INTERVAL_MS && ms <= MAX_HEARTBEAT_INTERVAL_MS, { error: `must be from ${MIN_HEARTBEAT_INTERVAL_MS} ms to ${MAX_HEARTBEAT_INTERVAL_MS / 1000} s` })
      .default(HEARTBEAT_INTERVAL_MS),
    /** How old its last heartbeat may be before other workers take it for dead and re-run its tasks. */
    heartbeatDeadline: positiveSpan
      .refine((ms) => ms <= MAX_HEARTBEAT_DEADLINE_MS, { error: `must be at most ${MAX_HEARTBEAT_DEADLINE_MS / 60_000} minutes` })
      .default(HEARTBEAT_DEADLINE_MS),
    /** Most tasks leased beyond the free slots while handlers are quick (life/prefetch.ts). */
    prefetch: z
      .number({ error: 'expected a number' })
      .int({ error: 'expected a whole number' })
      .min(0, { error: 'must be from 0 to 100' })
      .max(100, { error: 'must be from 0 to 100' })
      .optional(),
  })
  .refine((o) => o.heartbeatDeadline >= 2 * o.heartbeatInterval, {
    // One late beat must not make a live worker look dead.
    error: 'must be at least twice heartbeatInterval',
    path: ['heartbeatDeadline'],
  });

/**
 * workBatch()'s options (life/batch.ts): work()'s, less sandbox and prefetch (a batch worker runs
 * its handler in-process and leases no task beyond its batches), plus `size`, the most tasks one
 * batch holds, and `wait`, how long a batch that has one task waits to fill (default 0: it takes
 * what is ready). The wait is at most half the lease: the tasks' leases run from their claim, and
 * the first extension comes a third of a lease after the batch starts.
 */
const { sandbox: _sandbox, prefetch: _prefetch, ...batchShape } = workOptions.shape;
export const batchOptions = z
  .strictObject({ ...batchShape, size: count(1000).default(10), wait: timerSpan(span).default(0) })
  .refine((o) => o.heartbeatDeadline >= 2 * o.heartbeatInterval, { error: 'must be at least twice heartbeatInterval', path: ['heartbeatDeadline'] })
  .refine((o) => o.wait <= o.lease / 2, { error: 'must be at most half the lease', path: ['wait'] });

export type ParsedBatchOptions = z.output<typeof batchOptions>;

export const closeOptions = z.strictObject({ timeout: timerSpan(span).optional() });

export type ParsedWorkOptions = z.output<typeof workOptions>;
