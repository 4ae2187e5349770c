/** docket through the benchmark interface: its public API (from lib/, the working tree), defaults untouched. */
import { createScheduler } from '../../lib';
import type { Adapter, OpenAdapter, Payload } from './adapter';

/** How long a finished request's result is kept (BullMQ's adapter keeps its completed jobs as long). */
const KEEP_RESULT_MS = 60_000;

export const open: OpenAdapter = async (url, queue) => {
  // The start-up check warns about appendonly no, which the benchmark's Redis uses on purpose.
  // Finished tasks are deleted, as the peers are set to do (BullMQ removeOnComplete, bee-queue
  // removeOnSuccess): the done history (on by default) is off unless DOCKET_BENCH_HISTORY=on.
  // DOCKET_BENCH_EVENTS=all turns the lifecycle events on. Each knob measures what its option
  // costs (bench/README.md).
  const events = process.env.DOCKET_BENCH_EVENTS === 'all' ? { events: 'all' as const } : {};
  const s = await createScheduler({ url, queue, onWarning: () => {}, ...events });
  if (process.env.DOCKET_BENCH_HISTORY !== 'on') await s.keep({ queue, done: { count: 0 } });
  const adapter: Adapter = {
    put: async (data) => void (await s.put(data)),
    putBulk: async (items, delay = 0) => void (await s.putMany(items.map((data) => ({ data, options: delay ? { delay } : undefined })))),
    // docket de-duplicates on the payload itself: a plain put is already unique.
    putUnique: async (data) => void (await s.put(data)),
    putDelayed: async (data, delay) => void (await s.put(data, { delay })),
    putDebounced: async (data, key, delay) => void (await s.put(data, { key, delay, onDuplicate: 'debounce' })),
    async work(concurrency, handler) {
      // work() starts at once and opens its blocking connection only when it first goes idle.
      let worker: ReturnType<typeof s.work> | undefined;
      return {
        start: () => void (worker = s.work<Payload>(async (task) => handler(task.data), { concurrency })),
        close: async () => worker?.close(),
      };
    },
    async workSandboxed(concurrency, file) {
      // Threads start with the first tasks, inside the timed part (as BullMQ's child processes do).
      let worker: ReturnType<typeof s.work> | undefined;
      return {
        start: () => void (worker = s.work(file, { concurrency, sandbox: true })),
        close: async () => worker?.close(),
      };
    },
    // Nothing to ready: result() opens its one reader connection when a first caller waits.
    requests: async (timeoutMs) => async (data) => {
      const { hash } = await s.put(data, { keepResult: KEEP_RESULT_MS });
      const out = await s.result(hash, { wait: timeoutMs });
      if (out?.state !== 'done') throw new Error(`request ${hash}: ${out?.state ?? 'unknown'} after ${timeoutMs} ms`);
      return out.result;
    },
    async count() {
      const st = await s.stats();
      return st.ready + st.delayed + st.active;
    },
    close: () => s.close(),
  };
  return adapter;
};
