/**
 * Stage `outcome`: the outermost, so it acts on the attempt's outcome as every other stage left
 * it (a timeout included), once the slot is free and the progress and logs are written. A result
 * is acked with the next call to Redis (acks.ts); a failure is failed with the worker's back-off
 * (which the error may overrule: an UnrecoverableError or a RetryLaterError, endings.ts), and
 * logged. A refused ack or fail (the lease was lost) and a call that failed are reported, not
 * thrown: the lease lapses and the task is delivered again, so nothing is lost. A task handed back
 * by close(), or snoozed by its handler (task.snooze()), is neither acked nor failed.
 */
import { defaultBackoff } from '../../domain/backoff';
import { CancelledError, LeaseLostError, ValidationError } from '../../types/errors';
import { errorFields, thrownText } from '../../domain/log';
import { MAX_SPAN_MS } from '../../domain/options';
import type { Task } from '../../types/task';
import { fail } from '../holder';
import { endingOf } from '../endings';
import type { Host, Stage } from './stage';

export function outcome(host: Host): Stage {
  return async (run, next) => {
    const ended = await next();
    // Handed back by close(): the task belongs to the queue again.
    // Cancelled while it ran: its beat ended the task already; an ack or fail would be refused.
    if (run.released || run.controller.reason instanceof CancelledError) return ended;
    // Snoozed by its handler: that ended the attempt, and what the handler did after counts for
    // nothing. A snooze still under way is waited for, so its refusal (a lost lease) is known first.
    const snoozed = run.controller.snoozed;
    if (snoozed && (await snoozed)) return ended;
    try {
      if ('result' in ended) {
        if (!(await host.ack(run.task, ended.result))) host.report(new LeaseLostError(run.task.hash));
      } else {
        await failed(host, run.task, ended.error);
      }
    } catch (err) {
      // Not acked: the lease lapses and the task is delivered again. Nothing is lost.
      host.report(err);
    }
    return ended;
  };
}

async function failed(host: Host, task: Task<unknown>, error: unknown): Promise<void> {
  const options = { error, retryIn: retryIn(host, task.attempt, error), maxAttempts: host.options.maxAttempts };
  const outcome = await fail(host.ctx, task, options);
  const ending = endingOf(error).ending;
  // A task's failure is the handler's business, told at info; one that used up its attempts
  // needs someone to look (dead letters), so warn.
  const fields = { queue: host.queue, worker: host.worker, hash: task.hash, attempt: task.attempt, outcome, ending, ...errorFields(error) };
  const log = host.ctx.log;
  if (outcome === 'dead' && ending === 'unrecoverable') log.warn(fields, 'docket: task failed with an UnrecoverableError; it is dead');
  else if (outcome === 'dead') log.warn(fields, 'docket: task failed for the last time; it is dead');
  else if (outcome === 'retry') log.info(fields, 'docket: task failed; it will be retried');
  else if (outcome === 'merged') log.info(fields, 'docket: until-start task failed; a task of its identity already waits, so it is not retried');
  if (outcome === 'lost') host.report(new LeaseLostError(task.hash));
}

/**
 * The caller's back-off for this attempt, given what failed it; a throwing or non-finite one falls
 * back to the default. (A RetryLaterError's own time wins over it in fail().)
 */
function retryIn(host: Host, attempt: number, error: unknown): number {
  const { backoff } = host.options;
  if (!backoff) return defaultBackoff(attempt);
  try {
    const ms = backoff(attempt, error);
    // Capped as fail()'s retryIn is, so a huge value delays the retry instead of failing the fail.
    if (Number.isFinite(ms)) return Math.min(MAX_SPAN_MS, Math.max(0, ms));
    host.report(new ValidationError('options.backoff', `returned ${ms} for attempt ${attempt}, not a finite number`));
  } catch (err) {
    host.report(new ValidationError('options.backoff', `threw for attempt ${attempt}: ${thrownText(err).split('\n')[0]}`));
  }
  return defaultBackoff(attempt);
}
