/**
 * Redis clients of node-redis 4, 5 and 6: a caller's client of each major carries a task through
 * put, claim and ack; a RESP3 client (node-redis 6's default) is left on RESP3 while docket talks
 * through a RESP2 duplicate of its own, which close() ends; a node-redis 5 or 6 cluster client is
 * refused with a typed error. And the client options object: what it configures reaches the
 * client docket opens (the database here), and what docket cannot honour is refused before any
 * connection, naming the field. The whole contract suite runs through 5 and 6 clients in
 * `npm run test:clients`; this file keeps the essentials in `npm test`.
 */
import { randomBytes } from 'node:crypto';
import { createClient as createClient5, createCluster as createCluster5 } from 'redis-v5';
import { createClient as createClient6, RESP_TYPES } from 'redis-v6';
import { createClient, type RedisClientType } from 'redis';
import { createScheduler, ValidationError } from '../lib';
import { queueKeys } from '../lib/domain/keys';
import { testUrl, uniquePrefix, useRedis } from './support/harness';
import { connectionsNamed, roundTrip } from './support/round-trip';
import { startRedis } from './support/redis-server';
import { clientName } from '../lib/redis/client-name';

const redis = useRedis();

describe("a caller's client", () => {
  it.each([
    ['5', () => createClient5({ url: testUrl() })],
    ['6', () => createClient6({ url: testUrl() })],
    ['5 on RESP3', () => createClient5({ url: testUrl(), RESP: 3 })],
    ['6 with a type mapping', () => createClient6({ url: testUrl(), RESP: 2 }).withTypeMapping({ [RESP_TYPES.BLOB_STRING]: Buffer })],
  ])('of node-redis %s carries a task through put, claim and ack, and is left open', async (_major, make) => {
    const client = make();
    client.on('error', () => {});
    await client.connect();
    try {
      const s = await createScheduler({ client, prefix: uniquePrefix('clients'), warnings: { aof: false } });
      await roundTrip(s);
      await s.close();
      expect(client.isOpen).toBe(true);
      expect(await client.sendCommand(['PING'])).toBe('PONG');
    } finally {
      await client.disconnect();
    }
  });

  it('on RESP3 stays on RESP3: docket talks through a RESP2 duplicate, which close() ends', async () => {
    const name = `docket-resp3-${randomBytes(4).toString('hex')}`;
    // A server of its own: connections under docket's name are counted.
    const server = await startRedis();
    const raw = createClient({ url: server.url }) as RedisClientType;
    await raw.connect();
    const client = createClient6({ url: server.url, name });
    client.on('error', () => {});
    await client.connect();
    try {
      const s = await createScheduler({ client, prefix: uniquePrefix('clients'), warnings: { aof: false } });
      await roundTrip(s);
      // docket's duplicate carries docket's name (docket libraries counts it); the caller's keeps its own.
      expect(await connectionsNamed(raw, clientName())).toBe(1);
      expect(await connectionsNamed(raw, name)).toBe(1);
      await s.close();
      expect(await connectionsNamed(raw, clientName())).toBe(0);
      expect(await connectionsNamed(raw, name)).toBe(1);
      // Still RESP3: a hash comes back as an object, not a flat array.
      await client.sendCommand(['HSET', `${name}:h`, 'a', '1']);
      expect(await client.sendCommand(['HGETALL', `${name}:h`])).toEqual({ a: '1' });
      await client.sendCommand(['DEL', `${name}:h`]);
    } finally {
      await Promise.all([client.disconnect(), raw.disconnect()]);
      await server.stop();
    }
  });

  it('of a node-redis 5 or 6 cluster is refused, naming the option, before any connection', async () => {
    const cluster = createCluster5({ rootNodes: [{ url: testUrl() }] });
    const err = await createScheduler({ client: cluster as never, warnings: { aof: false } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).field).toBe('options.client');
    expect((err as ValidationError).message).toMatch(/node-redis 5 or 6 cluster/);
    expect(cluster.isOpen).toBe(false);
  });
});

describe('clientOptions', () => {
  it('reach the client docket opens: the database chosen holds the queue', async () => {
    const prefix = uniquePrefix('clients');
    const s = await createScheduler({ url: testUrl(), clientOptions: { database: 3 }, prefix, warnings: { aof: false } });
    try {
      await roundTrip(s);
      const { hash } = await s.put('in database 3');
      const raw = await redis.raw();
      const tasks = queueKeys(prefix, 'default').tasks;
      expect(await raw.hExists(tasks, hash)).toBe(false);
      await raw.select(3);
      expect(await raw.hExists(tasks, hash)).toBe(true);
      await raw.select(0);
    } finally {
      await s.close();
    }
  });

  it('may carry the URL instead of url', async () => {
    const s = await createScheduler({ clientOptions: { url: testUrl(), socket: { connectTimeout: 2000 } }, prefix: uniquePrefix('clients'), warnings: { aof: false } });
    try {
      await roundTrip(s);
    } finally {
      await s.close();
    }
  });

  it.each([
    ['with a client', () => ({ client: createClient5({ url: testUrl() }), clientOptions: { database: 1 } }), 'options.clientOptions', /configure the client you give/],
    ['with a URL in both places', () => ({ url: testUrl(), clientOptions: { url: testUrl() } }), 'options.clientOptions', /give the URL once/],
    ['with a URL docket cannot read', () => ({ clientOptions: { url: 'http://127.0.0.1:6379' } }), 'options.clientOptions.url', /./],
    ['with a reconnectStrategy', () => ({ clientOptions: { socket: { reconnectStrategy: () => 100 } } }), 'options.clientOptions.socket.reconnectStrategy', /docket's own/],
    ['in legacy mode', () => ({ clientOptions: { legacyMode: true } }), 'options.clientOptions.legacyMode', /promise API/],
    ['not an object', () => ({ clientOptions: 'redis://127.0.0.1' }), 'options.clientOptions', /expected an object/],
  ])('are refused %s, naming the field, before any connection', async (_case, options, field, message) => {
    const err = await createScheduler({ ...(options() as object), warnings: { aof: false } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).field).toBe(field);
    expect((err as ValidationError).message).toMatch(message);
  });
});
