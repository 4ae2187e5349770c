/**
 * The readers behind result(hash, { wait }): one scheduler's callers share one connection however
 * many queues they wait in, and a queue joins the blocked read without missing a finish.
 */
import { createClient } from 'redis';
import type { Scheduler } from '../lib';
import { eventually, sleep, useRedis } from './support/harness';
import { startRedis } from './support/redis-server';

const redis = useRedis();
type Raw = Awaited<ReturnType<typeof redis.raw>>;

/** The clients connected now, and how many of them are blocked in XREAD. */
async function clients(raw: Raw): Promise<{ all: number; xread: number }> {
  const lines = String(await raw.sendCommand(['CLIENT', 'LIST']))
    .split('\n')
    .filter((line) => line.trim() !== '');
  return { all: lines.length, xread: lines.filter((line) => / cmd=xread /.test(line)).length };
}

/**
 * A scheduler and a raw client on a redis-server of the test's own: its connections are counted.
 * `withoutUnblock`: the scheduler's user may not run CLIENT UNBLOCK.
 */
async function ownServer(withoutUnblock = false): Promise<{ s: Scheduler; raw: Raw; stop(): Promise<void> }> {
  const server = await startRedis();
  const raw = createClient({ url: server.url }) as Raw;
  await raw.connect();
  if (withoutUnblock) await raw.sendCommand(['ACL', 'SETUSER', 'nounblock', 'on', '>pw', '~*', '&*', '+@all', '-client|unblock']);
  const s = await redis.scheduler({ url: withoutUnblock ? server.url.replace('redis://', 'redis://nounblock:pw@') : server.url });
  return {
    s,
    raw,
    async stop() {
      await s.close();
      await raw.quit();
      await server.stop();
    },
  };
}

/**
 * Waits in queue A until the reader is blocked on A's stream alone, then waits in queue B for a
 * task that finishes right after that caller's first read, and returns what B's caller is told.
 * B keeps no outcome: only the finish event can tell its caller `done`. Its first read goes out
 * within result() (so before the ack, on the same connection); a reader that read on without B
 * would leave the caller to its last read once `wait` (3 s) ran out, which knows nothing of B: null.
 */
async function joinBlockedRead(s: Scheduler, raw: Raw): Promise<unknown> {
  const a = await s.put('a', { queue: 'blocked-a' });
  const waitingA = s.result(a.hash, { queue: 'blocked-a', wait: 30_000 });
  await eventually(async () => (await clients(raw)).xread === 1, 5000);
  await s.put('b', { queue: 'blocked-b' });
  const task = (await s.claim({ queue: 'blocked-b' }))!;
  const waitingB = s.result(task.hash, { queue: 'blocked-b', wait: 3000 });
  expect(await s.ack(task)).toBe(true);
  const told = await waitingB;
  expect((await clients(raw)).xread).toBeLessThanOrEqual(1);
  await s.ack((await s.claim({ queue: 'blocked-a' }))!);
  expect(await waitingA).toMatchObject({ state: 'done' });
  return told;
}

describe('result({ wait }) in many queues', () => {
  // guarantees.md: one scheduler's waits hold at most one connection, however many queues they wait in.
  it('waiting in 300 queues at once opens one connection, adds no listener per queue, and answers every waiter', async () => {
    const { s, raw, stop } = await ownServer();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const queues = Array.from({ length: 300 }, (_, i) => `many-${i}`);
      const puts = await Promise.all(queues.map((queue, i) => s.put({ i }, { queue, keepResult: 60_000 })));
      const before = await clients(raw);
      const waits = puts.map((p, i) => s.result(p.hash, { queue: queues[i], wait: 30_000 }));
      // Every caller has read its task once and joined the read: one XREAD over the 300 streams.
      await eventually(async () => (await clients(raw)).xread === 1, 5000);
      await sleep(300);
      const during = await clients(raw);
      expect(during.xread).toBeLessThanOrEqual(1);
      expect(during.all - before.all).toBeLessThanOrEqual(1);
      // Finishes in queues spread over the set reach their callers (and no one else's).
      const some = [0, 17, 150, 151, 299];
      for (const i of some) expect(await s.ack((await s.claim({ queue: queues[i] }))!, `r${i}`)).toBe(true);
      for (const i of some) expect(await waits[i]).toMatchObject({ state: 'done', queue: queues[i], result: `r${i}` });
      for (const [i, queue] of queues.entries()) if (!some.includes(i)) await s.ack((await s.claim({ queue }))!, `r${i}`);
      const outs = await Promise.all(waits);
      outs.forEach((o, i) => expect(o).toMatchObject({ state: 'done', result: `r${i}` }));
      // Nobody waits any more: the reader's connection is gone.
      await eventually(async () => (await clients(raw)).xread === 0, 3000);
      await sleep(50);
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
      await stop();
    }
  });

  it('a caller in a queue not read yet, joining while the read is blocked, is told of a finish right after its first read', async () => {
    const { s, raw, stop } = await ownServer();
    try {
      expect(await joinBlockedRead(s, raw)).toMatchObject({ state: 'done', queue: 'blocked-b', result: null, attempts: 1 });
    } finally {
      await stop();
    }
  });

  it('without CLIENT UNBLOCK, a caller in a queue not read yet still joins the read before its wait runs out', async () => {
    const { s, raw, stop } = await ownServer(true);
    try {
      expect(await joinBlockedRead(s, raw)).toMatchObject({ state: 'done', queue: 'blocked-b', result: null, attempts: 1 });
    } finally {
      await stop();
    }
  });

  it('callers in several queues are answered after a Redis restart: the shared reader reads on from where it was', async () => {
    const server = await startRedis(['--appendonly', 'yes', '--appendfsync', 'always']);
    const s = await redis.scheduler({ url: server.url });
    try {
      const queues = Array.from({ length: 5 }, (_, i) => `restart-${i}`);
      const puts = await Promise.all(queues.map((queue) => s.put(queue, { queue })));
      const waits = puts.map((p, i) => s.result(p.hash, { queue: queues[i], wait: 30_000 }));
      await sleep(200);
      await server.kill();
      await server.restart();
      await eventually(
        () =>
          s.stats().then(
            () => true,
            () => false,
          ),
        10_000,
      );
      for (const queue of queues) expect(await s.ack((await s.claim({ queue }))!)).toBe(true);
      const outs = await Promise.all(waits);
      outs.forEach((o, i) => expect(o).toMatchObject({ state: 'done', queue: queues[i] }));
    } finally {
      await s.close();
      await server.stop();
    }
  });

  it('closing the scheduler ends the waits of every queue with ClosedError, and the shared connection', async () => {
    const { s, raw, stop } = await ownServer();
    try {
      const puts = await Promise.all(Array.from({ length: 20 }, (_, i) => s.put(i, { queue: `closing-${i}` })));
      const waits = puts.map((p, i) => s.result(p.hash, { queue: `closing-${i}`, wait: 30_000 }).catch((err: Error) => err));
      await eventually(async () => (await clients(raw)).xread === 1, 5000);
      await s.close();
      for (const w of await Promise.all(waits)) expect(w).toMatchObject({ name: 'ClosedError' });
      await eventually(async () => (await clients(raw)).xread === 0, 3000);
    } finally {
      await stop();
    }
  });
});
