/**
 * `task.snooze(span)`: the handler ends its attempt without counting it. The task waits `span`
 * and its lease is released; the attempt records the snooze (attempt.ts), so the worker pipeline
 * neither acks nor fails it, nor extends its lease.
 */
import type { Context } from '../redis/context';
import { parse, spanArg } from '../domain/options';
import { snooze as snoozeOp } from '../ops/snooze';
import type { Span } from '../types/time';
import type { Task } from '../types/task';
import { ATTEMPT, type WithAttempt } from './attempt';
import { checkTask } from './holder';
import { flushLogs } from './logs';
import { flushProgress } from './progress';

/**
 * Ends the attempt uncounted, the task delayed by `span`, its lease released; false once the lease
 * is lost. Its progress and log lines go first (after it they are refused).
 */
export async function snooze(ctx: Context, task: Task<unknown>, span: Span): Promise<boolean> {
  checkTask(ctx, task);
  const delay = parse(spanArg, span, 'span');
  const call = (async () => {
    await flushProgress(task);
    await flushLogs(task);
    return ctx.scripts.run(snoozeOp, ctx.keys(task.queue), { id: task.hash, token: task.token, delay, events: ctx.options.eventsMaxLength });
  })();
  // Recorded before this call first awaits, so a handler that returns without awaiting it is not acked.
  (task as Partial<WithAttempt>)[ATTEMPT]?.snoozing(call);
  return call;
}
