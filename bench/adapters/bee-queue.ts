/**
 * bee-queue through the benchmark interface. removeOnSuccess mirrors docket deleting finished
 * tasks; delayed jobs need activateDelayedJobs on the worker's queue; de-duplication uses setId.
 */
import { createHash } from 'node:crypto';
import BeeQueue from 'bee-queue';
import type { Adapter, OpenAdapter, Payload } from './adapter';

export const open: OpenAdapter = async (url, queue) => {
  const { hostname, port } = new URL(url);
  const redis = { host: hostname, port: Number(port) };
  const producer = new BeeQueue(queue, { redis, isWorker: false, getEvents: false, sendEvents: false, removeOnSuccess: true });
  await producer.ready();
  const workers: BeeQueue[] = [];
  const adapter: Adapter = {
    put: async (data) => void (await producer.createJob(data).save()),
    putBulk: async (items) => void (await producer.saveAll(items.map((data) => producer.createJob(data)))),
    putUnique: async (data) => void (await producer.createJob(data).setId(createHash('sha1').update(JSON.stringify(data)).digest('hex')).save()),
    putDelayed: async (data, delay) => void (await producer.createJob(data).delayUntil(Date.now() + delay).save()),
    async work(concurrency, handler) {
      const q = new BeeQueue(queue, { redis, getEvents: false, sendEvents: false, removeOnSuccess: true, activateDelayedJobs: true });
      workers.push(q);
      await q.ready();
      q.process(concurrency, async (job: BeeQueue.Job<Payload>) => handler(job.data));
      return { close: () => q.close() };
    },
    async pending() {
      const h = await producer.checkHealth();
      return h.waiting + h.delayed;
    },
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await producer.close();
    },
  };
  return adapter;
};
