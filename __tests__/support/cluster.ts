/**
 * A real Redis Cluster on loopback for the cluster suite: 3 masters and 3 replicas of
 * `redis-server --cluster-enabled yes`, each in a throwaway dir, joined with
 * `redis-cli --cluster create --cluster-yes`, and stopped by their pids.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { createClient, type RedisClientType } from 'redis';
import { slotOf } from '../../lib/redis/connection';
import { freePort, startRedis, type ControlledRedis } from './redis-server';

const run = promisify(execFile);

export interface TestCluster {
  nodes: ControlledRedis[];
  /** redis:// URLs of every node, to pass as root nodes. */
  urls: string[];
  /** One client per node, for checks (INFO, CLUSTER SLOTS). */
  clients: RedisClientType[];
  /** The port of the master that serves `slot`. */
  masterOf(slot: number): Promise<number>;
  /** MOVED and ASK redirects every node has answered so far. */
  redirects(): Promise<number>;
  stop(): Promise<void>;
}

export async function startCluster(size = 6): Promise<TestCluster> {
  const nodes: ControlledRedis[] = [];
  const clients: RedisClientType[] = [];
  const stop = async () => {
    await Promise.all(clients.map((c) => c.disconnect().catch(() => {})));
    await Promise.all(nodes.map((n) => n.stop()));
  };
  try {
    for (let i = 0; i < size; i++) {
      // The bus port is given explicitly: port + 10000, Redis's default, may be past 65535.
      const bus = await freePort();
      nodes.push(await startRedis(['--cluster-enabled', 'yes', '--cluster-port', String(bus), '--cluster-node-timeout', '2000']));
    }
    await run('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '1', '--cluster-yes']);
    for (const node of nodes) {
      const client = createClient({ url: node.url }) as RedisClientType;
      client.on('error', () => {});
      await client.connect();
      clients.push(client);
    }
    // Ready once every node sees the cluster whole and every replica has synced with its master:
    // a replica that never synced is not eligible for failover.
    await waitFor(async () => {
      for (const client of clients) {
        if (!/cluster_state:ok/.test(await client.sendCommand(['CLUSTER', 'INFO']))) return false;
        const replication = await client.info('replication');
        if (/role:slave/.test(replication) && !/master_link_status:up/.test(replication)) return false;
      }
      return true;
    }, 30_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    nodes,
    urls: nodes.map((n) => n.url),
    clients,
    async masterOf(slot) {
      // Asked of a running node: a killed one would never answer.
      const live = clients[nodes.findIndex((n) => n.running)];
      const ranges = (await live.sendCommand(['CLUSTER', 'SLOTS'])) as Array<[number, number, [string, number]]>;
      const range = ranges.find(([from, to]) => slot >= from && slot <= to);
      if (!range) throw new Error(`no master serves slot ${slot}`);
      return Number(range[2][1]);
    },
    async redirects() {
      let total = 0;
      for (const [i, client] of clients.entries()) {
        if (!nodes[i].running) continue;
        const info = await client.info('errorstats');
        for (const m of info.matchAll(/errorstat_(?:MOVED|ASK):count=(\d+)/g)) total += Number(m[1]);
      }
      return total;
    },
    stop,
  };
}

/** Starts a cluster before a test file's tests and stops it after them; call the result for it. */
export function useCluster(): () => TestCluster {
  let cluster: TestCluster | undefined;
  beforeAll(async () => {
    cluster = await startCluster();
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });
  return () => cluster!;
}

/** Queue names whose slots lie on `count` different masters, one each. */
export async function queuesOnMasters(cluster: TestCluster, count = 3): Promise<Array<{ queue: string; port: number }>> {
  const found = new Map<number, string>();
  for (let i = 0; found.size < count && i < 10_000; i++) {
    const queue = `q${i}`;
    const port = await cluster.masterOf(slotOf(`{${queue}}`));
    if (!found.has(port)) found.set(port, queue);
  }
  return [...found].map(([port, queue]) => ({ queue, port }));
}

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`cluster not ready in ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
