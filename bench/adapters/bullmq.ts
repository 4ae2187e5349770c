/**
 * BullMQ through the benchmark interface. Finished jobs are removed (removeOnComplete), as docket
 * deletes finished tasks; de-duplication uses a jobId derived from the payload, BullMQ's own way.
 */
import { createHash } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import type { Adapter, OpenAdapter } from './adapter';

export const open: OpenAdapter = async (url, queue) => {
  const { hostname, port } = new URL(url);
  const connection = { host: hostname, port: Number(port), maxRetriesPerRequest: null };
  const q = new Queue(queue, { connection, defaultJobOptions: { removeOnComplete: true } });
  await q.waitUntilReady();
  const adapter: Adapter = {
    put: async (data) => void (await q.add('job', data)),
    putBulk: async (items) => void (await q.addBulk(items.map((data) => ({ name: 'job', data })))),
    putUnique: async (data) => void (await q.add('job', data, { jobId: createHash('sha1').update(JSON.stringify(data)).digest('hex') })),
    putDelayed: async (data, delay) => void (await q.add('job', data, { delay })),
    async work(concurrency, handler) {
      const worker = new Worker(queue, async (job) => handler(job.data), { connection, concurrency, removeOnComplete: { count: 0 } });
      await worker.waitUntilReady();
      return { close: () => worker.close() };
    },
    async pending() {
      const c = await q.getJobCounts('wait', 'delayed', 'prioritized');
      return (c.wait ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0);
    },
    close: () => q.close(),
  };
  return adapter;
};
