/**
 * The worker pipeline: the path each leased task takes, as stages composed once per worker,
 * outermost first (see docs/design.md, The worker pipeline):
 *
 * 1. `outcome`: acks the result or fails the task (outcome.ts);
 * 2. `flush`: writes the last progress and log lines, before the ack or fail (flush.ts);
 * 3. `metrics`: times the run, marks it done and frees its slot (metrics.ts);
 * 4. `keep-alive`: extends the lease while the attempt runs (keep-alive.ts);
 * 5. `timeout`: ends the attempt at its run timeout (timeout.ts);
 *
 * and in the middle the handler itself, whose value becomes the result ack sends. Each stage's
 * part before the handler runs in this order, its part after in the reverse one.
 */
import { pickerOf } from '../route';
import type { Handler } from '../../types/work';
import { resultJson } from '../holder';
import { flush } from './flush';
import { keepAlive } from './keep-alive';
import { metrics } from './metrics';
import { outcome } from './outcome';
import { compose, type Host, type Outcome, type Run, type Stage } from './stage';
import { timeout } from './timeout';

export { Acks, type PendingAck } from './acks';
export { runOf, type Host, type Outcome, type Run, type Stage } from './stage';

/** The stages by name, outermost first. */
export const STAGES = ['outcome', 'flush', 'metrics', 'keep-alive', 'timeout'] as const;

/** A worker's pipeline: what runs each task it leases, from its handler to its ack or fail. */
export function pipeline(host: Host, handler: Handler<unknown>): (run: Run) => Promise<Outcome> {
  const stages: Record<(typeof STAGES)[number], Stage> = { outcome: outcome(host), flush, metrics: metrics(host), 'keep-alive': keepAlive(host), timeout };
  const pick = pickerOf(handler);
  return compose(
    STAGES.map((name) => stages[name]),
    (run) => attempt(host, pick(run.task), run),
  );
}

/**
 * The handler's run: its value as ack sends it, or what it threw. The handler is always given its
 * run's signal as its second parameter, whatever it declares, as a view that makes the
 * AbortSignal only when used (Attempt, attempt.ts): one that never touches it (nor
 * `task.signal`) makes none.
 */
async function attempt(host: Host, handler: Handler<unknown>, run: Run): Promise<Outcome> {
  try {
    const value = await handler(run.task, run.controller.view());
    // A result that is not JSON, or too large, fails the attempt as a bad payload would. One that
    // comes after the timeout ended the attempt counts for nothing, so it is not looked at.
    return { result: run.overtime ? '' : resultJson(host.ctx, run.task, value) };
  } catch (error) {
    return { error };
  }
}
