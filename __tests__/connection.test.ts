/**
 * The connection: a client docket opens and closes itself, or one the caller owns; fast failure
 * on a wrong URL; routing by hash slot.
 */
import { RedisError, createScheduler } from '../lib';
import { connect, slotOf } from '../lib/connection';
import { freePort } from './support/redis-server';
import { testUrl, useRedis } from './support/harness';

const redis = useRedis();

describe('connect', () => {
  it('uses a client you pass in, and close() leaves it open', async () => {
    const raw = await redis.raw();
    const s = await createScheduler({ client: raw, prefix: 'client-opt' });
    const { hash } = await s.put('via my client');
    expect(await s.cancel(hash)).toBe(true);
    await s.close();
    expect(raw.isOpen).toBe(true);
    expect(await raw.ping()).toBe('PONG');
  });

  it('opens its own client from the URL, and close() quits it', async () => {
    const conn = await connect(testUrl());
    expect(await conn.send('any', ['PING'])).toBe('PONG');
    await conn.close();
    await expect(conn.send('any', ['PING'])).rejects.toBeInstanceOf(RedisError);
  });

  it('rejects with a typed error, quickly, when nothing listens at the URL', async () => {
    const port = await freePort();
    const started = Date.now();
    const err = await createScheduler({ url: `redis://user:secret@127.0.0.1:${port}` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisError);
    expect((err as RedisError).message).toContain(`127.0.0.1:${port}`);
    expect((err as RedisError).message).not.toContain('secret');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('falls back to REDIS_URL when no url is given', async () => {
    const saved = process.env.REDIS_URL;
    process.env.REDIS_URL = testUrl();
    try {
      const s = await createScheduler({ prefix: 'env-url' });
      expect(await s.stats()).toMatchObject({ ready: 0 });
      await s.close();
    } finally {
      if (saved === undefined) delete process.env.REDIS_URL;
      else process.env.REDIS_URL = saved;
    }
  });
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
