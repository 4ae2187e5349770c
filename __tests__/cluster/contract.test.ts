/**
 * The core contract on a real Redis Cluster (3 masters, 3 replicas), with queues spread over all
 * three masters: every call reaches the master of its queue's slot at once, so Redis answers no
 * MOVED or ASK redirect.
 */
import { createCluster } from 'redis';
import { createScheduler, type Scheduler, type Task } from '../../lib';
import { slotOf } from '../../lib/redis/connection';
import { queuesOnMasters, type TestCluster, useCluster } from '../support/cluster';
import { eventually, sleep, uniquePrefix } from '../support/harness';

const clusterOf = useCluster();
let cluster: TestCluster;
let queues: Array<{ queue: string; port: number }>;

beforeAll(async () => {
  cluster = clusterOf();
  queues = await queuesOnMasters(cluster, 3);
});

async function open(): Promise<Scheduler> {
  return createScheduler({ cluster: cluster.urls, prefix: uniquePrefix('c'), onWarning: () => {} });
}

describe('on a Redis Cluster', () => {
  it('spreads the test queues over three different masters, and counts redirects', async () => {
    expect(new Set(queues.map((q) => q.port)).size).toBe(3);
    // A command sent to a master that does not own the key's slot is answered MOVED, and counted.
    const before = await cluster.redirects();
    const wrong = cluster.clients[cluster.nodes.findIndex((n) => n.port === queues[1].port)];
    await expect(wrong.get(`docket:{${queues[0].queue}}:counts`)).rejects.toThrow(/MOVED/);
    expect((await cluster.redirects()) - before).toBe(1);
  });

  it('runs put, de-dup, priority, claim, ack, fail, dead letters, reschedule, cancel and stats on every master, with no redirect', async () => {
    const s = await open();
    try {
      const before = await cluster.redirects();
      for (const { queue } of queues) {
        const first = await s.put({ a: 1, b: 2 }, { queue });
        const again = await s.put({ b: 2, a: 1 }, { queue });
        expect(again).toMatchObject({ hash: first.hash, added: false });
        const many = await s.putMany(Array.from({ length: 300 }, (_, i) => ({ data: { i }, options: { queue } })));
        expect(many.filter((r) => r.added)).toHaveLength(300);
        await s.put('urgent', { queue, priority: true });
        const urgent = (await s.claim({ queue }))!;
        expect(urgent.data).toBe('urgent');
        expect(await s.ack(urgent)).toBe(true);

        const claimed = await s.claimMany(10, { queue });
        expect(claimed[0].data).toEqual({ a: 1, b: 2 });
        for (const task of claimed) expect(await s.ack(task)).toBe(true);

        const doomed = await s.put('doomed', { queue, maxAttempts: 1, priority: true });
        const task = (await s.claim({ queue }))!;
        expect(task.hash).toBe(doomed.hash);
        expect(await s.fail(task, { error: new Error('boom') })).toBe('dead');
        expect((await s.listDead({ queue })).map((d) => d.hash)).toEqual([doomed.hash]);
        expect(await s.redrive(doomed.hash, { queue })).toBe(true);
        expect(await s.cancel(doomed.hash, { queue })).toBe(true);

        const later = await s.put('later', { queue, delay: 60_000 });
        expect(await s.reschedule(later.hash, Date.now() + 120_000, { queue })).toBe(true);
        expect(await s.get(later.hash, { queue })).toMatchObject({ state: 'delayed', data: 'later' });
        expect(await s.stats({ queue })).toMatchObject({ ready: 291, delayed: 1, active: 0, dead: 0, deduplicated: 1 });
      }
      expect((await cluster.redirects()) - before).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('runs workers that wait on the master of their queue: woken by a put, and by their timer for a delayed task', async () => {
    const s = await open();
    try {
      const before = await cluster.redirects();
      const ran = new Map<string, Task[]>();
      const workers = queues.map(({ queue }) => {
        ran.set(queue, []);
        return s.work(async (task: Task) => void ran.get(queue)!.push(task), { queue, concurrency: 4 });
      });
      await sleep(200); // every worker is idle, blocked on its queue's master
      for (const { queue } of queues) {
        await s.put({ now: queue }, { queue });
        await s.put({ later: queue }, { queue, delay: 400 });
      }
      await eventually(() => [...ran.values()].every((tasks) => tasks.length === 2), 10_000);
      for (const { queue } of queues) {
        expect(ran.get(queue)!.map((t) => t.data)).toEqual([{ now: queue }, { later: queue }]);
      }
      await Promise.all(workers.map((w) => w.close()));
      expect((await cluster.redirects()) - before).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('takes fair groups in turn and holds group limits on every master, with no redirect', async () => {
    const s = await open();
    try {
      const before = await cluster.redirects();
      for (const { queue } of queues) {
        await s.limitGroups(1, { queue, group: 'a' });
        for (const [data, group] of [
          ['a1', 'a'],
          ['a2', 'a'],
          ['b1', 'b'],
          ['b2', 'b'],
        ])
          await s.put(data, { queue, group });
        const first = await s.claimMany(10, { queue });
        // a's limit of 1 parks a2; b has no limit.
        expect(first.map((t) => t.data).sort()).toEqual(['a1', 'b1', 'b2']);
        expect(await s.groupLimits({ queue })).toEqual({ default: null, groups: { a: 1 }, active: { a: 1, b: 2 }, paused: [] });
        expect(await s.ack(first.find((t) => t.data === 'a1')!)).toBe(true);
        expect((await s.claimMany(10, { queue })).map((t) => t.data)).toEqual(['a2']);
      }
      expect((await cluster.redirects()) - before).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('keeps recurring schedules on the master of their queue', async () => {
    const s = await open();
    try {
      const { queue } = queues[1];
      await s.every('tick', 200, 'tick', { queue });
      const ran: number[] = [];
      const worker = s.work(async (task: Task) => void ran.push(task.runAt), { queue });
      await eventually(() => ran.length >= 3, 10_000);
      await worker.close();
      expect(new Set(ran).size).toBe(ran.length);
      expect(await s.unschedule('tick', { queue })).toBe(true);
    } finally {
      await s.close();
    }
  });

  it('spreads a sharded queue over the masters, and drains every shard', async () => {
    const s = await open();
    try {
      const before = await cluster.redirects();
      const emails = s.sharded('emails', 12);
      const masters = new Set(await Promise.all(emails.queues.map((queue) => cluster.masterOf(slotOf(`{${queue}}`)))));
      expect(masters.size).toBe(3);
      await emails.putMany(Array.from({ length: 600 }, (_, i) => ({ data: { i } })));
      expect((await emails.putMany([{ data: { i: 5 } }]))[0].added).toBe(false);
      let done = 0;
      const worker = emails.work(async () => void done++, { concurrency: 4 });
      await eventually(() => done === 600, 20_000);
      await worker.close();
      expect(await emails.stats()).toMatchObject({ ready: 0, active: 0, deduplicated: 1 });
      expect((await cluster.redirects()) - before).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('runs the de-dup modes, kept results, result(wait) and progress on every master, with no redirect', async () => {
    const s = await open();
    try {
      const before = await cluster.redirects();
      for (const { queue } of queues) {
        const first = await s.put('refresh', { queue, unique: 'until-start' });
        const running = (await s.claim({ queue }))!;
        const next = await s.put('refresh', { queue, unique: 'until-start' });
        expect(next.status).toBe('added');
        expect(await s.fail(running, { error: 'x', retryIn: 0 })).toBe('merged');
        expect(await s.get(first.hash, { queue })).toBeNull();
        const waitingOne = (await s.claim({ queue }))!;
        expect(waitingOne.hash).toBe(next.hash);
        expect(await s.progress(waitingOne, { step: 1 })).toBe(true);
        expect((await s.get(next.hash, { queue }))!.progress).toEqual({ step: 1 });
        expect(await s.ack(waitingOne)).toBe(true);

        const win = await s.put('win', { queue, dedupWindow: 60_000 });
        await s.cancel(win.hash, { queue });
        expect(await s.put('win', { queue, dedupWindow: 60_000 })).toMatchObject({ hash: win.hash, status: 'duplicate' });
        const deb = await s.put({ v: 1 }, { queue, key: 'typing', onDuplicate: 'debounce', delay: 60_000 });
        expect(await s.put({ v: 2 }, { queue, key: 'typing', onDuplicate: 'debounce', delay: 60_000 })).toMatchObject({ hash: deb.hash, status: 'replaced' });

        const { hash } = await s.put('answer me', { queue, keepResult: 60_000 });
        const waiting = s.result(hash, { queue, wait: 10_000 });
        await sleep(50);
        await s.ack((await s.claim({ queue }))!, { answer: queue });
        expect(await waiting).toMatchObject({ state: 'done', result: { answer: queue } });
      }
      expect((await cluster.redirects()) - before).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('works over a cluster client the caller opened, and leaves it open', async () => {
    const client = createCluster({ rootNodes: [{ url: cluster.urls[0] }] });
    client.on('error', () => {});
    await client.connect();
    try {
      const s = await createScheduler({ client, prefix: uniquePrefix('c'), onWarning: () => {} });
      for (const { queue } of queues) {
        await s.put('x', { queue });
        const task = (await s.claim({ queue }))!;
        expect(await s.ack(task)).toBe(true);
      }
      await s.close();
      expect(client.isOpen).toBe(true);
      // The keys of a queue share its slot: the master that owns it holds them.
      expect(slotOf(`docket:{${queues[0].queue}}:counts`)).toBe(slotOf(`{${queues[0].queue}}`));
    } finally {
      await client.quit();
    }
  });

  // guarantees.md: "Every operation is a function call of docket's library; a node that lost it loads it again, and no caller sees "Function not found".
  it('loads the library on each master at its first call there, and again on a master that lost it, keeping put order', async () => {
    const s = await open();
    try {
      const libraries = async (port: number) => {
        const node = cluster.clients[cluster.nodes.findIndex((n) => n.port === port)];
        return ((await node.sendCommand(['FUNCTION', 'LIST', 'LIBRARYNAME', 'docket_*'])) as unknown[]).length;
      };
      for (const { queue } of queues) {
        await s.put('first', { queue });
        expect(await s.ack((await s.claim({ queue }))!)).toBe(true);
      }
      for (const { port } of queues) expect(await libraries(port)).toBeGreaterThan(0);
      // One master loses its functions (FUNCTION FLUSH; its replica follows it), as a master
      // restarted without persistence would.
      const { queue, port } = queues[1];
      await cluster.clients[cluster.nodes.findIndex((n) => n.port === port)].sendCommand(['FUNCTION', 'FLUSH']);
      expect(await libraries(port)).toBe(0);
      const items = Array.from({ length: 1000 }, (_, i) => ({ data: { i }, options: { queue } }));
      await s.putMany(items);
      const claimed = [];
      while (claimed.length < items.length) claimed.push(...(await s.claimMany(500, { queue })));
      expect(claimed.map((t) => (t.data as { i: number }).i)).toEqual(items.map((_, i) => i));
      for (const task of claimed) expect(await s.ack(task)).toBe(true);
      expect(await libraries(port)).toBe(1);
      // The other masters were not touched.
      for (const other of queues.filter((q) => q.port !== port)) expect(await s.put('still', { queue: other.queue })).toMatchObject({ added: true });
    } finally {
      await s.close();
    }
  });
});
