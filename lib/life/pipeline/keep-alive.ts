/**
 * Stage `keep-alive`: extends the task's lease every third of its length while the attempt runs,
 * and aborts the handler's signal with a LeaseLostError once the lease is lost. It sits just
 * outside the timeout, so the lease is never extended past the run timeout (plus a moment for the
 * fail to reach Redis), and it stops as soon as the attempt ends: before the slot is freed and
 * before any flush, ack or fail, which run on the lease as it stands.
 */
import { performance } from 'node:perf_hooks';
import { LeaseLostError } from '../../types/errors';
import { extend, snoozing } from '../lease';
import type { Host, Run, Stage } from './stage';

/** How far past a run timeout the lease is kept: time for the attempt's fail to reach Redis. */
const TIMEOUT_GRACE_MS = 1000;

export function keepAlive(host: Host): Stage {
  return async (run, next) => {
    const stop = (run.stopLease = keepLease(host, run));
    try {
      return await next();
    } finally {
      stop();
    }
  };
}

/** Starts the extensions of `run`'s lease; returns what stops them. */
function keepLease(host: Host, { task, controller, leftMs, limit }: Run): () => void {
  const { lease } = host.options;
  let deadline = performance.now() + leftMs;
  // Up to the timeout, plus a moment for the attempt's fail to reach Redis before the lease ends.
  const ends = limit === undefined ? Infinity : performance.now() + limit + Math.min(lease, TIMEOUT_GRACE_MS);
  const lost = () => controller.abort(new LeaseLostError(task.hash));
  const timer = setInterval(
    async () => {
      // Snoozed (or being snoozed) by its handler: the lease is given up, not lost.
      if (snoozing(task)) return;
      const sent = performance.now();
      // A lease held up to the timeout's end is not lost: the attempt's own timer ends it there.
      if (sent >= deadline) return deadline >= ends ? undefined : lost();
      const by = Math.min(lease, Math.ceil(ends - sent));
      if (by <= 0) return;
      try {
        if (await extend(host.ctx, task, by)) deadline = sent + by;
        else lost();
      } catch (err) {
        host.report(err); // try again next tick, until the deadline passes
      }
    },
    Math.max(10, Math.floor(lease / 3)),
  );
  return () => clearInterval(timer);
}
