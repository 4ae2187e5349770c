/**
 * Start-up checks: warn about settings that weaken docket's guarantees, never fail for them.
 */
import { createClient } from 'redis';
import { createScheduler, ValidationError, type SchedulerOptions } from '../lib';
import { AOF_WARNING_TTL_MS } from '../lib/redis/checks';
import { startRedis, type RedisServer } from './support/redis-server';

async function warningsFrom(server: RedisServer, url = server.url, options: SchedulerOptions = {}): Promise<string[]> {
  const warnings: string[] = [];
  const s = await createScheduler({ url, ...options, onWarning: (m) => warnings.push(m) });
  await s.put('still works');
  await s.close();
  return warnings;
}

/** The warnings docket prints itself (no onWarning: process.emitWarning, type DocketWarning) while a scheduler starts. */
async function printedBy(url: string, options: SchedulerOptions = {}): Promise<string[]> {
  const emit = jest.spyOn(process, 'emitWarning').mockImplementation(() => {});
  try {
    const s = await createScheduler({ url, ...options });
    await s.close();
    return emit.mock.calls.filter((call) => (call as unknown[])[1] === 'DocketWarning').map((call) => String(call[0]));
  } finally {
    emit.mockRestore();
  }
}

async function withServer(args: string[], fn: (server: RedisServer) => Promise<void>): Promise<void> {
  const server = await startRedis(args);
  try {
    await fn(server);
  } finally {
    await server.stop();
  }
}

describe('start-up checks', () => {
  it('warns when AOF is off', () =>
    withServer([], async (server) => {
      const warnings = await warningsFrom(server);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/appendonly yes/);
    }));

  it('warns when the eviction policy could delete tasks', () =>
    withServer(['--appendonly', 'yes', '--maxmemory-policy', 'allkeys-lru'], async (server) => {
      const warnings = await warningsFrom(server);
      expect(warnings).toEqual([expect.stringMatching(/'allkeys-lru'.*noeviction/)]);
    }));

  it('says nothing when the settings are right', () =>
    withServer(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction'], async (server) => {
      expect(await warningsFrom(server)).toEqual([]);
    }));

  it('starts without a word when the user may not read the config', () =>
    withServer([], async (server) => {
      const admin = createClient({ url: server.url });
      await admin.connect();
      await admin.sendCommand(['ACL', 'SETUSER', 'limited', 'on', '>pw', '~*', '+@all', '-config', '-info']);
      await admin.quit();
      const url = server.url.replace('redis://', 'redis://limited:pw@');
      expect(await warningsFrom(server, url)).toEqual([]);
    }));

  it('prints the AOF warning once a day per server: only the process that sets the marker', () =>
    withServer([], async (server) => {
      expect(await printedBy(server.url)).toEqual([expect.stringMatching(/appendonly yes/)]);
      expect(await printedBy(server.url)).toEqual([]);
      expect(await printedBy(server.url, { prefix: 'docket' })).toEqual([]);
      const raw = createClient({ url: server.url });
      await raw.connect();
      try {
        expect(await raw.keys('*')).toContain('docket:{default}:warned');
        const ttl = await raw.pTTL('docket:{default}:warned');
        expect(ttl).toBeGreaterThan(AOF_WARNING_TTL_MS - 60_000);
        expect(ttl).toBeLessThanOrEqual(AOF_WARNING_TTL_MS);
        await raw.del('docket:{default}:warned'); // as the day's TTL running out would
        expect(await printedBy(server.url)).toHaveLength(1);
      } finally {
        await raw.quit();
      }
    }));

  it("hands every start's AOF warning to a caller's onWarning, and sets no marker (a CLI that drops it uses up no day)", () =>
    withServer([], async (server) => {
      expect(await warningsFrom(server)).toHaveLength(1);
      expect(await warningsFrom(server)).toHaveLength(1);
      const raw = createClient({ url: server.url });
      await raw.connect();
      expect(await raw.keys('*:warned')).toEqual([]);
      await raw.quit();
      expect(await printedBy(server.url)).toHaveLength(1); // the day's warning is still there to print
    }));

  it('leaves no marker once the queue is obliterated', () =>
    withServer([], async (server) => {
      expect(await printedBy(server.url, { prefix: 'gone' })).toHaveLength(1);
      const raw = createClient({ url: server.url });
      await raw.connect();
      try {
        expect(await raw.exists('gone:{default}:warned')).toBe(1);
        const s = await createScheduler({ url: server.url, prefix: 'gone', warnings: { aof: false } });
        await s.obliterate({ force: true });
        await s.close();
        expect(await raw.keys('gone:*')).toEqual([]);
      } finally {
        await raw.quit();
      }
    }));

  it('warns at every start when the user may not write the marker', () =>
    withServer([], async (server) => {
      const admin = createClient({ url: server.url });
      await admin.connect();
      // Every key of the queue but `warned` (the glob patterns skip w-a-r...), and the registry.
      const keys = ['~docket:{default}:[^w]*', '~docket:{default}:w[^a]*', '~docket:{default}:wa[^r]*', '~docket:queues'];
      await admin.sendCommand(['ACL', 'SETUSER', 'noset', 'on', '>pw', ...keys, '+@all']);
      await admin.quit();
      const url = server.url.replace('redis://', 'redis://noset:pw@');
      expect(await printedBy(url)).toHaveLength(1);
      expect(await printedBy(url)).toHaveLength(1);
    }));

  it('gives no AOF warning, and writes no marker, with warnings: { aof: false }', () =>
    withServer(['--maxmemory-policy', 'allkeys-lru'], async (server) => {
      const warnings = await printedBy(server.url, { warnings: { aof: false } });
      expect(warnings).toEqual([expect.stringMatching(/'allkeys-lru'/)]);
      const raw = createClient({ url: server.url });
      await raw.connect();
      expect(await raw.keys('*:warned')).toEqual([]);
      await raw.quit();
    }));

  it('refuses a bad warnings option with a ValidationError naming the field, before it connects', async () => {
    // Nothing listens on port 1: a check that connected first would fail with a ConnectionError.
    const bad = [
      [{ aof: 'no' }, 'options.warnings.aof'],
      [{ aof: false, eviction: false }, 'options.warnings.eviction'],
      [false, 'options.warnings'],
    ] as const;
    for (const [warnings, field] of bad) {
      const err = await createScheduler({ url: 'redis://127.0.0.1:1', warnings: warnings as never }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect(err).toMatchObject({ field });
    }
  });
});
