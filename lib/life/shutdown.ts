/**
 * A worker's closing: what closes it (its AbortSignal, SIGTERM and SIGINT with handleSignals), and
 * what it does then with the tasks it holds: it waits for its running handlers up to the shutdown
 * timeout, then hands back what is still running, so that no task waits for a lease to run out
 * after close(). Apart from the loop that claims because this is where the worker's promise about
 * close() is kept: it settles within shutdownTimeout plus one commandTimeout, whatever Redis does.
 */
import { performance } from 'node:perf_hooks';
import type { Context } from '../redis/context';
import { ClosedError } from '../types/errors';
import type { Sandbox } from '../features/sandbox';
import type { Heartbeat } from './heartbeat';
import type { IdleWait } from './idle';
import { release } from './holder';
import { stopLogs } from './logs';
import type { Acks, Outcome, Run } from './pipeline';
import type { Prefetch } from './prefetch';
import { stopProgress } from './progress';
import { closeOnSignals } from './signals';

/** A worker, as what closes it sees it. */
interface Closable {
  close(): Promise<void>;
  readonly closed: Promise<void>;
}

/** Closes `worker` when `signal` aborts, and on SIGTERM and SIGINT with `handleSignals`. */
export function closeWhen(worker: Closable, signal: AbortSignal | undefined, handleSignals: boolean): void {
  const onAbort = () => void worker.close();
  signal?.addEventListener('abort', onAbort, { once: true });
  // The caller's signal may outlive the worker: it keeps no listener (nor the worker) once closed.
  void worker.closed.then(() => signal?.removeEventListener('abort', onAbort));
  if (handleSignals) closeOnSignals(worker);
}

/** What a worker holds when it closes. */
export interface Held {
  readonly ctx: Context;
  readonly queue: string;
  /** The worker's id, for its log line. */
  readonly worker: string;
  /** Tasks in flight, each with what is needed to stop its handler and hand it back. */
  readonly running: Map<Promise<Outcome>, Run>;
  readonly acks: Acks;
  readonly prefetch: Prefetch;
  readonly heartbeat: Heartbeat;
  readonly idle: IdleWait;
  /** The threads a sandboxed handler runs in. */
  readonly sandbox: Sandbox | undefined;
  report(err: unknown): void;
}

/** Once the loop has stopped claiming: drains (below), then lets go of the threads and the blocking connection. */
export async function shutDown(held: Held, deadline: number): Promise<void> {
  await drain(held, deadline);
  // Threads of handlers close() gave up on are terminated; the rest ended with their runs.
  await held.sandbox?.close();
  await held.idle.reset();
  held.ctx.log.info({ queue: held.queue, worker: held.worker }, 'docket: worker closed');
}

/**
 * Waits for in-flight handlers until `deadline` (performance.now() ms: close() plus the shutdown
 * timeout), then hands back what is left, and leaves the heartbeat set. What follows the deadline
 * is one round of calls in parallel, each within commandTimeout, so close() settles within
 * shutdownTimeout (or, if longer, the claim call close() came in on) plus one commandTimeout,
 * whatever Redis does.
 */
async function drain(held: Held, deadline: number): Promise<void> {
  // Prefetched tasks never started: they go back at once, for other workers to take.
  held.prefetch.handBack();
  let timer: NodeJS.Timeout | undefined;
  const left = Math.max(0, deadline - performance.now());
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), left)));
  const outcome = await Promise.race([Promise.all(held.running.keys()), late]);
  clearTimeout(timer);
  const giveUp = outcome === 'late' ? abandon(held) : [];
  await Promise.all([...giveUp, held.prefetch.handedBack(), held.heartbeat.stop()]);
}

/**
 * Hands back the tasks of handlers still running (their signal aborted, their lease extension
 * stopped), and stops retrying acks: a task whose ack is lost is delivered again once its lease
 * lapses. Returns the calls still under way.
 */
function abandon(held: Held): Array<Promise<unknown>> {
  held.acks.abandon();
  const releases = [...held.running.values()]
    .filter((run) => !run.done)
    .map(async (run) => {
      run.released = true;
      run.stopLease();
      stopProgress(run.task);
      stopLogs(run.task);
      run.controller.abort(new ClosedError('worker'));
      await release(held.ctx, run.task).catch((err: unknown) => held.report(err));
    });
  // Handlers that did finish have their ack or fail call under way: one call each, at most.
  const finishing = [...held.running].filter(([, run]) => run.done).map(([going]) => going);
  return [...releases, ...finishing, held.acks.sent()];
}
