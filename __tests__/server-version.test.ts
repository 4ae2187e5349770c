/**
 * docket runs every operation as a Redis Functions call, so it needs Redis 7.0 or later (Valkey
 * 7.2 or later): createScheduler refuses a server without Functions with a typed error that names
 * the version it found and the one it needs, before it writes anything (guarantees.md, the
 * settings the promises assume: "Redis 7.0 or later (Valkey 7.2 or later)").
 */
import { createClient } from 'redis';
import { createScheduler, UnsupportedServerError } from '../lib';
import { NEEDED_VERSION, olderThan } from '../lib/redis/functions';
import { keysUnder } from './support/harness';
import { startRedis } from './support/redis-server';

describe('the Redis version docket needs', () => {
  it('compares versions part by part', () => {
    expect(olderThan('6.2.14', NEEDED_VERSION)).toBe(true);
    expect(olderThan('6.0.20', '7.0.0')).toBe(true);
    expect(olderThan('7.0.0', '7.0.0')).toBe(false);
    expect(olderThan('7.0.15', '7.0.0')).toBe(false);
    expect(olderThan('7.2.4', '7.0.0')).toBe(false);
    expect(olderThan('10.0.0', '7.0.0')).toBe(false);
    expect(olderThan('7', '7.0.0')).toBe(false);
  });

  it('says what it found and what it needs', () => {
    const err = new UnsupportedServerError('6.2.14', NEEDED_VERSION);
    expect(err).toMatchObject({ name: 'UnsupportedServerError', code: 'ERR_UNSUPPORTED_SERVER', found: '6.2.14', needed: '7.0.0' });
    expect(err.message).toMatch(/Redis 6\.2\.14 cannot run docket: it needs Redis 7\.0\.0 or later \(Valkey 7\.2 or later\)/);
  });

  it('refuses a server that has no FUNCTION command, as one before 7.0, and writes nothing', async () => {
    // The FUNCTION command renamed away: the server answers "unknown command", as Redis 6 does.
    const server = await startRedis(['--rename-command', 'FUNCTION', 'hidden-function']);
    const raw = createClient({ url: server.url });
    await raw.connect();
    try {
      const err = await createScheduler({ url: server.url, warnings: { aof: false } }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnsupportedServerError);
      const found = /redis_version:([\d.]+)/.exec(await raw.info('server'))![1];
      expect(err).toMatchObject({ code: 'ERR_UNSUPPORTED_SERVER', found, needed: NEEDED_VERSION });
      expect((err as Error).message).toContain('has no FUNCTION command');
      expect(await keysUnder(raw as never, '')).toEqual([]);
      expect(await raw.dbSize()).toBe(0);
    } finally {
      await raw.quit();
      await server.stop();
    }
  });
});
