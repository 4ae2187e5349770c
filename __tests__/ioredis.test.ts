/**
 * ioredis clients (lib/redis/ioredis.ts): a caller's ioredis 5 or 6 client carries a task through
 * put, claim and ack and is left open, while docket sends through a duplicate of its own that
 * close() ends; replies reach docket as node-redis gives them (Lua tables with nil, HGETALL as a
 * flat array, integers as numbers) whatever the caller's options; error replies come back as
 * typed errors, a lost library is loaded again, and a call a lost connection had in flight fails as
 * of unknown outcome instead of being sent again. The whole contract suite runs through an
 * ioredis client in `npm run test:clients`.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Redis as Redis6 } from 'ioredis6';
import { createScheduler, type DocketError, IndeterminateError, RedisError, ValidationError } from '../lib';
import { duplicateIoRedis, type IoStandalone } from '../lib/redis/ioredis';
import { createClient, type RedisClientType } from 'redis';
import { clientName } from '../lib/redis/client-name';
import { eventually, keysUnder, testUrl, uniquePrefix, useRedis } from './support/harness';
import { startRedis, type RedisServer } from './support/redis-server';
import { connectionsNamed, roundTrip } from './support/round-trip';

const redis = useRedis();

/** docket's own connection from a fresh ioredis 5 client, connected; both end after the test. */
async function adapted(): Promise<IoStandalone> {
  const client = new Redis(testUrl(), { lazyConnect: true });
  const dup = duplicateIoRedis(client) as IoStandalone;
  dup.on('error', () => {});
  await dup.connect();
  opened.push(dup);
  return dup;
}
const opened: IoStandalone[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((c) => c.disconnect()));
});

