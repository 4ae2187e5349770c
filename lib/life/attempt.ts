/**
 * One attempt of a handler under an optional run timeout. The handler cannot be stopped by force:
 * once the timeout passes, its signal is aborted with a RunTimeoutError and the attempt counts as
 * failed at once (so the task can be retried elsewhere), while the handler's own promise is still
 * followed, so that its slot is given back only when it has really returned.
 */
import { RunTimeoutError } from '../domain/errors';
import type { Task } from '../domain/task';

export interface Attempt {
  /** The handler's value, or its error, or the RunTimeoutError, whichever comes first. */
  outcome: Promise<unknown>;
  /** Settles once the handler itself has returned or thrown (never rejects). */
  returned: Promise<void>;
  /** Whether the timeout ended the attempt before the handler returned. */
  timedOut(): boolean;
}

export function attempt(run: () => Promise<unknown>, task: Task<unknown>, controller: AbortController, limitMs: number | undefined): Attempt {
  const handled = (async () => run())();
  const returned = handled.then(
    () => {},
    () => {},
  );
  if (limitMs === undefined) return { outcome: handled, returned, timedOut: () => false };
  let timer: NodeJS.Timeout | undefined;
  let late = false;
  const lateness = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      late = true;
      const err = new RunTimeoutError(task.hash, limitMs);
      controller.abort(err);
      reject(err);
    }, limitMs);
  });
  const outcome = Promise.race([handled, lateness]).finally(() => clearTimeout(timer));
  return { outcome, returned, timedOut: () => late };
}
