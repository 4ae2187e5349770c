/** docket through the benchmark interface: its public API (from lib/, the working tree), defaults untouched. */
import { createScheduler } from '../../lib';
import type { Adapter, OpenAdapter, Payload } from './adapter';

export const open: OpenAdapter = async (url, queue) => {
  // The start-up check warns about appendonly no, which the benchmark's Redis uses on purpose.
  const s = await createScheduler({ url, queue, onWarning: () => {} });
  const adapter: Adapter = {
    put: async (data) => void (await s.put(data)),
    putBulk: async (items, delay = 0) => void (await s.putMany(items.map((data) => ({ data, options: delay ? { delay } : undefined })))),
    // docket de-duplicates on the payload itself: a plain put is already unique.
    putUnique: async (data) => void (await s.put(data)),
    putDelayed: async (data, delay) => void (await s.put(data, { delay })),
    async work(concurrency, handler) {
      // work() starts at once and opens its blocking connection only when it first goes idle.
      let worker: ReturnType<typeof s.work> | undefined;
      return {
        start: () => void (worker = s.work<Payload>(async (task) => handler(task.data), { concurrency })),
        close: async () => worker?.close(),
      };
    },
    async count() {
      const st = await s.stats();
      return st.ready + st.delayed + st.active;
    },
    close: () => s.close(),
  };
  return adapter;
};
