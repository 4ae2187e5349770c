/**
 * BullMQ through the benchmark interface, on ioredis (its default client). Finished jobs are
 * removed (removeOnComplete), as docket deletes finished tasks; de-duplication uses a jobId derived
 * from the payload, BullMQ's own way.
 */
import { Queue, QueueEvents, Worker } from 'bullmq';
import { payloadId, type Adapter, type OpenAdapter, type Payload } from './adapter';

/**
 * How long a finished request's job is kept, in seconds, as docket keeps the result: with
 * removeOnComplete: true a job can be gone before waitUntilFinished's own check (isFinished),
 * which then rejects with "Missing key for job".
 */
const KEEP_COMPLETED_S = 60;

export const open: OpenAdapter = async (url, queue) => {
  const { hostname, port } = new URL(url);
  // maxRetriesPerRequest: null is what BullMQ asks of the connections it blocks on.
  const connection = { host: hostname, port: Number(port), maxRetriesPerRequest: null };
  const q = new Queue(queue, { connection, defaultJobOptions: { removeOnComplete: true } });
  await q.waitUntilReady();
  const workers: Worker[] = [];
  const listeners: QueueEvents[] = [];
  const adapter: Adapter = {
    put: async (data) => void (await q.add('job', data)),
    putBulk: async (items, delay = 0) => void (await q.addBulk(items.map((data) => ({ name: 'job', data, opts: delay ? { delay } : undefined })))),
    putUnique: async (data) => void (await q.add('job', data, { jobId: payloadId(data) })),
    putDelayed: async (data, delay) => void (await q.add('job', data, { delay })),
    // BullMQ's debounce mode: the dedup id's ttl is extended and the delayed job replaced by each put.
    putDebounced: async (data, key, delay) => void (await q.add('job', data, { delay, deduplication: { id: key, ttl: delay, extend: true, replace: true } })),
    async work(concurrency, handler) {
      // autorun: false, so the connections and version check happen here, before the clock starts.
      const worker = new Worker<Payload>(queue, async (job) => handler(job.data), { connection, concurrency, autorun: false, removeOnComplete: { count: 0 } });
      worker.on('error', (err) => process.stderr.write(`bullmq worker: ${err}\n`));
      workers.push(worker);
      await worker.waitUntilReady();
      return { start: () => void worker.run().catch((err) => process.stderr.write(`bullmq run: ${err}\n`)), close: () => worker.close() };
    },
    async workSandboxed(concurrency, file) {
      // A processor file: BullMQ runs it in child processes (its default sandbox), forked on demand.
      const worker = new Worker<Payload>(queue, file, { connection, concurrency, autorun: false, removeOnComplete: { count: 0 } });
      worker.on('error', (err) => process.stderr.write(`bullmq sandboxed worker: ${err}\n`));
      workers.push(worker);
      await worker.waitUntilReady();
      return { start: () => void worker.run().catch((err) => process.stderr.write(`bullmq run: ${err}\n`)), close: () => worker.close() };
    },
    async requests(timeoutMs) {
      // One QueueEvents (a blocking XREAD on the events stream) for every waiting caller.
      const events = new QueueEvents(queue, { connection });
      events.on('error', (err) => process.stderr.write(`bullmq queue events: ${err}\n`));
      listeners.push(events);
      await events.waitUntilReady();
      return async (data) => {
        const job = await q.add('job', data, { removeOnComplete: { age: KEEP_COMPLETED_S } });
        return job.waitUntilFinished(events, timeoutMs);
      };
    },
    async count() {
      const c = await q.getJobCounts('active', 'wait', 'delayed', 'prioritized');
      return Object.values(c).reduce((a, b) => a + b, 0);
    },
    async close() {
      await Promise.all([...workers, ...listeners].map((w) => w.close()));
      await q.close();
    },
  };
  return adapter;
};
