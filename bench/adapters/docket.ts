/** docket through the benchmark interface: its public API, defaults untouched. */
import { createScheduler } from '../../lib';
import type { Adapter, OpenAdapter } from './adapter';

export const open: OpenAdapter = async (url, queue) => {
  // The start-up check warns about appendonly no, which the benchmark's Redis uses on purpose.
  const s = await createScheduler({ url, queue, onWarning: () => {} });
  const adapter: Adapter = {
    put: async (data) => void (await s.put(data)),
    putBulk: async (items) => void (await s.putMany(items.map((data) => ({ data })))),
    putUnique: async (data) => void (await s.put(data)),
    putDelayed: async (data, delay) => void (await s.put(data, { delay })),
    async work(concurrency, handler) {
      const worker = s.work<any>(async (task) => handler(task.data), { concurrency });
      return { close: () => worker.close() };
    },
    async pending() {
      const st = await s.stats();
      return st.ready + st.delayed;
    },
    close: () => s.close(),
  };
  return adapter;
};
