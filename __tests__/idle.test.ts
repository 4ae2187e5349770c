/**
 * The idle wait: woken by put and by its own timer at the next run-at, and no polling.
 */
import { createScheduler } from '../lib';
import { eventually, sleep, useRedis } from './support/harness';
import { clientCommands, monitor } from './support/monitor';
import { startRedis } from './support/redis-server';

const redis = useRedis();

describe('the idle wait', () => {
  it('wakes an idle worker on put, long before its 5 s safety net', async () => {
    const s = await redis.scheduler();
    const started: number[] = [];
    const worker = s.work(async () => {
      started.push(Date.now());
    });
    await sleep(200); // idle, blocked on the wake list
    const sent = Date.now();
    await s.put('wake up');
    await eventually(() => started.length === 1, 4000);
    await worker.close();
    expect(started[0] - sent).toBeLessThan(1000);
  });

  it('wakes on its own timer at a delayed task run-at, not before', async () => {
    const s = await redis.scheduler();
    const started: number[] = [];
    const worker = s.work(async () => {
      started.push(Date.now());
    });
    await sleep(100);
    const sent = Date.now();
    await s.put('at 400 ms', { delay: 400 });
    await eventually(() => started.length === 1, 4000);
    await worker.close();
    expect(started[0] - sent).toBeGreaterThanOrEqual(390);
    expect(started[0] - sent).toBeLessThan(1400);
  });

  it('re-arms when a task with an earlier run-at arrives while it waits', async () => {
    const s = await redis.scheduler();
    const started: string[] = [];
    const worker = s.work(async (task) => {
      started.push(task.data as string);
    });
    await s.put('far', { delay: 60_000 });
    await sleep(100);
    const sent = Date.now();
    await s.put('near', { delay: 300 });
    await eventually(() => started.length === 1, 4000);
    const took = Date.now() - sent;
    await worker.close();
    expect(started).toEqual(['near']);
    expect(took).toBeLessThan(1400);
  });

  it('does not poll while idle: no claim, no new wait and no heartbeat between its safety-net looks', async () => {
    const server = await startRedis();
    const s = await createScheduler({ url: server.url, warnings: { aof: false } });
    try {
      const worker = s.work(async () => {});
      await sleep(200);
      const seen = clientCommands(await monitor(server.port, 1500));
      await worker.close();
      expect(seen).toEqual([]);
    } finally {
      await s.close();
      await server.stop();
    }
  });

  it('is quiet: one idle worker (concurrency 8) on an empty queue sends at most 10 commands in 10 s', async () => {
    const server = await startRedis();
    const s = await createScheduler({ url: server.url, warnings: { aof: false } });
    try {
      const worker = s.work(async () => {}, { concurrency: 8 });
      await sleep(500);
      const seen = clientCommands(await monitor(server.port, 10_000));
      await worker.close();
      // Its wait and the claim behind it, every 5 s (MAX_IDLE_MS): no beats, no look at schedules.
      expect(seen.length).toBeLessThanOrEqual(10);
      expect(seen.filter((line) => /"blpop"/i.test(line)).length).toBeGreaterThanOrEqual(1);
    } finally {
      await s.close();
      await server.stop();
    }
  }, 20_000);

  it('picks up in one step: the claim that leases a put task runs on the blocked connection, right behind its BLPOP', async () => {
    const server = await startRedis();
    const s = await createScheduler({ url: server.url, warnings: { aof: false } });
    const other = await createScheduler({ url: server.url, warnings: { aof: false } });
    try {
      const started: string[] = [];
      const watching = monitor(server.port, 1200);
      await sleep(50);
      const worker = s.work(async (task) => void started.push(task.data as string));
      await sleep(300); // idle: CLIENT ID, BLPOP and the claim sent, the BLPOP blocked
      await other.put('picked-up-7f3a');
      await eventually(() => started.length === 1, 4000);
      const seen = await watching;
      await worker.close();
      const from = (line: string) => /\[\d+ ([^\]]+)\]/.exec(line)?.[1];
      const blocked = seen.filter((line) => /"blpop"/i.test(line)).map(from);
      const put = seen.findIndex((line) => line.includes('picked-up-7f3a'));
      expect(blocked.length).toBeGreaterThan(0);
      expect(put).toBeGreaterThan(-1);
      // The first call of the worker's scheduler after the put: its claim, from the blocked connection.
      const next = seen.slice(put + 1).find((line) => /"fcall"/i.test(line) && from(line) !== from(seen[put]));
      expect(next).toMatch(/:ready"/);
      expect(blocked).toContain(from(next!));
    } finally {
      await s.close();
      await other.close();
      await server.stop();
    }
  });

  it('hands back what the claim behind its wait leased when close() ends the wait, a put racing it', async () => {
    const s = await redis.scheduler();
    const other = await redis.scheduler({ prefix: s.prefix });
    const ran: string[] = [];
    const errors: unknown[] = [];
    const worker = s.work(async (task) => void ran.push(task.data as string), { onError: (err) => errors.push(err) });
    await sleep(200); // idle, its claim behind the BLPOP
    // Sent in the same turn: the put may wake the BLPOP before close()'s CLIENT UNBLOCK does, or after.
    const [{ hash }] = await Promise.all([other.put('raced'), worker.close()]);
    expect(ran).toEqual([]);
    expect(errors).toEqual([]);
    expect(await s.get(hash)).toMatchObject({ state: 'ready' });
  });
});

/** Every command the server runs for `ms`, as MONITOR prints them (node-redis v4 has no MONITOR). */
