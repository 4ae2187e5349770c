/**
 * Dependencies across queues on a real Redis Cluster, the two queues in slots served by different
 * masters: no script touches both, so each step goes through the outbox of one and apply.lua on
 * the other, every call routed to its queue's master with no redirect.
 */
import { createScheduler, type Scheduler } from '../../lib';
import { queuesOnMasters, type TestCluster, useCluster } from '../support/cluster';
import { eventually, uniquePrefix } from '../support/harness';

const clusterOf = useCluster();
let cluster: TestCluster;
/** The parent queue and the dependent queue, on two different masters. */
let up: { queue: string; port: number };
let down: { queue: string; port: number };

beforeAll(async () => {
  cluster = clusterOf();
  [up, down] = await queuesOnMasters(cluster, 2);
});

async function open(): Promise<Scheduler & { prefix: string }> {
  const prefix = uniquePrefix('c');
  const s = await createScheduler({ cluster: cluster.urls, prefix, onWarning: () => {} });
  return Object.assign(s, { prefix });
}

/** The members of a dependency index of `queue`, read on the master that serves it. */
async function index(prefix: string, queue: { queue: string; port: number }, key: 'dependents' | 'after' | 'blocked' | 'outbox'): Promise<string[]> {
  const client = cluster.clients[cluster.nodes.findIndex((n) => n.port === queue.port)];
  return (await client.sendCommand(['ZRANGE', `${prefix}:{${queue.queue}}:${key}`, '0', '-1'])) as string[];
}

/** Claims and acks the task `hash` of `queue` (it must be the one claimed next there). */
async function finish(s: Scheduler, hash: string, queue: string): Promise<void> {
  const task = await s.claim({ queue });
  expect(task?.hash).toBe(hash);
  expect(await s.ack(task!)).toBe(true);
}

describe('dependencies on a Redis Cluster', () => {
  it('uses two queues whose hash tags map to different slots, served by different masters', async () => {
    const slots = await Promise.all([up, down].map(async ({ queue }) => Number(await cluster.clients[0].sendCommand(['CLUSTER', 'KEYSLOT', `{${queue}}`]))));
    expect(slots[0]).not.toBe(slots[1]);
    expect(up.port).not.toBe(down.port);
    expect(await cluster.masterOf(slots[0])).toBe(up.port);
    expect(await cluster.masterOf(slots[1])).toBe(down.port);
  });

  it('releases a dependent on one master when its parent on another is acked, and a worker runs it, with no redirect', async () => {
    const s = await open();
    try {
      const before = await cluster.redirects();
      const parent = await s.put('parent', { queue: up.queue });
      const child = await s.put('child', { queue: down.queue, after: [{ queue: up.queue, hash: parent.hash }] });
      expect((await s.get(child.hash, { queue: down.queue }))!.state).toBe('waiting');
      // Registered on the parent's master by the put itself.
      expect(await index(s.prefix, up, 'dependents')).toEqual([`${parent.hash}|${child.hash}|${down.queue}`]);
      await finish(s, parent.hash, up.queue);
      const ran: string[] = [];
      const worker = s.work(async (t) => void ran.push(t.hash), { queue: down.queue });
      try {
        await eventually(() => ran.length === 1);
      } finally {
        await worker.close();
      }
      expect(ran).toEqual([child.hash]);
      expect(await index(s.prefix, up, 'dependents')).toEqual([]);
      expect(await index(s.prefix, up, 'outbox')).toEqual([]);
      expect(await index(s.prefix, down, 'after')).toEqual([]);
      expect(await index(s.prefix, down, 'blocked')).toEqual([]);
      expect((await cluster.redirects()) - before).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('releases 1,000 dependents on one master when their parent on another is acked, each run once', async () => {
    const s = await open();
    try {
      const before = await cluster.redirects();
      const parent = await s.put('fan-out', { queue: up.queue });
      const children = await s.putMany(Array.from({ length: 1000 }, (_, i) => ({ data: { i }, options: { queue: down.queue, after: [{ queue: up.queue, hash: parent.hash }] } })));
      expect(await index(s.prefix, up, 'dependents')).toHaveLength(1000);
      const ran: string[] = [];
      const workers = [up, down].map(({ queue }) => s.work(async (t) => void ran.push(t.hash), { queue, concurrency: 50 }));
      try {
        await eventually(() => ran.length === 1001, 10_000);
      } finally {
        await Promise.all(workers.map((w) => w.close()));
      }
      expect(ran[0]).toBe(parent.hash);
      expect(new Set(ran.slice(1))).toEqual(new Set(children.map((c) => c.hash)));
      expect(await index(s.prefix, up, 'outbox')).toEqual([]);
      expect(await index(s.prefix, down, 'blocked')).toEqual([]);
      expect((await cluster.redirects()) - before).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('makes a dependent dead when its parent on another master goes dead, its last error naming the parent', async () => {
    const s = await open();
    try {
      const parent = await s.put('doomed', { queue: up.queue, maxAttempts: 1 });
      const child = await s.put('child', { queue: down.queue, after: [{ queue: up.queue, hash: parent.hash }] });
      const task = (await s.claim({ queue: up.queue }))!;
      expect(task.hash).toBe(parent.hash);
      expect(await s.fail(task, { error: 'boom' })).toBe('dead');
      await eventually(async () => (await s.get(child.hash, { queue: down.queue }))?.state === 'dead');
      expect((await s.get(child.hash, { queue: down.queue }))!.lastError).toBe(`dependency ${up.queue}/${parent.hash} dead`);
      expect(await index(s.prefix, up, 'dependents')).toEqual([]);
      expect(await index(s.prefix, down, 'after')).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it("cancelling a waiting dependent clears the other master's index, and the parent's ack then releases nothing", async () => {
    const s = await open();
    try {
      const parent = await s.put('p', { queue: up.queue });
      const child = await s.put('d', { queue: down.queue, after: [{ queue: up.queue, hash: parent.hash }] });
      expect(await index(s.prefix, up, 'dependents')).toHaveLength(1);
      expect(await s.cancel(child.hash, { queue: down.queue })).toBe(true);
      // Carried by the cancel itself.
      expect(await index(s.prefix, up, 'dependents')).toEqual([]);
      expect(await index(s.prefix, down, 'outbox')).toEqual([]);
      expect(await index(s.prefix, down, 'after')).toEqual([]);
      expect(await index(s.prefix, down, 'blocked')).toEqual([]);
      await finish(s, parent.hash, up.queue);
      expect(await index(s.prefix, up, 'outbox')).toEqual([]);
      expect(await s.claim({ queue: down.queue })).toBeNull();
    } finally {
      await s.close();
    }
  });
});
