/**
 * docket's libraries on a real Redis Cluster (lib/features/libraries.ts): every master is listed
 * and cleaned, each with the connections there that carry docket's name (the node clients of a
 * cluster docket opens are named by node-redis's `name` option); and where the ACL refuses CLIENT
 * SETNAME, the cluster is opened again unnamed rather than not at all.
 */
import { createScheduler, type Scheduler } from '../../lib';
import { libraries, removeUnused } from '../../lib/features/libraries';
import { clientName } from '../../lib/redis/client-name';
import { contextOf } from '../../lib/redis/context';
import { docketLibrary } from '../../lib/redis/library';
import { queuesOnMasters, type TestCluster, useCluster } from '../support/cluster';
import { uniquePrefix } from '../support/harness';
import { connectionsNamed } from '../support/round-trip';

const clusterOf = useCluster();
let cluster: TestCluster;
let queues: Array<{ queue: string; port: number }>;

const OLD = 'docket_0_0_9_aaaaaaaaaaaa';

beforeAll(async () => {
  cluster = clusterOf();
  queues = await queuesOnMasters(cluster, 3);
});

/** The check clients of the three masters. */
const masters = () => queues.map(({ port }) => cluster.clients[cluster.nodes.findIndex((n) => n.port === port)]);

/** Puts a task on every queue, so each master has loaded this docket's library. */
async function touchEveryMaster(s: Scheduler): Promise<void> {
  for (const { queue } of queues) await s.put({ on: queue }, { queue });
}

describe("docket's libraries on a cluster", () => {
  it('are listed and removed on every master, each with the connections there that name it', async () => {
    const s = await createScheduler({ cluster: cluster.urls, prefix: uniquePrefix('lib'), onWarning: () => {} });
    try {
      await touchEveryMaster(s);
      for (const raw of masters()) {
        await raw.sendCommand(['FUNCTION', 'LOAD', 'REPLACE', `#!lua name=${OLD}\nredis.register_function('${OLD}_x', function() return 1 end)`]);
        // The scheduler's node client of this master carries docket's name.
        expect(await connectionsNamed(raw, clientName())).toBeGreaterThanOrEqual(1);
      }
      const ctx = contextOf(s)!;
      const found = await libraries(ctx);
      const nodes = queues.map(({ port }) => `127.0.0.1:${port}`).sort();
      expect([...new Set(found.map((l) => l.node))].sort()).toEqual(nodes);
      for (const node of nodes) {
        expect(found.find((l) => l.node === node && l.name === docketLibrary().name)).toMatchObject({ own: true, connections: expect.any(Number) });
        expect(found.find((l) => l.node === node && l.name === OLD)).toMatchObject({ own: false, connections: 0, version: '0.0.9' });
        expect(found.find((l) => l.node === node && l.name === docketLibrary().name)!.connections).toBeGreaterThanOrEqual(1);
      }
      const removed = await removeUnused(ctx);
      expect(removed.map((l) => `${l.node} ${l.name}`).sort()).toEqual(nodes.map((node) => `${node} ${OLD}`));
      expect((await libraries(ctx)).map((l) => l.name)).toEqual(nodes.map(() => docketLibrary().name));
    } finally {
      await s.close();
    }
  });

  it('are opened again unnamed where the ACL refuses CLIENT SETNAME, and work', async () => {
    // ACL users are per node: every node gets this one.
    await Promise.all(cluster.clients.map((raw) => raw.sendCommand(['ACL', 'SETUSER', 'nameless', 'on', '>pw', '~*', '&*', '+@all', '-client|setname'])));
    const urls = cluster.urls.map((url) => url.replace('redis://', 'redis://nameless:pw@'));
    const s = await createScheduler({ cluster: urls, prefix: uniquePrefix('lib'), onWarning: () => {} });
    try {
      await touchEveryMaster(s);
      for (const { queue } of queues) expect(await s.claim({ queue })).toMatchObject({ data: { on: queue } });
      for (const raw of masters()) expect(await connectionsNamed(raw, clientName())).toBe(0);
    } finally {
      await s.close();
    }
  });
});
