/**
 * bee-queue through the benchmark interface. removeOnSuccess mirrors docket deleting finished
 * tasks; delayed jobs need activateDelayedJobs on the worker's queue; de-duplication uses setId.
 * Events are off on both sides: nothing here listens to them, and they cost a PUBLISH per job.
 */
import BeeQueue from 'bee-queue';
import { payloadId, type Adapter, type OpenAdapter, type Payload } from './adapter';

export const open: OpenAdapter = async (url, queue) => {
  const { hostname, port } = new URL(url);
  const redis = { host: hostname, port: Number(port) };
  const common = { redis, getEvents: false, sendEvents: false, removeOnSuccess: true };
  const producer = new BeeQueue<Payload>(queue, { ...common, isWorker: false });
  await producer.ready();
  const workers: BeeQueue[] = [];
  const saveAll = async (jobs: BeeQueue.Job<Payload>[]) => {
    const errors = await producer.saveAll(jobs);
    if (errors.size > 0) throw [...errors.values()][0];
  };
  const adapter: Adapter = {
    put: async (data) => void (await producer.createJob(data).save()),
    putBulk: (items, delay = 0) => saveAll(items.map((data) => (delay ? producer.createJob(data).delayUntil(Date.now() + delay) : producer.createJob(data)))),
    putUnique: async (data) => void (await producer.createJob(data).setId(payloadId(data)).save()),
    putDelayed: async (data, delay) =>
      void (await producer
        .createJob(data)
        .delayUntil(Date.now() + delay)
        .save()),
    async work(concurrency, handler) {
      const q = new BeeQueue<Payload>(queue, { ...common, activateDelayedJobs: true });
      workers.push(q);
      await q.ready();
      return { start: () => void q.process(concurrency, async (job) => handler(job.data)), close: () => q.close() };
    },
    // Left out of reqres (bench/README.md): a job's 'succeeded' event can arrive before its save()
    // has resolved, and bee-queue then drops it (bee-queue#78, #189), so some callers never hear back.
    requests: async () => {
      throw new Error("bee-queue has no reliable wait for a job's result: see bench/README.md");
    },
    async count() {
      const h = await producer.checkHealth();
      return h.waiting + h.active + h.delayed;
    },
    async close() {
      await Promise.all(workers.map((w) => w.close()));
      await producer.close();
    },
  };
  return adapter;
};
