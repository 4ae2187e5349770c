/**
 * result(hash, { wait }) on a real Redis Cluster: a blocking XREAD reads one slot only, so one
 * scheduler's callers are served by at most CLUSTER_READERS blocking readers (one per slot, on its
 * master) and the slots past them are read in polling rounds through the scheduler's own
 * connection: waiting in 40 queues opens at most 16 connections, and every caller is answered.
 */
import { createScheduler } from '../../lib';
import { useCluster } from '../support/cluster';
import { eventually, sleep, uniquePrefix } from '../support/harness';

const clusterOf = useCluster();

/** How many clients are blocked in XREAD now, over every node (the polling rounds' XREADs do not block). */
async function xreads(): Promise<number> {
  let total = 0;
  for (const client of clusterOf().clients) {
    const list = String(await client.sendCommand(['CLIENT', 'LIST']));
    total += list.split('\n').filter((line) => / flags=\w*b\w* .* cmd=xread /.test(line)).length;
  }
  return total;
}

describe('result({ wait }) on a Redis Cluster', () => {
  it('waiting in 40 queues uses at most 16 blocking readers, and answers every caller, polled slots included', async () => {
    const warned: unknown[] = [];
    const logger = { info: () => {}, warn: (obj: unknown) => warned.push(obj) };
    const s = await createScheduler({ cluster: clusterOf().urls, prefix: uniquePrefix('c'), onWarning: () => {}, logger });
    try {
      const queues = Array.from({ length: 40 }, (_, i) => `wait-${i}`);
      // Half keep their outcome; the other half can be told `done` only by the finish event.
      const puts = await Promise.all(queues.map((queue, i) => s.put({ i }, { queue, ...(i % 2 ? { keepResult: 60_000 } : {}) })));
      const tasks = await Promise.all(queues.map(async (queue) => (await s.claim({ queue }))!));
      const waits = puts.map((p, i) => s.result(p.hash, { queue: queues[i], wait: 30_000 }));
      await eventually(async () => (await xreads()) === 16, 10_000);
      await sleep(300);
      expect(await xreads()).toBeLessThanOrEqual(16);
      for (const [i, task] of tasks.entries()) expect(await s.ack(task, i % 2 ? `r${i}` : undefined)).toBe(true);
      const outs = await Promise.all(waits);
      outs.forEach((o, i) => expect(o).toMatchObject({ state: 'done', queue: queues[i], result: i % 2 ? `r${i}` : null }));
      await eventually(async () => (await xreads()) === 0, 5000);
      // No read was refused (a multi-slot XREAD would be: CROSSSLOT).
      expect(warned).toEqual([]);
    } finally {
      await s.close();
    }
  });
});
