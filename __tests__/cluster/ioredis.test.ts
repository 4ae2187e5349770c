/**
 * A caller's ioredis Cluster on a real Redis Cluster (3 masters, 3 replicas): docket sends through
 * a duplicate of it, routed by each queue's slot, so puts, claims and acks on queues spread over
 * all three masters draw no MOVED or ASK redirect; workers wait on the master of their queue; and
 * close() ends what docket opened while the caller's cluster stays open.
 */
import { randomBytes } from 'node:crypto';
import { Cluster } from 'ioredis';
import { createScheduler, type Task } from '../../lib';
import { queuesOnMasters, type TestCluster, useCluster } from '../support/cluster';
import { eventually, sleep, uniquePrefix } from '../support/harness';
import { connectionsNamed } from '../support/round-trip';
import { clientName } from '../../lib/redis/client-name';

const clusterOf = useCluster();
let cluster: TestCluster;
let queues: Array<{ queue: string; port: number }>;
let caller: Cluster;
/** The caller's connection name; the connections docket opens from its cluster carry docket's own (clientName()). */
const NAME = `io-${randomBytes(4).toString('hex')}`;

/** How many connections the cluster's nodes hold under `name`. */
async function named(name = NAME): Promise<number> {
  const counts = await Promise.all(cluster.clients.filter((_, i) => cluster.nodes[i].running).map((raw) => connectionsNamed(raw, name)));
  return counts.reduce((a, b) => a + b, 0);
}

beforeAll(async () => {
  cluster = clusterOf();
  queues = await queuesOnMasters(cluster, 3);
  caller = new Cluster(
    cluster.nodes.slice(0, 1).map((n) => ({ host: '127.0.0.1', port: n.port })),
    { redisOptions: { connectionName: NAME } },
  );
  caller.on('error', () => {});
  await new Promise<void>((resolve) => caller.once('ready', () => resolve()));
});

afterAll(async () => {
  await caller?.quit();
});

describe("a caller's ioredis Cluster", () => {
  it('puts, claims and acks on queues of three masters with no redirect, and is left open by close()', async () => {
    expect(new Set(queues.map((q) => q.port)).size).toBe(3);
    // Every node connection of the caller's own is open first (ioredis opens them lazily), so the count below is docket's alone.
    await Promise.all(caller.nodes('all').map((node) => node.call('PING')));
    const own = await named();
    const docket = await named(clientName());
    const s = await createScheduler({ client: caller, prefix: uniquePrefix('io'), onWarning: () => {} });
    try {
      const before = await cluster.redirects();
      for (const { queue } of queues) {
        const first = await s.put({ n: 1 }, { queue });
        expect(await s.put({ n: 1 }, { queue })).toMatchObject({ hash: first.hash, added: false });
        await s.putMany(Array.from({ length: 20 }, (_, i) => ({ data: { i }, options: { queue } })));
        const claimed = await s.claimMany(30, { queue });
        expect(claimed).toHaveLength(21);
        for (const task of claimed) expect(await s.ack(task)).toBe(true);
        expect(await s.stats({ queue })).toMatchObject({ ready: 0, active: 0, deduplicated: 1 });
      }
      expect((await cluster.redirects()) - before).toBe(0);
      // docket's duplicate is named as docket's; the caller's connections keep their name.
      expect(await named(clientName())).toBeGreaterThan(docket);
      expect(await named()).toBe(own);
    } finally {
      await s.close();
    }
    expect(caller.status).toBe('ready');
    expect(await caller.call('PING')).toBe('PONG');
    // docket's duplicate of the cluster is gone; the caller's own connections stay.
    await eventually(async () => (await named(clientName())) === docket);
    expect(await named()).toBe(own);
  });

  it('runs workers that wait on the master of their queue, woken by a put, and waits for results there', async () => {
    const s = await createScheduler({ client: caller, prefix: uniquePrefix('io'), onWarning: () => {} });
    try {
      const ran = new Map<string, unknown[]>();
      const workers = queues.map(({ queue }) => {
        ran.set(queue, []);
        return s.work(async (task: Task) => void ran.get(queue)!.push(task.data), { queue });
      });
      await sleep(200); // every worker is idle, blocked on its queue's master
      const hashes = [];
      for (const { queue } of queues) hashes.push((await s.put({ on: queue }, { queue, keepResult: { minutes: 1 } })).hash);
      await eventually(() => [...ran.values()].every((data) => data.length === 1), 10_000);
      for (const [i, { queue }] of queues.entries()) {
        expect(ran.get(queue)).toEqual([{ on: queue }]);
        expect(await s.result(hashes[i], { queue, wait: 5000 })).toMatchObject({ state: 'done' });
      }
      await Promise.all(workers.map((w) => w.close()));
    } finally {
      await s.close();
    }
  });
});
