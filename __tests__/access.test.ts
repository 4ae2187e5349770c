/**
 * The start-up check of what the Redis user may run: a user without a command docket's scripts
 * need is refused before anything is written (a script refused half-way would strand a task);
 * one without CLIENT UNBLOCK is warned once, and delayed tasks still start close to their time.
 * guarantees.md, "The Redis user (ACL)": a user who may not run FUNCTION LOAD, FCALL_RO or FCALL is
 * refused with a PermissionError naming it, and nothing is written.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { createScheduler, PermissionError } from '../lib';
import { MIGRATION_ONLY, REQUIRED, UNBLOCK_WARNING } from '../lib/redis/access';
import { LUA_DIR } from '../lib/redis/scripts';
import { keysUnder, testUrl, uniquePrefix, useRedis } from './support/harness';

const redis = useRedis();

// The users made here are deleted after the file: on a Redis the tests did not start (REDIS_URL)
// they would outlive the run. A client of its own, as useRedis's close before this hook runs.
const users: string[] = [];
afterAll(async () => {
  if (users.length === 0) return;
  const admin = await createClient({ url: testUrl() }).connect();
  await admin.sendCommand(['ACL', 'DELUSER', ...users]);
  await admin.quit();
});

/** Every command docket sends, as ACL rules, less `without`. */
function rules(without: string[]): string[] {
  const all = [...Object.keys(REQUIRED), 'XADD', 'CLIENT UNBLOCK'].filter((c) => !without.includes(c));
  return all.map((c) => `+${c.toLowerCase().replace(' ', '|')}`);
}

/** A user allowed `prefix`'s keys and the given commands; its URL. */
async function user(prefix: string, without: string[]): Promise<string> {
  const raw = await redis.raw();
  const name = `u-${randomBytes(4).toString('hex')}`;
  users.push(name);
  await raw.sendCommand(['ACL', 'SETUSER', name, 'on', '>pw', 'resetkeys', `~${prefix}:*`, '-@all', ...rules(without)]);
  return testUrl().replace('redis://', `redis://${name}:pw@`);
}

describe('access', () => {
  it('lists every command the Lua scripts call', () => {
    const called = new Set<string>();
    const dirs = [LUA_DIR, path.join(LUA_DIR, 'include')];
    for (const dir of dirs) {
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.lua'))) {
        const source = readFileSync(path.join(dir, file), 'utf8');
        // redis.call('X', ...), and the names handed to helpers that call redis.call(cmd, ...).
        for (const m of source.matchAll(/(?:redis\.call\(|many\(|and )'([A-Z]+)'/g)) called.add(m[1]);
      }
    }
    expect(called.size).toBeGreaterThan(20);
    const checked = new Set([...Object.keys(REQUIRED), 'XADD', ...MIGRATION_ONLY]);
    expect([...called].filter((c) => !checked.has(c))).toEqual([]);
  });

  it('refuses to start a user who may not run XADD, naming it, and writes nothing', async () => {
    const prefix = uniquePrefix('acl');
    const url = await user(prefix, ['XADD']);
    const err = await createScheduler({ url, prefix, warnings: { aof: false } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermissionError);
    expect((err as PermissionError).commands).toEqual(['XADD']);
    expect((err as PermissionError).message).toMatch(/XADD.*eventsMaxLength: 0/);
    expect(await keysUnder(await redis.raw(), prefix)).toEqual([]);
  });

  it('lets the same user start with events off, and a failed task is retried, not stranded', async () => {
    const prefix = uniquePrefix('acl');
    const url = await user(prefix, ['XADD']);
    const s = await createScheduler({ url, prefix, eventsMaxLength: 0, warnings: { aof: false } });
    try {
      const { hash } = await s.put('fails once');
      const task = (await s.claim())!;
      expect(await s.fail(task, { error: new Error('boom'), retryIn: 0 })).toBe('retry');
      expect(await s.get(hash)).toMatchObject({ state: 'ready', attempts: 1 });
      expect((await s.claim())!.hash).toBe(hash);
    } finally {
      await s.close();
    }
  });

  it('names every missing command at once', async () => {
    const prefix = uniquePrefix('acl');
    const url = await user(prefix, ['ZPOPMIN', 'HINCRBY', 'BLPOP']);
    const err = await createScheduler({ url, prefix, warnings: { aof: false } }).catch((e: unknown) => e);
    expect((err as PermissionError).commands).toEqual(['BLPOP', 'HINCRBY', 'ZPOPMIN']);
  });

  it.each([['FUNCTION LOAD'], ['FCALL_RO']])('refuses to start a user who may not run %s, naming it, and writes nothing', async (command) => {
    const prefix = uniquePrefix('acl');
    const url = await user(prefix, [command]);
    const err = await createScheduler({ url, prefix, warnings: { aof: false } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PermissionError);
    expect((err as PermissionError).commands).toEqual([command]);
    expect((err as PermissionError).message).toContain(command);
    expect(await keysUnder(await redis.raw(), prefix)).toEqual([]);
  });

  it('names FCALL when only it is missing', async () => {
    const prefix = uniquePrefix('acl');
    const url = await user(prefix, ['FCALL']);
    const err = await createScheduler({ url, prefix, warnings: { aof: false } }).catch((e: unknown) => e);
    expect((err as PermissionError).commands).toEqual(['FCALL']);
    expect(await keysUnder(await redis.raw(), prefix)).toEqual([]);
  });

  it('warns once without CLIENT UNBLOCK, and a delayed task still starts close to its time', async () => {
    const prefix = uniquePrefix('acl');
    const url = await user(prefix, ['CLIENT UNBLOCK']);
    const warnings: string[] = [];
    const s = await createScheduler({ url, prefix, onWarning: (m) => warnings.push(m) });
    try {
      expect(warnings.filter((w) => w === UNBLOCK_WARNING)).toHaveLength(1);
      const started: number[] = [];
      const worker = s.work(async () => void started.push(Date.now()));
      await new Promise((resolve) => setTimeout(resolve, 300)); // the worker is idle, blocked
      const at = Date.now();
      await s.put('due in 400 ms', { delay: 400 });
      await new Promise((resolve) => setTimeout(resolve, 2000));
      await worker.close();
      expect(started).toHaveLength(1);
      // Without the fix it waited for a whole-second backstop: about 2 s.
      expect(started[0] - at).toBeLessThan(1200);
    } finally {
      await s.close();
    }
  });
});
