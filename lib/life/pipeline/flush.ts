/**
 * Stage `flush`: waits for the task's last progress value and log lines to be written. It sits
 * just inside the outcome: once the task is acked or failed, those writes would be refused as
 * stale, so they go first; and outside the metrics, so the slot is already free while they go. A
 * task handed back by close() writes nothing more (close() dropped what was waiting).
 */
import { flushLogs } from '../logs';
import { flushProgress } from '../progress';
import type { Stage } from './stage';

export const flush: Stage = async (run, next) => {
  const ended = await next();
  // Snoozed: task.snooze() wrote them first, and the lease is gone, so later ones would be refused.
  if (run.released || run.controller.snoozed) return ended;
  // A task that reported no progress, or logged nothing, costs no await here.
  const progress = flushProgress(run.task);
  if (progress) await progress;
  const logs = flushLogs(run.task);
  if (logs) await logs;
  return ended;
};
