/**
 * Start-up checks: warn about settings that weaken docket's guarantees, never fail for them.
 */
import { createClient } from 'redis';
import { createScheduler } from '../lib';
import { startRedis, type RedisServer } from './support/redis-server';

async function warningsFrom(server: RedisServer, url = server.url): Promise<string[]> {
  const warnings: string[] = [];
  const s = await createScheduler({ url, onWarning: (m) => warnings.push(m) });
  await s.put('still works');
  await s.close();
  return warnings;
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
});
