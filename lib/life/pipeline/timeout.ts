/**
 * Stage `timeout`: one attempt under an optional run timeout, the innermost stage, right around
 * the handler, so that nothing else counts against the limit. The handler cannot be stopped by
 * force: once the timeout passes, its signal is aborted with a RunTimeoutError and the attempt
 * ends at once with that error (so the stages before it fail the task, and it can be retried
 * elsewhere), while `run.overtime` follows the handler, so that its slot is given back only when
 * it has really returned.
 */
import { RunTimeoutError } from '../../types/errors';
import type { Outcome, Stage } from './stage';

export const timeout: Stage = (run, next) => {
  const handled = next();
  const limit = run.limit;
  if (limit === undefined) return handled;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => {
      const error = new RunTimeoutError(run.task.hash, limit);
      run.overtime = handled.then(() => {});
      run.controller.abort(error);
      resolve({ error });
    }, limit);
  });
  return Promise.race([handled, late]).finally(() => clearTimeout(timer));
};
