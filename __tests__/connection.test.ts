/**
 * The connection: a client docket opens and closes itself, or one the caller owns; fast failure
 * on a wrong URL; routing by hash slot.
 */
import { ConnectionError, TimeoutError, BusyError, createScheduler, type Scheduler } from '../lib';
import { connect, slotOf } from '../lib/redis/connection';
import { freePort, startRedis } from './support/redis-server';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { createClient } from 'redis';
import { testUrl, uniquePrefix, useRedis } from './support/harness';

const redis = useRedis();

describe('connect', () => {
  it('uses a client you pass in, and close() leaves it open', async () => {
    const raw = await redis.raw();
    const s = await createScheduler({ client: raw, prefix: uniquePrefix('client-opt'), warnings: { aof: false } });
    const { hash } = await s.put('via my client');
    expect(await s.cancel(hash)).toBe(true);
    await s.close();
    expect(raw.isOpen).toBe(true);
    expect(await raw.ping()).toBe('PONG');
  });

  it('opens its own client from the URL, and close() quits it', async () => {
    const conn = await connect({ url: testUrl() });
    expect(await conn.send('any', ['PING'])).toBe('PONG');
    await conn.close();
    await expect(conn.send('any', ['PING'])).rejects.toBeInstanceOf(ConnectionError);
  });

  it('rejects with a typed error, quickly, when nothing listens at the URL', async () => {
    const port = await freePort();
    const started = Date.now();
    const err = await createScheduler({ url: `redis://user:secret@127.0.0.1:${port}` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).message).toContain(`127.0.0.1:${port}`);
    expect((err as ConnectionError).message).not.toContain('secret');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('rejects with a typed error, not a hang, when the server accepts but never answers', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket)); // reads nothing, writes nothing
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const started = Date.now();
      const err = await createScheduler({ url: `redis://127.0.0.1:${port}` }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ConnectionError);
      expect(Date.now() - started).toBeLessThan(8000);
    } finally {
      sockets.forEach((s) => s.destroy());
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('falls back to REDIS_URL when no url is given', async () => {
    const saved = process.env.REDIS_URL;
    process.env.REDIS_URL = testUrl();
    try {
      const s = await createScheduler({ prefix: uniquePrefix('env-url'), warnings: { aof: false } });
      expect(await s.stats()).toMatchObject({ ready: 0 });
      await s.close();
    } finally {
      if (saved === undefined) delete process.env.REDIS_URL;
      else process.env.REDIS_URL = saved;
    }
  });
});

describe('deadlines', () => {
  it('settles every call within commandTimeout when Redis stops answering', async () => {
    const server = await startRedis();
    const s = await createScheduler({ url: server.url, commandTimeout: 300, warnings: { aof: false } });
    try {
      await s.put('warm-up');
      process.kill(server.pid, 'SIGSTOP');
      const started = Date.now();
      const results = await Promise.allSettled([s.put('x'), s.claim(), s.stats()]);
      expect(Date.now() - started).toBeLessThan(1300);
      for (const r of results) {
        expect(r.status).toBe('rejected');
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(TimeoutError);
        expect((r as PromiseRejectedResult).reason.code).toBe('ERR_TIMEOUT');
      }
      process.kill(server.pid, 'SIGCONT');
      // The timed-out put may have landed after all: retrying it is safe, de-dup answers.
      const again = await s.put('x');
      expect(again.hash).toBeDefined();
      expect((await s.stats()).ready + (await s.stats()).active).toBe(2);
    } finally {
      process.kill(server.pid, 'SIGCONT');
      await s.close();
      await server.stop();
    }
  });

  /**
   * Runs `check` while another client's script spins for `spinMs` on a server that answers BUSY
   * after 50 ms of a script, with a scheduler whose calls have `timeoutMs`.
   */
  async function duringBusyScript(spinMs: number, timeoutMs: number, check: (s: Scheduler) => Promise<void>) {
    const server = await startRedis(['--busy-reply-threshold', '50']);
    const s = await createScheduler({ url: server.url, commandTimeout: timeoutMs, warnings: { aof: false } });
    const raw = createClient({ url: server.url });
    await raw.connect();
    try {
      await s.put('warm-up');
      const spin = raw.eval(
        `local t = redis.call('TIME'); local s = t[1] * 1e6 + t[2]; while true do t = redis.call('TIME'); if t[1] * 1e6 + t[2] - s > ${spinMs * 1000} then return 1 end end`,
      );
      await new Promise((r) => setTimeout(r, 100));
      await check(s);
      await spin;
    } finally {
      await raw.quit();
      await s.close();
      await server.stop();
    }
  }

  it('waits out BUSY (a long script) instead of failing, within the deadline', () =>
    duringBusyScript(400, 3000, async (s) => {
      await expect(s.put('during a busy script')).resolves.toMatchObject({ added: true });
    }));

  it('gives up on BUSY with a typed error once the deadline passes', () =>
    duringBusyScript(1000, 300, async (s) => {
      const err = await s.stats().catch((e: unknown) => e);
      expect(err instanceof BusyError || err instanceof TimeoutError).toBe(true);
    }));
});

describe('slotOf', () => {
  it('matches Redis Cluster (CRC16 XMODEM mod 16384)', () => {
    // Values from the Redis Cluster specification and CLUSTER KEYSLOT.
    expect(slotOf('123456789')).toBe(0x31c3 % 16384);
    expect(slotOf('foo')).toBe(12182);
    expect(slotOf('{user1000}.following')).toBe(slotOf('{user1000}.followers'));
    // An empty tag does not count: the whole key is hashed.
    expect(slotOf('{}x')).not.toBe(slotOf('x'));
  });
});
