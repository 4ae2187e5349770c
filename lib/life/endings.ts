/**
 * How a handler's thrown error ends its attempt (domain/task.ts, Ending): an UnrecoverableError
 * makes the task dead at once, a RetryLaterError sets when the next attempt runs, anything else
 * fails it the usual way. Read by fail() (holder.ts), so work() and a claim() caller's own fail()
 * treat the same error alike. The errors are found by name and code as well as by class: one
 * thrown by another copy of docket (a handler module that imports its own, a sandbox thread's
 * rebuilt error) counts too.
 */
import { MAX_SPAN_MS } from '../domain/options';
import { RetryLaterError, UnrecoverableError } from '../types/errors';
import { spanToMs } from '../types/time';

export type FailEnding = { ending: 'failed' } | { ending: 'unrecoverable' } | { ending: 'retry-later'; delay: number; at: null } | { ending: 'retry-later'; delay: null; at: number };

/**
 * Whether `error` is docket's `Class` (of this copy or another), by class or by name and code. A
 * value that cannot be read (a Proxy whose traps throw, a getter that throws) is neither: it fails
 * its attempt the usual way, and is recorded (thrownText) rather than thrown on.
 */
function isOf(error: unknown, Class: typeof UnrecoverableError | typeof RetryLaterError, code: string): boolean {
  try {
    if (error instanceof Class) return true;
    const e = error as { name?: unknown; code?: unknown } | null;
    return typeof e === 'object' && e !== null && e.name === Class.name && e.code === code;
  } catch {
    return false;
  }
}

/** How `error`, thrown by a handler (or given to fail()), ends its attempt. */
export function endingOf(error: unknown): FailEnding {
  if (isOf(error, UnrecoverableError, 'ERR_UNRECOVERABLE')) return { ending: 'unrecoverable' };
  if (!isOf(error, RetryLaterError, 'ERR_RETRY_LATER')) return { ending: 'failed' };
  const { delay, at } = error as { delay?: unknown; at?: unknown };
  try {
    // Checked again: one of another copy was checked by that copy, which may be older.
    const checked = new RetryLaterError('', typeof at === 'number' ? { at } : { delay: delay as number });
    if (checked.at !== null) return { ending: 'retry-later', delay: null, at: checked.at };
    return { ending: 'retry-later', delay: Math.min(MAX_SPAN_MS, spanToMs(checked.delay!)), at: null };
  } catch {
    // Not readable as one: an ordinary failure, retried after the back-off.
    return { ending: 'failed' };
  }
}