describe("a caller's ioredis client", () => {
  // A server of its own: connections under docket's name are counted, and every scheduler names its own so.
  let server: RedisServer;
  let raw: RedisClientType;
  beforeAll(async () => {
    server = await startRedis();
    raw = createClient({ url: server.url }) as RedisClientType;
    await raw.connect();
  });
  afterAll(async () => {
    await raw.disconnect();
    await server.stop();
  });

  it.each([
    ['5', (name: string, url: string) => new Redis(url, { connectionName: name })],
    ['6 (RESP3 by default)', (name: string, url: string) => new Redis6(url, { connectionName: name })],
    ['5 with keyPrefix and stringNumbers', (name: string, url: string) => new Redis(url, { connectionName: name, keyPrefix: 'app:', stringNumbers: true })],
  ])('of ioredis %s carries a task through put, claim and ack; close() ends what docket opened and leaves it open', async (_kind, make) => {
    const name = `io-${randomBytes(4).toString('hex')}`;
    const client = make(name, server.url);
    client.on('error', () => {});
    try {
      const prefix = uniquePrefix('io');
      const s = await createScheduler({ client, prefix, onWarning: () => {} });
      await roundTrip(s);
      // The caller's keyPrefix never reaches docket's keys.
      expect(await keysUnder(raw, `app:${prefix}`)).toEqual([]);
      expect((await keysUnder(raw, prefix)).length).toBeGreaterThan(0);
      // docket's duplicates carry docket's name (docket libraries counts them); the caller's keeps its own.
      expect(await connectionsNamed(raw, clientName())).toBeGreaterThanOrEqual(1);
      expect(await connectionsNamed(raw, name)).toBe(1);
      await s.close();
      expect(client.status).toBe('ready');
      expect(await client.call('PING')).toBe('PONG');
      // docket's duplicates are gone; the caller's own connection is left, under its name.
      await eventually(async () => (await connectionsNamed(raw, clientName())) === 0);
      expect(await connectionsNamed(raw, name)).toBe(1);
    } finally {
      await client.quit();
    }
  });

  it('is refused with a typed error naming options.client when docket cannot use it', async () => {
    const err = await createScheduler({ client: { sendCommand: async () => null } as never, prefix: uniquePrefix('io'), onWarning: () => {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ code: 'ERR_VALIDATION', field: 'options.client' });
  });
});

describe('replies through the adapter', () => {
  it('are what node-redis gives: a Lua table with nested tables and nil, integers, status replies', async () => {
    const io = await adapted();
    const raw = await redis.raw();
    // Called as docket calls its own: FCALL of a library's function (a library of this test's own).
    const shapes = [
      '#!lua name=iotest_shapes',
      "redis.register_function('iotest_nested', function() return { 1, 'a', { 2, false, { 'x', 3 } }, false, 'z' } end)",
      "redis.register_function('iotest_false', function() return false end)",
    ].join('\n');
    await raw.sendCommand(['FUNCTION', 'LOAD', 'REPLACE', shapes]);
    const reply = await io.sendCommand(['FCALL', 'iotest_nested', '0']);
    expect(reply).toEqual([1, 'a', [2, null, ['x', 3]], null, 'z']);
    expect(reply).toEqual(await raw.sendCommand(['FCALL', 'iotest_nested', '0']));
    expect(await io.sendCommand(['FCALL', 'iotest_false', '0'])).toBeNull();
    expect(await io.sendCommand(['PING'])).toBe('PONG');
  });

  it('answer HGETALL and XRANGE as flat arrays of strings, as node-redis does, not as ioredis objects', async () => {
    const io = await adapted();
    const raw = await redis.raw();
    const key = `${uniquePrefix('io')}:h`;
    await raw.sendCommand(['HSET', key, 'a', '1', 'b', '2']);
    await raw.sendCommand(['XADD', `${key}:s`, '1-1', 'f', 'v']);
    expect(await io.sendCommand(['hgetall', key])).toEqual(await raw.sendCommand(['HGETALL', key]));
    expect(await io.sendCommand(['HGETALL', key])).toEqual(['a', '1', 'b', '2']);
    expect(await io.sendCommand(['XRANGE', `${key}:s`, '-', '+'])).toEqual([['1-1', ['f', 'v']]]);
    expect(await io.sendCommand(['HLEN', key])).toBe(2);
  });
});

describe('errors through the adapter', () => {
  it('come back as typed errors that keep the server message', async () => {
    const io = await adapted();
    const key = `${uniquePrefix('io')}:h`;
    await io.sendCommand(['HSET', key, 'a', '1']);
    const wrongType = await io.sendCommand(['INCR', key]).catch((e: unknown) => e);
    expect(wrongType).toBeInstanceOf(RedisError);
    expect((wrongType as DocketError).code).toBe('ERR_REDIS');
    expect((wrongType as Error).message).toMatch(/WRONGTYPE/);
    const notFound = await io.sendCommand(['FCALL', 'docket_nothing', '0']).catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(RedisError);
    expect(((notFound as Error).cause as Error).message).toMatch(/Function not found/);
  });

  it('a library lost to FUNCTION FLUSH is loaded again: the scheduler goes on working', async () => {
    const client = new Redis(testUrl());
    client.on('error', () => {});
    try {
      const s = await createScheduler({ client, prefix: uniquePrefix('io'), onWarning: () => {} });
      await roundTrip(s);
      await (await redis.raw()).sendCommand(['FUNCTION', 'FLUSH']);
      await roundTrip(s);
      await s.close();
    } finally {
      await client.quit();
    }
  });

  it('a call a killed connection had in flight fails as of unknown outcome and is not sent again', async () => {
    const io = await adapted();
    const raw = await redis.raw();
    const key = `${uniquePrefix('io')}:list`;
    const id = String(await io.sendCommand(['CLIENT', 'ID']));
    const blocked = io.sendCommand(['BLPOP', key, '5']);
    await eventually(async () => String(await raw.sendCommand(['CLIENT', 'LIST'])).includes(`id=${id} `) && String(await raw.sendCommand(['CLIENT', 'LIST'])).includes('cmd=blpop'));
    await raw.sendCommand(['CLIENT', 'KILL', 'ID', id]);
    await expect(blocked).rejects.toBeInstanceOf(IndeterminateError);
    // The connection comes back by itself; the BLPOP was not sent again (an LPUSH stays in the list).
    expect(await io.sendCommand(['PING'])).toBe('PONG');
    await raw.sendCommand(['LPUSH', key, 'v']);
    expect(await io.sendCommand(['LLEN', key])).toBe(1);
  });
});

describe('closing', () => {
  it("ends docket's connection, which then reports closed; calls made after fail as not connected", async () => {
    const io = await adapted();
    expect(io.isOpen).toBe(true);
    await io.disconnect();
    expect(io.isOpen).toBe(false);
    await expect(io.sendCommand(['PING'])).rejects.toMatchObject({ code: 'ERR_CONNECTION' });
  });
});
