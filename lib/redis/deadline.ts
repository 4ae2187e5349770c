/**
 * A deadline on a promise. Shared by connection.ts (connect, command and close deadlines) and
 * cluster.ts (the deadline of a cluster refresh), which connection.ts imports: so it lives here,
 * below both, rather than in either.
 */
import { TimeoutError } from '../types/errors';

/** How long a call may wait for its reply, and what to call it in errors. */
export interface Deadline {
  ms: number;
  what: string;
}

/**
 * `promise`, or a TimeoutError once `ms` pass. The loser is still handled, so its late failure
 * is no unhandled rejection.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  promise.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(what, ms)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}
