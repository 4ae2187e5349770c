/**
 * Stage `metrics`: the end of the handler's run. It times the run (the handler_duration_seconds
 * histogram and the worker's average, which decides its prefetch), marks the run done (close() no
 * longer hands it back) and gives its slot back. It sits outside the keep-alive, so the lease
 * extensions have stopped first, and inside the flush and the outcome: a slot frees when the
 * handler returns, not when its ack is sent, so the next task's claim can carry that ack.
 */
import { performance } from 'node:perf_hooks';
import { observeRun } from '../../features/metrics';
import type { Host, Stage } from './stage';

export function metrics(host: Host): Stage {
  return async (run, next) => {
    const began = performance.now();
    try {
      return await next();
    } finally {
      run.done = true;
      // Failures count too: a handler that throws late is as slow as one that returns late.
      const took = performance.now() - began;
      observeRun(host.ctx, host.queue, took);
      host.ran(took);
      // A handler past its timeout keeps its slot until it really returns; any other has returned.
      if (run.overtime) void run.overtime.then(() => host.free());
      else host.free();
    }
  };
}
